package pgbench

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// dataFingerprint summarises the data set: per table its rows, the sums of its
// ids and balances and its non-NULL fillers, and the rows whose bid is not
// the one pgbench derives from the id.
func dataFingerprint(t *testing.T, c driver.Conn, d driver.Dialect) map[string]string {
	t.Helper()
	qs := map[string]string{
		Branches:       "SELECT count(*), sum(bid), sum(bbalance), count(filler) FROM " + Branches,
		Tellers:        "SELECT count(*), sum(tid), sum(bid), sum(tbalance), count(filler) FROM " + Tellers,
		Accounts:       "SELECT count(*), sum(aid), sum(bid), sum(abalance), count(filler) FROM " + Accounts,
		History:        "SELECT count(*) FROM " + History,
		"teller bids":  "SELECT count(*) FROM " + Tellers + " WHERE bid <> " + d.IntDiv("(tid - 1)", "10") + " + 1",
		"account bids": "SELECT count(*) FROM " + Accounts + " WHERE bid <> " + d.IntDiv("(aid - 1)", "100000") + " + 1",
	}
	out := map[string]string{}
	for name, q := range qs {
		out[name] = strings.Join(queryRows(t, c, q)[0], " ")
	}
	return out
}

// TestInitDefaultSteps initializes scale 1 with pgbench's default steps on
// every target and checks the rows, the balances, the ids' mapping, the
// primary keys, the log and Check's scale; then again with server-side
// generation (dtGvp), which must give the same data.
func TestInitDefaultSteps(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			db := openInitTarget(t, cfg)
			d := db.Dialect()
			log, tm := mustInit(t, db, DefaultInitOptions())
			c := connectInit(t, db)
			fp := dataFingerprint(t, c, d)
			want := map[string]string{
				Branches:       "1 1 0 0",      // filler NULL, as pgbench leaves it
				Tellers:        "10 55 10 0 0", // tid 1..10, all of branch 1
				Accounts:       "100000 5000050000 100000 0 100000",
				History:        "0",
				"teller bids":  "0",
				"account bids": "0",
			}
			for k, w := range want {
				if fp[k] != w {
					t.Errorf("%s: got %q, want %q", k, fp[k], w)
				}
			}
			idx, err := workload.ListIndexes(initTestCtx(t), c, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range primaryKeys("") {
				name := k.index.Name
				if d.Name() == "mysql" {
					name = "PRIMARY"
				}
				if !idx[workload.IndexKey(k.table, name)] {
					t.Errorf("no primary key %s on %s; indexes: %v", name, k.table, idx)
				}
			}
			for _, line := range []string{"dropping old tables...", "creating tables...", "generating data (client-side)...",
				"100000 of 100000 tuples (100%) done (elapsed ", "vacuuming...", "creating primary keys..."} {
				if !strings.Contains(log, line) {
					t.Errorf("log lacks %q:\n%s", line, log)
				}
			}
			done := regexp.MustCompile(`(?m)^done in \d+\.\d\d s \(drop tables \d+\.\d\d s, create tables \d+\.\d\d s, client-side generate \d+\.\d\d s, vacuum \d+\.\d\d s, primary keys \d+\.\d\d s\)\.$`)
			if !done.MatchString(log) {
				t.Errorf("no pgbench-like final line in:\n%s", log)
			}
			if got := string(stepLetters(tm)); got != "dtgvp" {
				t.Errorf("timed steps %q, want dtgvp", got)
			}
			if scale, err := Check(initTestCtx(t), c, d); err != nil || scale != 1 {
				t.Errorf("Check = %d, %v; want 1", scale, err)
			}

			opts := DefaultInitOptions()
			opts.Steps = "dtGvp"
			log, _ = mustInit(t, db, opts)
			if !strings.Contains(log, "generating data (server-side)...") || !strings.Contains(log, "server-side generate ") {
				t.Errorf("server-side log:\n%s", log)
			}
			if got := dataFingerprint(t, c, d); fmt.Sprint(got) != fmt.Sprint(fp) {
				t.Errorf("server-side data differs from client-side:\n got %v\nwant %v", got, fp)
			}
		})
	}
}

func stepLetters(tm Timings) []byte {
	var b []byte
	for _, s := range tm.Steps {
		b = append(b, s.Step)
	}
	return b
}

