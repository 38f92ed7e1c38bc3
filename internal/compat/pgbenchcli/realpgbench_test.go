package pgbenchcli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// nowhere is a socket directory that does not exist: pgbench checks the
// whole command line, then fails to connect there.
const nowhere = "/nonexistent-fairbench-pgbenchcli"

// realPgbench runs pgbench 15 on args in dir, with env added to an
// environment whose PGHOST points nowhere, and returns its exit status and
// its output.
func realPgbench(t *testing.T, dir string, args []string, env []string) (int, string) {
	t.Helper()
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatalf("pgbench is not installed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C", "LC_ALL=C", "PGCONNECT_TIMEOUT=2"}
	for _, e := range env {
		if !strings.HasPrefix(e, "PGHOST=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "PGHOST="+nowhere)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	t.Fatalf("pgbench %q: %v", args, err)
	return 0, ""
}

// scriptDir holds the script files the good lines name, which pgbench
// reads while it reads the options.
func scriptDir(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"a.sql", "b.sql", "x.sql"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("SELECT :x;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGoodLinesAgainstPgbench runs real pgbench 15 on every good line: it
// accepts each, up to failing to connect (or prints and exits for --help,
// -V, -b list, --show-script).
func TestGoodLinesAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "pgbench")
	dir := scriptDir(t)
	for _, tc := range goodLines {
		code, out := realPgbench(t, dir, strings.Fields(tc.args), tc.env)
		switch tc.want.Mode {
		case ModeRun, ModeInit:
			if !strings.Contains(out, "could not create connection for") && !strings.Contains(out, "connection to server") {
				t.Errorf("%s: pgbench did not get as far as connecting (exit %d):\n%s", tc.args, code, out)
			}
		default:
			if code != 0 {
				t.Errorf("%s: pgbench exited %d:\n%s", tc.args, code, out)
			}
		}
	}
}

// TestBadLinesAgainstPgbench runs real pgbench 15 on every bad line: it
// refuses each with exit status 1 and the message Parse gives.
func TestBadLinesAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "pgbench")
	dir := scriptDir(t)
	for _, tc := range badLines {
		code, out := realPgbench(t, dir, strings.Fields(tc.args), tc.env)
		if code != 1 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: pgbench exited %d, saying\n%s\nwant exit 1 with %q", tc.args, code, out, tc.want)
		}
		if strings.Contains(out, "connection to server") {
			t.Errorf("%s: pgbench tried to connect before refusing it:\n%s", tc.args, out)
		}
	}
}
