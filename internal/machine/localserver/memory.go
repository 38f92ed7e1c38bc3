package localserver

import (
	"os"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/sysinfo"
)

// machineMemory returns the memory the server may use: MemTotal from
// /proc/meminfo, lowered to the cgroup (v2 or v1) memory limit when the
// process runs in a container with one; 0 when unknown.
func machineMemory() int64 {
	total := sysinfo.MemTotal(readSmall("/proc/meminfo"))
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		limit, err := strconv.ParseInt(strings.TrimSpace(readSmall(path)), 10, 64)
		if err == nil && limit > 0 && (total == 0 || limit < total) {
			total = limit
		}
	}
	return total
}

// readSmall returns the text of a small file, or "" when it cannot be read.
func readSmall(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(data)
}
