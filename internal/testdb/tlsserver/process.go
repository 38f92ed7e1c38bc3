package tlsserver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("tlsserver: find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// findBinary returns the first executable among paths, or name found in $PATH;
// it fails the test with the Debian package to install when there is none.
func findBinary(t testing.TB, name, debianPackage string, paths ...string) string {
	t.Helper()
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	t.Fatalf("tlsserver: %s not found (looked in %s and $PATH): install the Debian package %s "+
		"(apt-get install %s; scripts/test.sh does this)", name, strings.Join(paths, ", "), debianPackage, debianPackage)
	return ""
}

// runCommand runs cmd to completion and returns an error that carries its output.
func runCommand(cmd *exec.Cmd) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, tail(out.Bytes()))
	}
	return nil
}

// logTail returns the end of a server's log file for an error message.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log %s: %v)", filepath.Base(path), err)
	}
	return "log " + path + ":\n" + tail(data)
}

// tail returns the last lines of out.
func tail(out []byte) string {
	const keep = 3000
	if len(out) > keep {
		out = out[len(out)-keep:]
	}
	return string(out)
}

// poll calls try until it succeeds, stop reports a reason to give up, or ctx ends.
func poll(ctx context.Context, try func(context.Context) error, stop func() error) error {
	var last error
	for {
		if err := stop(); err != nil {
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
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// copyFile copies src over dst and gives dst the permissions mode.
func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := os.Chmod(dst, mode); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}
