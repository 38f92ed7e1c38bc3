// Package procutil holds the small helpers that start and watch server
// processes share: running a command with its output in the error, the end of
// a log for a message, polling until a server answers, and a free port.
package procutil

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Run runs cmd to completion and returns an error that carries the end of
// its output.
func Run(cmd *exec.Cmd) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, Tail(out.Bytes()))
	}
	return nil
}

// Tail returns the last lines of out (about 3 KB).
func Tail(out []byte) string {
	const keep = 3000
	if len(out) > keep {
		out = out[len(out)-keep:]
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	return strings.TrimRight(string(out), "\n")
}

// LogTail returns the end of the log files that exist, for an error message.
func LogTail(paths ...string) string {
	var parts []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		parts = append(parts, "--- end of "+p+" ---\n"+Tail(data))
	}
	if len(parts) == 0 {
		return "(the server wrote no log)"
	}
	return strings.Join(parts, "\n")
}

// Poll calls try (each attempt bounded to 5 s) every interval until it
// succeeds, stop returns an error (the server died: that error is returned),
// or ctx ends (the error then carries the last attempt's).
func Poll(ctx context.Context, every time.Duration, try func(context.Context) error, stop func() error) error {
	for {
		if err := stop(); err != nil {
			return err
		}
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		last := try(attempt)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last attempt: %v)", ctx.Err(), last)
		case <-time.After(every):
		}
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free TCP port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
