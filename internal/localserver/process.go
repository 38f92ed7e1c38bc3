package localserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
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

// runCommand runs cmd to completion and returns an error that carries the end
// of its output.
func runCommand(cmd *exec.Cmd) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, tail(out.Bytes()))
	}
	return nil
}

// tail returns the last lines of out (about 3 KB).
func tail(out []byte) string {
	const keep = 3000
	if len(out) > keep {
		out = out[len(out)-keep:]
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	return strings.TrimRight(string(out), "\n")
}

// logTail returns the end of the log files that exist, for an error message.
func logTail(paths ...string) string {
	var parts []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		parts = append(parts, "--- end of "+p+" ---\n"+tail(data))
	}
	if len(parts) == 0 {
		return "(the server wrote no log)"
	}
	return strings.Join(parts, "\n")
}

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

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free TCP port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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

// poll calls try until it succeeds, gone reports that the server died, or ctx ends.
func poll(ctx context.Context, try func(context.Context) error, gone func() error) error {
	var last error
	for {
		if err := gone(); err != nil {
			return err
		}
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		last = try(attempt)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last attempt: %v)", ctx.Err(), last)
		case <-time.After(pollInterval):
		}
	}
}
