package procutil

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRunCarriesTheEndOfTheOutput(t *testing.T) {
	if err := Run(exec.Command("true")); err != nil {
		t.Fatal(err)
	}
	err := Run(exec.Command("sh", "-c", "echo first; echo the reason >&2; exit 3"))
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "the reason") || !strings.Contains(err.Error(), "sh -c") {
		t.Fatalf("error %v: want the command, its status and its output", err)
	}
}

func TestTailKeepsWholeLastLines(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	got := Tail([]byte(b.String()))
	if len(got) > 3000 || !strings.HasPrefix(got, "line ") || !strings.HasSuffix(got, "line 999") {
		t.Fatalf("tail of %d bytes starts %q, ends %q", len(got), got[:10], got[len(got)-10:])
	}
	if Tail([]byte("short\n")) != "short" {
		t.Fatal("a short output is not kept whole")
	}
}

func TestLogTail(t *testing.T) {
	dir := t.TempDir()
	log, empty := filepath.Join(dir, "error.log"), filepath.Join(dir, "empty.log")
	for path, text := range map[string]string{log: "InnoDB: cannot allocate\n", empty: "\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := LogTail(filepath.Join(dir, "missing.log"), empty); got != "(the server wrote no log)" {
		t.Fatalf("no log: %q", got)
	}
	if got := LogTail(empty, log); !strings.Contains(got, "--- end of "+log) || !strings.Contains(got, "cannot allocate") || strings.Contains(got, empty) {
		t.Fatalf("log tail %q", got)
	}
}

func TestPoll(t *testing.T) {
	never := func() error { return nil }
	tries := 0
	if err := Poll(context.Background(), time.Millisecond, func(context.Context) error {
		if tries++; tries < 3 {
			return errors.New("not yet")
		}
		return nil
	}, never); err != nil || tries != 3 {
		t.Fatalf("succeeding on the third try: err %v after %d tries", err, tries)
	}
	died := errors.New("mariadbd exited")
	if err := Poll(context.Background(), time.Millisecond, func(context.Context) error { return errors.New("refused") },
		func() error { return died }); !errors.Is(err, died) {
		t.Fatalf("server gone: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := Poll(ctx, time.Millisecond, func(context.Context) error { return errors.New("connection refused") }, never)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "last attempt: connection refused") {
		t.Fatalf("deadline: %v", err)
	}
}

func TestFreePort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d is not free: %v", port, err)
	}
	l.Close()
}
