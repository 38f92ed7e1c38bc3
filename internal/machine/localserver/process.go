package localserver

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Time limits. A server with a large buffer pool may take minutes to recover
// after a crash or to flush on shutdown; callers may pass a shorter context.
const (
	startTimeout = 10 * time.Minute
	stopTimeout  = 10 * time.Minute
	pollInterval = 100 * time.Millisecond
)

// processRunning reports whether pid is a live (not zombie) process whose
// command line names a file in dir, so that a reused pid is not mistaken for
// the server.
func processRunning(pid int, dir string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses, which may hold spaces.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
		return false
	}
	cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil {
		return false
	}
	return bytes.Contains(cmdline, []byte(dir+string(filepath.Separator)))
}

// readPIDFile returns the pid on the first line of path, or 0.
func readPIDFile(path string) int {
	first, _, _ := strings.Cut(readSmall(path), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	return pid
}

// waitGone waits until pid no longer runs the server in dir.
func waitGone(ctx context.Context, pid int, dir string) error {
	for processRunning(pid, dir) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// portFree reports whether port can be bound on 127.0.0.1.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