// TestCheckMissingAndEmpty: Check names the missing tables and says what to
// run; an empty pgbench_branches is an error too.
func TestCheckMissingAndEmpty(t *testing.T) {
	db := openInitTarget(t, testdb.SQLite(t))
	c := connectInit(t, db)
	_, err := Check(initTestCtx(t), c, db.Dialect())
	if !errors.Is(err, driver.ErrTableMissing) || !strings.Contains(err.Error(), "fairbench pgbench -i -s N") ||
		!strings.Contains(err.Error(), Accounts) {
		t.Errorf("Check on an empty database: %v", err)
	}
	opts := DefaultInitOptions()
	opts.Steps = "dt"
	mustInit(t, db, opts)
	if _, err := Check(initTestCtx(t), c, db.Dialect()); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Check on empty tables: %v", err)
	}
	if err := Drop(initTestCtx(t), c, db.Dialect()); err != nil {
		t.Fatal(err)
	}
	present, err := workload.ListTables(initTestCtx(t), c, db.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	if len(present) != 0 {
		t.Errorf("tables left after Drop: %v", present)
	}
}

// TestForeignKeys: step f adds pgbench's five constraints on PostgreSQL and
// MariaDB.
func TestForeignKeys(t *testing.T) {
	for kind, cfg := range map[string]func(testing.TB) driver.Config{driver.KindPgSQL: testdb.PgSQL, driver.KindMySQL: testdb.MySQL} {
		t.Run(kind, func(t *testing.T) {
			db := openInitTarget(t, cfg(t))
			opts := DefaultInitOptions()
			opts.ForeignKeys = true
			log, tm := mustInit(t, db, opts)
			if !strings.Contains(log, "creating foreign keys...") || string(stepLetters(tm)) != "dtgvpf" {
				t.Errorf("steps %q, log:\n%s", stepLetters(tm), log)
			}
			c := connectInit(t, db)
			schema := "current_schema()"
			if db.Dialect().Name() == "mysql" {
				schema = "DATABASE()"
			}
			rows := queryRows(t, c, "SELECT constraint_name FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY'"+
				" AND table_schema = "+schema+" ORDER BY constraint_name")
			var got []string
			for _, r := range rows {
				got = append(got, r[0])
			}
			want := "pgbench_accounts_bid_fkey pgbench_history_aid_fkey pgbench_history_bid_fkey pgbench_history_tid_fkey pgbench_tellers_bid_fkey"
			if strings.Join(got, " ") != want {
				t.Errorf("foreign keys %v, want %s", got, want)
			}
			// Generating again (truncating tables that refer to each other)
			// works with the constraints in place, and so does dropping.
			for _, steps := range []string{"g", "G", "dtgvpf"} {
				again := DefaultInitOptions()
				again.Steps = steps
				mustInit(t, db, again)
				if n := queryOne(t, c, "SELECT count(*) FROM "+Accounts); n != "100000" {
					t.Errorf("-I %s: %s accounts", steps, n)
				}
			}
		})
	}
}

// TestPostgreSQLStorage: fillfactor, unlogged tables and both partition
// methods as pgbench makes them.
func TestPostgreSQLStorage(t *testing.T) {
	db := openInitTarget(t, testdb.PgSQL(t))
	c := connectInit(t, db)
	opts := DefaultInitOptions()
	opts.FillFactor = 90
	opts.Unlogged = true
	mustInit(t, db, opts)
	for _, tb := range []string{Branches, Tellers, Accounts} {
		if got := queryOne(t, c, "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = '"+tb+"'"); got != "fillfactor=90" {
			t.Errorf("%s reloptions %q, want fillfactor=90", tb, got)
		}
	}
	if got := queryOne(t, c, "SELECT string_agg(DISTINCT relpersistence::text, ',') FROM pg_class WHERE relname LIKE 'pgbench_%' AND relkind = 'r'"); got != "u" {
		t.Errorf("relpersistence %q, want u (unlogged)", got)
	}
	for _, tc := range []struct {
		method string
		parts  int
		strat  string
	}{{"range", 3, "r"}, {"hash", 2, "h"}, {"", 4, "r"}} {
		opts := DefaultInitOptions()
		opts.Partitions, opts.PartitionMethod = tc.parts, tc.method
		log, _ := mustInit(t, db, opts)
		if !strings.Contains(log, fmt.Sprintf("creating %d partitions...", tc.parts)) {
			t.Errorf("%s: log:\n%s", tc.method, log)
		}
		got := queryOne(t, c, "SELECT p.partstrat::text || ' ' || count(i.inhrelid) FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid"+
			" LEFT JOIN pg_inherits i ON i.inhparent = c.oid WHERE c.relname = 'pgbench_accounts' GROUP BY p.partstrat")
		if want := fmt.Sprintf("%s %d", tc.strat, tc.parts); got != want {
			t.Errorf("%s: partitioning %q, want %q", tc.method, got, want)
		}
		// Every partition holds rows, and together all of them.
		rows := queryRows(t, c, "SELECT tableoid::regclass::text, count(*) FROM pgbench_accounts GROUP BY 1 ORDER BY 1")
		total := 0
		for _, r := range rows {
			var n int
			fmt.Sscan(r[1], &n)
			total += n
		}
		if len(rows) != tc.parts || total != AccountsPerScale {
			t.Errorf("%s: rows per partition %v", tc.method, rows)
		}
	}
}

