package postgres

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func procCPU(pid string) time.Duration {
	b, _ := os.ReadFile("/proc/" + pid + "/stat")
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(u+st) * 10 * time.Millisecond
}
