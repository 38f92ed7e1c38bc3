package oltp

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// cancelOn is a prepare log that cancels the prepare when a line contains at.
type cancelOn struct {
	syncbuf.Buffer
	at     string
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.at) {
		c.once.Do(c.cancel)
	}
	return c.Buffer.Write(p)
}

// interruptedPrepare runs w.Prepare (replacing what is there) and cancels it
// when its log says at; it fails the test unless the prepare was stopped.
func interruptedPrepare(t *testing.T, w *oltp, db driver.Driver, at string) {
	t.Helper()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	log := &cancelOn{at: at, cancel: cancel}
	err := w.Prepare(ctx, workload.PrepareEnv{Driver: db, Threads: 2, Rand: testFactory(t, 7), Replace: true, Log: log, Progress: workload.NewProgress(0)})
	if err == nil {
		t.Fatalf("prepare cancelled at %q finished:\n%s", at, log.String())
	}
}

// hasLoadTable reports whether the mark table exists.
func hasLoadTable(t *testing.T, c driver.Conn, d driver.Dialect) bool {
	t.Helper()
	present, err := workload.ListTables(testCtx(t), c, d)
	if err != nil {
		t.Fatal(err)
	}
	return present[loadTable]
}

// TestInterruptedPrepareIsRefused interrupts a prepare of 2 tables on each
// target, once before any row is loaded and once while the indexes are
// built: every table there is marked, Inspect (run, a suite's cells) refuses
// them naming the command that loads them again, and Matches (a suite's
// reuse) does not take them. A prepare that completes leaves no mark table;
// cleanup removes the mark of an interrupted one. A table emptied or missing
// its index without a mark (as sysbench may leave it) is not reused either,
// though a run takes it with a warning.
func TestInterruptedPrepareIsRefused(t *testing.T) {
	for kindName, cfg := range testdb.All(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, cfg)
			w := parse(t, readWrite, prepareArgs...)
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			dropAtEnd(t, w, db)
			conn := connect(t, db)
			ctx := testCtx(t)
			refused := func(t *testing.T, stage string) {
				t.Helper()
				if !hasLoadTable(t, conn, db.Dialect()) {
					t.Errorf("%s: no %s table", stage, loadTable)
				}
				if m, err := w.Missing(ctx, conn, db.Dialect()); err != nil || !m.None() {
					t.Fatalf("%s: missing %v %v; want the tables created", stage, m, err)
				}
				_, err := w.Inspect(ctx, conn, db.Dialect())
				if err == nil {
					t.Fatalf("%s: Inspect accepted the tables of an interrupted prepare", stage)
				}
				for _, want := range []string{"did not finish", loadTable, "fairbench prepare oltp_read_write --tables=2 --table-size=1000 --replace"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: Inspect error lacks %q: %v", stage, want, err)
					}
				}
				ok, why, err := w.Matches(ctx, conn, db.Dialect())
				if err != nil || ok || !strings.Contains(why, "did not finish") {
					t.Errorf("%s: Matches = %v %q %v; want not reused, saying the load did not finish", stage, ok, why, err)
				}
			}

			interruptedPrepare(t, w, db, "Inserting 1000 records into 'sbtest2'")
			refused(t, "interrupted before loading")
			if err := w.Cleanup(ctx, db, &syncbuf.Buffer{}); err != nil {
				t.Fatal(err)
			}
			if hasLoadTable(t, conn, db.Dialect()) {
				t.Errorf("cleanup left %s", loadTable)
			}

			interruptedPrepare(t, w, db, "Creating a secondary index on")
			refused(t, "interrupted while indexing")

			if _, _, err := prepareWith(t, w, db, 2, true); err != nil {
				t.Fatalf("prepare --replace: %v", err)
			}
			if hasLoadTable(t, conn, db.Dialect()) {
				t.Errorf("a complete prepare left %s", loadTable)
			}
			rep, err := w.Inspect(ctx, conn, db.Dialect())
			if err != nil || len(rep.Warnings) != 0 {
				t.Fatalf("Inspect after a complete prepare: %v %q", err, rep.Warnings)
			}
			if ok, why, err := w.Matches(ctx, conn, db.Dialect()); !ok || err != nil {
				t.Fatalf("Matches after a complete prepare: %v %q %v", ok, why, err)
			}

			// Without a mark (as sysbench leaves its tables): the second table's
			// index dropped, then its rows.
			drop := "DROP INDEX k_2"
			if kindName == driver.KindMySQL {
				drop += " ON sbtest2"
			}
			if _, err := conn.Exec(ctx, drop); err != nil {
				t.Fatal(err)
			}
			rep, err = w.Inspect(ctx, conn, db.Dialect())
			if err != nil || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "--create-secondary is on, but sbtest2 lacks the secondary index on k") ||
				len(rep.Checks) != 2 || rep.Checks[1].Option != "create-secondary" || rep.Checks[1].Found != "off in 1 of 2 tables" {
				t.Errorf("Inspect without k_2: %v warnings %q checks %+v", err, rep.Warnings, rep.Checks)
			}
			if ok, why, err := w.Matches(ctx, conn, db.Dialect()); ok || err != nil || !strings.Contains(why, "sbtest2 lacks") {
				t.Errorf("Matches without k_2 = %v %q %v; want not reused", ok, why, err)
			}
			if _, err := conn.Exec(ctx, "DELETE FROM sbtest2"); err != nil {
				t.Fatal(err)
			}
			if ok, why, err := w.Matches(ctx, conn, db.Dialect()); ok || err != nil || !strings.Contains(why, "largest id of sbtest2 is 0, not 1000") {
				t.Errorf("Matches with sbtest2 empty = %v %q %v; want not reused", ok, why, err)
			}
		})
	}
}

// TestAbsentTablesIsBounded: a hundred million tables asked for, two there:
// the count is exact, a few are named, and the work does not grow with the
// count asked for.
func TestAbsentTablesIsBounded(t *testing.T) {
	present := map[string]bool{"sbtest1": true, "sbtest2": true, "sbtest01": true, "other": true, loadTable: true, "sbtest200000000": true}
	a := absentTables(present, 100_000_000)
	if a.Count != 99_999_998 || len(a.First) != 5 || a.First[0] != "sbtest3" {
		t.Fatalf("absent %+v", a)
	}
	want := "tables sbtest1…sbtest100000000: 99,999,998 missing; first: sbtest3, sbtest4, sbtest5, sbtest6, sbtest7, …"
	if s := a.String(); s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	if s := absentTables(present, 4).String(); s != "table(s) sbtest3, sbtest4" {
		t.Errorf("two missing: %q", s)
	}
	if a := absentTables(present, 2); !a.None() {
		t.Errorf("none missing: %+v", a)
	}
}

// TestReloadCommandKeepsTheSchema: the command a refusal gives loads the
// schema the options describe, not the defaults.
func TestReloadCommandKeepsTheSchema(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tables=3", "--table-size=500"}, "fairbench prepare oltp_read_write --tables=3 --table-size=500 --replace"},
		{[]string{"--tables=1", "--create-secondary=off", "--auto-inc=off"}, "fairbench prepare oltp_read_write --tables=1 --table-size=10000 --auto-inc=off --create-secondary=off --replace"},
	} {
		if got := parse(t, readWrite, tc.args...).reloadCommand(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}
