package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestDryRunNeedsNoServer runs sysbench's dry-run lines with the target a
// listener that counts connections: prepare, run (sysbench's order, TCP) and
// cleanup complete, and so does a run in fairbench's order on a socket that
// does not exist; the listener sees no connection. The run's result says it
// was a dry run, with a note (also printed) and no server machine, data set
// or server counters. The same run without --mysql-dry-run reaches the
// listener and fails.
func TestDryRunNeedsNoServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	port, accepted := drivertest.CountingServer(t)
	target := []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(port), "--tables=2", "--table-size=1000"}

	if r := runCLI(ctx, nil, join(target, []string{"--mysql-dry-run", "--threads=2", "oltp_read_write", "prepare"})...); r.code != ExitOK || !strings.Contains(r.stdout, "Loaded 2000 rows") {
		t.Fatalf("dry prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "dry.json")
	r := runCLI(ctx, nil, join(target, []string{"--mysql-dry-run", "--threads=2", "--time=1", "--report-interval=1", "oltp_read_write", "run", "-o", out})...)
	if r.code != ExitOK {
		t.Fatalf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Count(r.stdout, "Note: "+measure.DryRunNote) != 2 { // the header's and the summary's
		t.Errorf("the output does not say twice that it was a dry run:\n%s", r.stdout)
	}
	res := readResult(t, out)
	switch {
	case res.Totals.Counts.Events == 0 || res.Totals.Counts.Queries == 0:
		t.Errorf("dry run counted %d events, %d queries", res.Totals.Counts.Events, res.Totals.Counts.Queries)
	case !res.Target.DryRun || res.Target.Transport != "":
		t.Errorf("target %+v: want dry_run true and no transport", res.Target)
	case len(res.ServerMachines) != 0 || res.Server.Version != "":
		t.Errorf("a dry run recorded a server %+v on machines %+v", res.Server, res.ServerMachines)
	case res.Observed == nil || res.Observed.Server != nil || res.Observed.Client == nil:
		t.Errorf("observed %+v: want the client's figures and no server's", res.Observed)
	case !strings.Contains(strings.Join(res.Notes, "\n"), measure.DryRunNote):
		t.Errorf("notes %q lack the dry run's", res.Notes)
	}
	if r := runCLI(ctx, nil, join(target, []string{"--mysql-dry-run", "oltp_read_write", "cleanup"})...); r.code != ExitOK {
		t.Fatalf("dry cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sock := filepath.Join(t.TempDir(), "no-such-dir", "mysqld.sock")
	if r := runCLI(ctx, nil, "run", "oltp_point_select", "--mysql-socket="+sock, "--mysql-dry-run", "--events=100", "--time=0"); r.code != ExitOK || !strings.Contains(r.stdout, "total number of events:              100") {
		t.Fatalf("dry run on a missing socket: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the dry runs made %d connections to the target", n)
	}

	if r := runCLI(ctx, nil, join(target, []string{"--threads=2", "--time=1", "oltp_read_write", "run"})...); r.code != ExitTarget || accepted.Load() == 0 {
		t.Fatalf("without --mysql-dry-run: exit %d, %d connections; want the target reached and refused\n%s%s", r.code, accepted.Load(), r.stdout, r.stderr)
	}
}

// TestCompareRefusesDryRunsBesideServedRuns: compare, report and cost never
// put a dry run's figures beside a run against a server — as two systems,
// as rounds of one directory, not even with --allow-mixed — and name the
// files and what to do; two dry runs compare as any runs do.
func TestCompareRefusesDryRunsBesideServedRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	opts := []string{"--tables=1", "--table-size=1000", "--threads=1", "--events=300", "--time=0"}
	run := func(name string, extra ...string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		if r := runCLI(ctx, nil, join([]string{"run", "oltp_point_select", "-o", out}, opts, extra)...); r.code != ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		return out
	}
	dry1 := run("dry1.json", "--mysql-host=127.0.0.1", "--mysql-port=1", "--mysql-dry-run")
	dry2 := run("dry2.json", "--mysql-host=127.0.0.1", "--mysql-port=1", "--mysql-dry-run")
	served := run("served.json", "--sqlite-db="+testdb.SQLite(t).Path)

	if r := runCLI(ctx, nil, "compare", "a="+dry1, "b="+dry2); r.code != ExitOK || !strings.Contains(r.stdout, "oltp_point_select") {
		t.Fatalf("compare of two dry runs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mixed := filepath.Join(dir, "mixed")
	if err := os.MkdirAll(mixed, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{dry1, served} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mixed, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"compare", "dry=" + dry1, "served=" + served},
		{"compare", "--allow-mixed", dry1, served},
		{"compare", "x=" + dry1, "x=" + served},
		{"compare", mixed},
		{"report", "--format", "text", dry1, served},
		{"cost", "--prices", filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml"), "--system", "dry=huawei-arm", "--system", "served=huawei-x86", "dry=" + dry1, "served=" + served},
	} {
		r := runCLI(ctx, nil, args...)
		if r.code == ExitOK || !strings.Contains(r.stderr, "dry1.json") || !strings.Contains(r.stderr, "served.json") ||
			!strings.Contains(r.stderr, "dry run (--mysql-dry-run: no server was contacted") || !strings.Contains(r.stderr, "compare dry runs only with dry runs") {
			t.Errorf("%v: exit %d, want the mix refused naming both files\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}
