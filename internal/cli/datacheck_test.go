package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestTPCCRecordsTheWarehousesThatRan loads one warehouse and checks, on each
// target, that a run without --warehouses records the warehouses of
// tpcc_meta (not the flag's default of 10), that a different explicit
// --warehouses is refused by run and check before anything runs (exit 3,
// both numbers, the fix), that the --rand-* options TPC-C ignores are
// refused, and that check says how many conditions it ran.
func TestTPCCRecordsTheWarehousesThatRan(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			if kind == driver.KindSQLite {
				cfg = preparedTPCC(t) // the same load, made once for the package
			} else if r := runCLI(context.Background(), nil, join([]string{"prepare", "tpcc", "--warehouses=1", "--threads=2"}, targetArgs(cfg))...); r.code != ExitOK {
				t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			tgt := targetArgs(cfg)
			dir := t.TempDir()

			out := filepath.Join(dir, "default.json")
			r := runCLI(context.Background(), nil, join([]string{"run", "tpcc", "--events=20", "--time=120", "--output=" + out}, tgt)...)
			if r.code != ExitOK {
				t.Fatalf("run without --warehouses: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			if got := res.Options["warehouses"]; got != "1" {
				t.Errorf("run without --warehouses on 1 warehouse recorded warehouses %q, want 1", got)
			}
			if len(res.Data) != 1 || res.Data[0].Option != "warehouses" || res.Data[0].Found != "1" || res.Data[0].Asked != "" || res.Data[0].Source != "tpcc_meta" {
				t.Errorf("data checks %+v, want warehouses found 1 in tpcc_meta, not asked", res.Data)
			}
			if !strings.Contains(r.stdout, "Data set: warehouses 1 (tpcc_meta; not given)") {
				t.Errorf("output does not say which warehouses ran:\n%s", r.stdout)
			}

			for _, cmd := range []string{"run", "check"} {
				out := filepath.Join(dir, cmd+"-w2.json")
				args := []string{cmd, "tpcc", "--warehouses=2"}
				if cmd == "run" {
					args = append(args, "--events=20", "--output="+out)
				}
				r := runCLI(context.Background(), nil, join(args, tgt)...)
				if r.code != ExitTarget {
					t.Errorf("%s --warehouses=2 on 1 warehouse: exit %d, want %d\n%s%s", cmd, r.code, ExitTarget, r.stdout, r.stderr)
				}
				for _, want := range []string{"--warehouses=2", "holds 1 warehouses", "--warehouses=1", "prepare tpcc --warehouses=2 --replace"} {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("%s --warehouses=2: message lacks %q:\n%s", cmd, want, r.stderr)
					}
				}
				if strings.Contains(r.stdout, "Threads started") || strings.Contains(r.stdout, "conditions checked") {
					t.Errorf("%s --warehouses=2 started before refusing:\n%s", cmd, r.stdout)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s --warehouses=2 wrote a result (%v)", cmd, err)
				}
			}

			for _, args := range [][]string{
				{"run", "tpcc", "--events=20", "--rand-type=zipfian"},
				{"run", "tpcc", "--events=20", "--rand-zipfian-exp=1.2"},
				{"prepare", "tpcc", "--warehouses=1", "--rand-type=pareto"},
			} {
				r := runCLI(context.Background(), nil, join(args, tgt)...)
				flag := strings.SplitN(args[len(args)-1], "=", 2)[0]
				if r.code != ExitUsage || !strings.Contains(r.stderr, flag+" does not apply to tpcc") || !strings.Contains(r.stderr, "NURand") {
					t.Errorf("%v: exit %d, want %d saying %s does not apply to tpcc\n%s%s", args, r.code, ExitUsage, flag, r.stdout, r.stderr)
				}
			}

			r = runCLI(context.Background(), nil, join([]string{"check", "tpcc"}, tgt)...)
			if r.code != ExitOK || !strings.Contains(r.stdout, "11 of 12 conditions checked") ||
				!strings.Contains(r.stdout, "condition 11 not checked: holds only right after loading") || strings.Contains(r.stdout, "\n12 conditions checked") {
				t.Errorf("check without --check-all: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			r = runCLI(context.Background(), nil, join([]string{"check", "tpcc", "--check-all"}, tgt)...)
			if !strings.Contains(r.stdout, "\n12 conditions checked") || strings.Contains(r.stdout, "not checked") {
				t.Errorf("check --check-all: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestOLTPWarnsWhenTableSizeIsNotTheData loads 2 tables of 500 rows on each
// target: a run with --table-size=1000 runs, warns with both figures in the
// output and the result, and keeps the size asked for in its options; a run
// on fewer tables than loaded, at the size loaded, says nothing; more tables
// than loaded are refused.
func TestOLTPWarnsWhenTableSizeIsNotTheData(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tgt := targetArgs(cfg)
			if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_read_write", "--tables=2", "--table-size=500"}, tgt)...); r.code != ExitOK {
				t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			dir := t.TempDir()

			out := filepath.Join(dir, "bigger.json")
			r := runCLI(context.Background(), nil, join([]string{"run", "oltp_read_only", "--tables=2", "--table-size=1000", "--events=20", "--output=" + out}, tgt)...)
			if r.code != ExitOK {
				t.Fatalf("run --table-size=1000: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "Warning: --table-size is 1000, but the largest id is 500 in sbtest1, 500 in sbtest2") {
				t.Errorf("output lacks the warning:\n%s", r.stdout)
			}
			res := readResult(t, out)
			if res.Options["table-size"] != "1000" {
				t.Errorf("options table-size %q, want the 1000 asked for (the data label keeps it)", res.Options["table-size"])
			}
			res.Warnings, _ = ownWarnings(res, r.stdout)
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "--table-size is 1000") || !strings.Contains(res.Warnings[0], "500 in sbtest1") {
				t.Errorf("result warnings %q", res.Warnings)
			}
			if len(res.Data) != 1 || res.Data[0].Asked != "1000" || res.Data[0].Found != "500" || !res.Data[0].Differs {
				t.Errorf("result data %+v, want table-size asked 1000 found 500", res.Data)
			}

			out = filepath.Join(dir, "fewer.json")
			r = runCLI(context.Background(), nil, join([]string{"run", "oltp_read_only", "--tables=1", "--table-size=500", "--events=20", "--output=" + out}, tgt)...)
			if r.code != ExitOK || strings.Contains(r.stdout, "Warning") {
				t.Fatalf("run on 1 of 2 tables: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res = readResult(t, out)
			if own, _ := ownWarnings(res, r.stdout); len(own) != 0 || len(res.Data) != 1 || res.Data[0].Differs {
				t.Errorf("run as loaded: warnings %q data %+v", own, res.Data)
			}

			// More tables than loaded are refused (the embedded database
			// tries to prepare them and is refused by the tables there).
			r = runCLI(context.Background(), nil, join([]string{"run", "oltp_read_only", "--tables=3", "--table-size=500", "--events=20"}, tgt)...)
			lacks := "lacks table(s) sbtest3"
			if r.code != ExitTarget || !strings.Contains(r.stdout+r.stderr, lacks) || strings.Contains(r.stdout, "Threads started") {
				t.Errorf("run on 3 tables with 2 loaded: exit %d, want %d saying %q\n%s%s", r.code, ExitTarget, lacks, r.stdout, r.stderr)
			}
		})
	}
}

// TestOptionsAWorkloadIgnores: an option that applies to none of a
// workload's commands (TPC-C's --rand-*) is refused before connecting (exit 2)
// naming the option, the workload and why; an OLTP statement option that the
// workload's events never read is accepted as sysbench accepts it (scripts
// pass one option set to every test), named in a note, and a run records it
// among its warnings; an option the workload reads passes without a word.
func TestOptionsAWorkloadIgnores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	refused := func(args []string, want ...string) {
		t.Helper()
		r := runCLI(context.Background(), nil, append(args, "--sqlite-db="+filepath.Join(dir, "none", "x.db"))...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s%s", args, r.code, ExitUsage, r.stdout, r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: message lacks %q:\n%s", args, w, r.stderr)
			}
		}
	}
	refused([]string{"run", "tpcc", "--rand-spec-pct=5"}, "--rand-spec-pct does not apply to tpcc")

	db := "--sqlite-db=" + filepath.Join(dir, "oltp.db")
	small := []string{"--tables=1", "--table-size=100", db}
	noted := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "oltp_point_select", "--point-selects=5"}, []string{"--point-selects was given but has no effect on oltp_point_select", "one point SELECT per event"}},
		{[]string{"run", "oltp_read_only", "--index-updates=3"}, []string{"--index-updates was given but has no effect on oltp_read_only", "writes nothing"}},
		{[]string{"run", "oltp_write_only", "--range-size=10"}, []string{"--range-size was given but has no effect on oltp_write_only", "no range SELECT"}},
		// Another driver's options (issue 14: they were ignored without a word).
		{[]string{"run", "oltp_read_only", "--db-driver=sqlite", "--mysql-host=db1", "--pgsql-port=5"}, []string{"--mysql-host, --pgsql-port given, but the driver is sqlite (--db-driver=sqlite)", "as sysbench ignores another driver's options"}},
	}
	if r := runCLI(context.Background(), nil, append([]string{"cleanup", "oltp_insert", "--db-driver=sqlite", "--pgsql-user=x"}, small...)...); r.code != 0 ||
		!strings.Contains(r.stderr, "note: --pgsql-user given, but the driver is sqlite (--db-driver=sqlite)") {
		t.Errorf("cleanup oltp_insert --pgsql-user=x: exit %d, want 0 and a note naming the ignored option\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(context.Background(), nil, append([]string{"prepare", "oltp_insert", "--skip-trx=on"}, small...)...); r.code != 0 ||
		!strings.Contains(r.stderr, "note: --skip-trx was given but has no effect on oltp_insert") || !strings.Contains(r.stderr, "autocommit") {
		t.Errorf("prepare oltp_insert --skip-trx=on: exit %d, want 0 and a note naming the ignored option\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range noted {
		out := filepath.Join(dir, tc.args[1]+".json")
		// A few events say it: the note and the warning do not depend on the run's length.
		args := append(append(tc.args, small...), "--time=0", "--events=50", "--threads=1", "--output="+out)
		r := runCLI(context.Background(), nil, args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d, want 0 (accepted, as sysbench does)\n%s%s", tc.args, r.code, r.stdout, r.stderr)
			continue
		}
		for _, w := range append(tc.want, "Warning: "+tc.want[0]) {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, r.stdout)
			}
		}
		res := readResult(t, out)
		res.Warnings, _ = ownWarnings(res, r.stdout)
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], tc.want[0]) {
			t.Errorf("%v: result warnings %q, want one naming the ignored option", tc.args, res.Warnings)
		}
	}
	// TPC-C's runs on a copy of the package's load, not loading their own
	// (a run on an empty embedded database prepares it first).
	tpcc := preparedTPCC(t).Path
	for _, args := range [][]string{
		{"run", "oltp_read_write", "--index-updates=3", "--rand-type=pareto", "--sqlite-db=" + filepath.Join(dir, "oltp_read_write-used.db")},
		{"run", "tpcc", "--rand-seed=7", "--warehouses=1", "--sqlite-db=" + tpcc},
	} {
		r := runCLI(context.Background(), nil, append(args, "--time=0", "--events=50", "--threads=1")...)
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, "no effect") || strings.Contains(r.stderr, "does not apply") {
			t.Errorf("%v: exit %d or a word about an option the workload uses:\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}
