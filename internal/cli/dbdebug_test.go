package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// debugLineRe is one statement --db-debug printed: the thread, the
// statement, its arguments.
var debugLineRe = regexp.MustCompile(`^DEBUG: thread ([0-9]+): SELECT c FROM sbtest1 WHERE id=\? \[([0-9]+)\]$`)

// TestDBDebugPrintsEveryStatement runs oltp_point_select on MariaDB in
// sysbench's form with --db-debug: each of the 40 events' statement is printed
// on stderr with its id and the thread that sent it (0 or 1);
// the output and the result warn that the figures include the printing. The
// same run without it prints no statement.
func TestDBDebugPrintsEveryStatement(t *testing.T) {
	cfg := testdb.MySQL(t)
	base := join(targetArgs(cfg), []string{"--tables=1", "--table-size=100"})
	if r := runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "prepare"})...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "debug.json")
	r := runCLI(context.Background(), nil, join(base, []string{"--threads=2", "--events=40", "--time=60", "--db-debug=on", "oltp_point_select", "run", "-o", out})...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	threads := map[string]bool{}
	n := 0
	for _, l := range strings.Split(r.stderr, "\n") {
		if m := debugLineRe.FindStringSubmatch(l); m != nil {
			n++
			threads[m[1]] = true
		}
	}
	res := readResult(t, out)
	// Which threads sent them depends on scheduling (one thread may run all
	// 40 events before the other's first): every one is thread 0 or 1.
	delete(threads, "0")
	delete(threads, "1")
	if int64(n) < res.Totals.Counts.Events || res.Totals.Counts.Events != 40 || len(threads) != 0 {
		t.Errorf("%d statements printed by threads %v for %d events; stderr:\n%s", n, threads, res.Totals.Counts.Events, r.stderr)
	}
	if !strings.Contains(r.stdout, "WARNING: "+dbDebugWarning) || !strings.Contains(strings.Join(res.Warnings, "\n"), dbDebugWarning) || res.Options["db-debug"] != "true" {
		t.Errorf("warning in output: %v, in result: %q, option %q", strings.Contains(r.stdout, dbDebugWarning), res.Warnings, res.Options["db-debug"])
	}
	r = runCLI(context.Background(), nil, join(base, []string{"--threads=2", "--events=40", "--time=60", "oltp_point_select", "run"})...)
	if r.code != ExitOK || strings.Contains(r.stderr, "DEBUG:") || strings.Contains(r.stdout, dbDebugWarning) {
		t.Errorf("without --db-debug: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