// TestMariaDBPartitions: range and hash partitions of pgbench_accounts on MariaDB.
func TestMariaDBPartitions(t *testing.T) {
	db := openInitTarget(t, testdb.MySQL(t))
	c := connectInit(t, db)
	for _, tc := range []struct {
		method string
		parts  int
	}{{"range", 3}, {"hash", 2}} {
		opts := DefaultInitOptions()
		opts.Partitions, opts.PartitionMethod = tc.parts, tc.method
		mustInit(t, db, opts)
		rows := queryRows(t, c, "SELECT partition_method, partition_name, table_rows FROM information_schema.partitions"+
			" WHERE table_schema = DATABASE() AND table_name = 'pgbench_accounts' ORDER BY partition_ordinal_position")
		if len(rows) != tc.parts || !strings.EqualFold(rows[0][0], tc.method) || rows[0][1] != "pgbench_accounts_1" {
			t.Errorf("%s: partitions %v", tc.method, rows)
		}
		if got := queryOne(t, c, "SELECT count(*) FROM pgbench_accounts"); got != "100000" {
			t.Errorf("%s: %s accounts", tc.method, got)
		}
	}
}

// TestProgressMovesDuringLoad: while the accounts load, the counter shows a
// figure between nothing and all, read at the moment the log gets pgbench's
// first progress line (so that no timing is involved).
func TestProgressMovesDuringLoad(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			db := openInitTarget(t, cfg)
			prog := progress.NewCounter(0)
			w := &peekWriter{prog: prog}
			opts := DefaultInitOptions()
			opts.Scale = 3
			if _, err := Init(initTestCtx(t), db, opts, w, prog); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(w.seen) != "[100000 200000 300000]" {
				t.Errorf("counter at the progress lines: %v, want [100000 200000 300000]", w.seen)
			}
			if done, total, _ := prog.Snapshot(); done != 3*AccountsPerScale || total != 3*AccountsPerScale {
				t.Errorf("counter ended at %d of %d", done, total)
			}
		})
	}
}

// peekWriter records the counter's figure whenever a progress line is logged.
type peekWriter struct {
	prog   *progress.Counter
	seen   []int64
	cancel context.CancelFunc
}

func (w *peekWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), " tuples (") {
		w.seen = append(w.seen, w.prog.Done())
		if w.cancel != nil {
			w.cancel()
		}
	}
	return len(p), nil
}

// TestCancelStopsLoad: a context cancelled during the load ends Init with
// the context's error, before the load completes.
func TestCancelStopsLoad(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			db := openInitTarget(t, cfg)
			ctx, cancel := context.WithCancel(initTestCtx(t))
			defer cancel()
			w := &peekWriter{prog: progress.NewCounter(0), cancel: cancel}
			opts := DefaultInitOptions()
			opts.Scale = 3
			_, err := Init(ctx, db, opts, w, w.prog)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Init after cancel: %v, want context.Canceled", err)
			}
			if len(w.seen) != 1 {
				t.Errorf("progress lines after the cancel: %v", w.seen)
			}
			c := connectInit(t, db)
			if n := queryOne(t, c, "SELECT count(*) FROM pgbench_accounts"); n == "300000" {
				t.Errorf("the load completed despite the cancel")
			}
		})
	}
}

// TestQuietLogsAtTheEnd: with Quiet, a load shorter than 5 s logs only its
// last line (pgbench -q).
func TestQuietLogsAtTheEnd(t *testing.T) {
	db := openInitTarget(t, testdb.SQLite(t))
	opts := DefaultInitOptions()
	opts.Scale, opts.Quiet = 2, true
	start := time.Now()
	log, _ := mustInit(t, db, opts)
	if !strings.Contains(log, "200000 of 200000 tuples (100%) done") {
		t.Errorf("no final progress line:\n%s", log)
	}
	if time.Since(start) < quietEvery && strings.Contains(log, "100000 of 200000") {
		t.Errorf("quiet load logged every 100000 rows:\n%s", log)
	}
}
