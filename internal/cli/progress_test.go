package cli

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// runTerminal runs the CLI with its standard output taken for a terminal, so
// that progress lines are redrawn in place every 500 ms.
func runTerminal(ctx context.Context, args ...string) cliRun {
	var out, errb syncbuf.Buffer
	app := &App{
		Stdout: &out, Stderr: &errb, Version: "test",
		Getenv:     func(string) string { return "" },
		IsTerminal: func(w io.Writer) bool { return w == &out },
	}
	code := app.Execute(ctx, args)
	return cliRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// TestUnansweredConnectSaysWhatItWaitsFor: a server that accepts and never
// answers makes fairbench say, after a moment, what it connects to and how
// long it will wait, then fail with exit 3 naming host, port and timeout
// (it used to wait 30 s in silence, then say "context deadline exceeded").
func TestUnansweredConnectSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	port := drivertest.SilentServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := runCLI(ctx, nil, "run", "oltp_read_only", "--db-driver=mysql", "--mysql-host=127.0.0.1",
		"--mysql-port="+strconv.Itoa(port), "--time=1")
	if r.code != ExitTarget {
		t.Fatalf("exit %d, want %d (target unusable); stderr:\n%s", r.code, ExitTarget, r.stderr)
	}
	for _, want := range []string{
		"connecting to mysql://", "127.0.0.1:" + strconv.Itoa(port), "(timeout 10s) ...",
		"the server at 127.0.0.1:" + strconv.Itoa(port) + " did not speak the MySQL protocol", "no MySQL greeting within 10s", "--mysql-port",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestInterruptWhileConnecting: Ctrl-C while the first connection waits on a
// server that does not answer ends the command as interrupted (exit 130),
// saying nothing ran, not as an unusable target.
func TestInterruptWhileConnecting(t *testing.T) {
	port := drivertest.SilentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	r := runCLI(ctx, nil, "run", "oltp_read_only", "--db-driver=mysql", "--mysql-host=127.0.0.1",
		"--mysql-port="+strconv.Itoa(port), "--time=1")
	if r.code != ExitInterrupted || !strings.Contains(r.stderr, "interrupted while connecting to mysql://") || !strings.Contains(r.stderr, "nothing was run") {
		t.Errorf("exit %d, want %d saying the connect was interrupted; stderr:\n%s", r.code, ExitInterrupted, r.stderr)
	}
}

// TestRunShowsConnectionsOpening: 64 threads on MariaDB at --connect-rate=32
// show, on a terminal, lines of connections opened of 64 with a rate and an
// ETA, then how long opening them took, before the run's own output.
func TestRunShowsConnectionsOpening(t *testing.T) {
	cfg := testdb.MySQL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tgt := targetArgs(cfg)
	if r := runCLI(ctx, nil, join([]string{"prepare", "oltp_point_select", "--tables=1", "--table-size=100"}, tgt)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := runTerminal(ctx, join([]string{"run", "oltp_point_select", "--tables=1", "--table-size=100", "--threads=64",
		"--connect-rate=32", "--time=1"}, tgt)...)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := regexp.MustCompile(`\r\x1b\[Kopening connections: (\d+)/64 connections \([0-9.]+%\), [0-9.]+ connections/s, ETA \S+`).FindAllStringSubmatch(r.stdout, -1)
	if len(lines) == 0 {
		t.Fatalf("no connection progress while 64 connections opened at 32/s:\n%q", r.stdout)
	}
	prev := -1
	for _, l := range lines {
		n, _ := strconv.Atoi(l[1])
		if n < prev {
			t.Errorf("connections opened went down from %d to %d", prev, n)
		}
		prev = n
	}
	if !regexp.MustCompile(`\r\x1b\[Kopened 64 of 64 connections in \S+\n`).MatchString(r.stdout) {
		t.Errorf("no line saying the 64 connections opened, after clearing the progress line:\n%q", r.stdout)
	}
}
