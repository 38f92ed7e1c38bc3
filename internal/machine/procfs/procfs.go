// Package procfs reads the parts of Linux's /proc that several packages
// share: the list of processes, a process's command name (comm) and the
// fields of its status file. Every function takes an fs.FS rooted at "/"
// (os.DirFS("/") in production), so tests read fixture trees instead.
package procfs

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// CommLen is the longest name proc/PID/comm holds (TASK_COMM_LEN − 1): the
// kernel keeps the first 15 bytes of a longer one.
const CommLen = 15

// Dir is the directory of process pid in an fs.FS rooted at "/": "proc/PID".
func Dir(pid int) string { return "proc/" + strconv.Itoa(pid) }

// PIDs lists the processes of proc in ascending order (thread-group leaders:
// /proc lists no threads). The error is ReadDir's, so callers can tell a
// permission problem (errors.Is(err, fs.ErrPermission)).
func PIDs(fsys fs.FS) ([]int, error) {
	entries, err := fs.ReadDir(fsys, "proc")
	if err != nil {
		return nil, fmt.Errorf("listing the processes in /proc: %w", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids, nil
}

// Comm returns the command name of process pid (proc/PID/comm without its
// newline: "mariadbd", "postgres"), or "" when it cannot be read.
func Comm(fsys fs.FS, pid int) string {
	b, err := fs.ReadFile(fsys, Dir(pid)+"/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// StatusField returns the value of the line "Key:\tvalue" of a proc/PID/status
// file, trimmed, and whether the file has the key.
func StatusField(status []byte, key string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
