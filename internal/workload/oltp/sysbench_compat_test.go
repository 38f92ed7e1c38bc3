package oltp

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// sysbenchTargets are the server targets sysbench 1.0 can reach, with its
// connection flags for a Config.
func sysbenchTargets(t *testing.T) map[string][]string {
	t.Helper()
	flags := func(cfg driver.Config) []string {
		p := "--mysql-"
		if cfg.Kind == driver.KindPgSQL {
			p = "--pgsql-"
		}
		f := []string{"--db-driver=" + cfg.Kind, p + "host=" + cfg.Hosts[0], p + "port=" + strconv.Itoa(cfg.Ports[0]),
			p + "user=" + cfg.User, p + "db=" + cfg.Database}
		if cfg.Password != "" {
			f = append(f, p+"password="+cfg.Password)
		}
		return f
	}
	return map[string][]string{
		driver.KindMySQL: flags(testdb.MySQL(t)),
		driver.KindPgSQL: flags(testdb.PgSQL(t)),
	}
}

// configFromFlags rebuilds the Config of a sysbench target.
func configFromFlags(t *testing.T, flags []string) driver.Config {
	t.Helper()
	var cfg driver.Config
	for _, base := range []driver.Config{testdb.MySQLServer(), testdb.PgSQLServer()} {
		if flags[0] == "--db-driver="+base.Kind {
			cfg = base
		}
	}
	for _, f := range flags {
		if m := regexp.MustCompile(`^--(?:mysql|pgsql)-db=(.*)$`).FindStringSubmatch(f); m != nil {
			cfg.Database = m[1]
		}
	}
	return cfg
}

// sysbench runs sysbench with args and returns its output; a non-zero exit fails the test.
func sysbench(t *testing.T, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("sysbench")
	if err != nil {
		t.Fatal("sysbench is not on PATH: install it (apt-get install sysbench; scripts/test.sh does) to run the sysbench compatibility tests")
	}
	out, err := exec.CommandContext(testCtx(t), path, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// sysbenchStat reads a counter such as "transactions:" from sysbench's summary.
func sysbenchStat(t *testing.T, out, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("sysbench output has no %q line:\n%s", name, out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// TestRunsOnSysbenchTables prepares with sysbench and runs fairbench on the tables.
func TestRunsOnSysbenchTables(t *testing.T) {
	for kindName, flags := range sysbenchTargets(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			sysbench(t, slices.Concat([]string{"oltp_read_write"}, flags, prepareArgs, []string{"prepare"})...)
			db := openTarget(t, configFromFlags(t, flags))
			conn := connect(t, db)

			w := parse(t, readWrite, prepareArgs...)
			if m, err := w.Missing(testCtx(t), conn, db.Dialect()); err != nil || !m.None() {
				t.Fatalf("Missing on sysbench's tables = %v, %v; want none", m, err)
			}
			// sysbench leaves no mark of its load: complete tables with their
			// indexes are taken by a run without a word, and reused by a suite.
			if rep, err := w.Inspect(testCtx(t), conn, db.Dialect()); err != nil || len(rep.Warnings) != 0 {
				t.Errorf("Inspect on sysbench's tables: %v, warnings %q; want none", err, rep.Warnings)
			}
			if ok, why, err := w.Matches(testCtx(t), conn, db.Dialect()); !ok || err != nil {
				t.Errorf("Matches on sysbench's tables = %v %q %v; want reused", ok, why, err)
			}
			runEvents(t, w, db, 100, &workload.Counts{Reads: 14, Writes: 4, Others: 2})
			// oltp_insert relies on the server's auto-increment continuing after 1000.
			runEvents(t, parse(t, insert, prepareArgs...), db, 20, &workload.Counts{Writes: 1})
			got := shapeOf(t, conn, "sbtest1").rows + shapeOf(t, conn, "sbtest2").rows
			if got != 2020 {
				t.Errorf("tables hold %d rows after 20 inserts, want 2020", got)
			}
		})
	}
}

// TestSysbenchRunsOnFairbenchTables prepares with fairbench and runs sysbench's
// read_write and insert scripts on the tables, then sysbench's cleanup.
func TestSysbenchRunsOnFairbenchTables(t *testing.T) {
	for kindName, flags := range sysbenchTargets(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, configFromFlags(t, flags))
			w := parse(t, readWrite, prepareArgs...)
			if _, _, err := prepareWith(t, w, db, 2, false); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			// One thread: with two, deadlocks between sysbench's own threads are legitimate.
			run := []string{"--threads=1", "--time=0", "--events=200", "run"}
			out := sysbench(t, slices.Concat([]string{"oltp_read_write"}, flags, prepareArgs, run)...)
			if n := sysbenchStat(t, out, "transactions:"); n != 200 {
				t.Errorf("sysbench oltp_read_write ran %d transactions, want 200:\n%s", n, out)
			}
			if n := sysbenchStat(t, out, "ignored errors:"); n != 0 {
				t.Errorf("sysbench oltp_read_write hit %d errors on fairbench's tables:\n%s", n, out)
			}
			// Inserts with server-assigned ids must continue after the loaded ones.
			out = sysbench(t, slices.Concat([]string{"oltp_insert"}, flags, prepareArgs, run)...)
			if n := sysbenchStat(t, out, "ignored errors:"); n != 0 {
				t.Errorf("sysbench oltp_insert hit %d errors (duplicate ids?) on fairbench's tables:\n%s", n, out)
			}
			conn := connect(t, db)
			if got := shapeOf(t, conn, "sbtest1").rows + shapeOf(t, conn, "sbtest2").rows; got != 2200 {
				t.Errorf("tables hold %d rows after sysbench's 200 inserts, want 2200", got)
			}
			sysbench(t, slices.Concat([]string{"oltp_read_write"}, flags, prepareArgs, []string{"cleanup"})...)
			if m, err := w.Missing(testCtx(t), conn, db.Dialect()); err != nil || m.Count != 2 {
				t.Errorf("Missing after sysbench cleanup = %v, %v; want both tables", m, err)
			}
		})
	}
}
