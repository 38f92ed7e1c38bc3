package oltp

import (
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// prepareArgs are the options of the integration tests: small tables.
var prepareArgs = []string{"--tables=2", "--table-size=1000"}

// TestWorkloadsOnEveryTarget prepares each workload on each target, checks the
// data, runs 200 events with exact per-event counts, and checks the refusal to
// prepare twice, --replace and cleanup.
func TestWorkloadsOnEveryTarget(t *testing.T) {
	type expect struct {
		perEvent *workload.Counts // nil: checked by rowDelta instead
		rowDelta func(total workload.Counts) int64
	}
	same := func(workload.Counts) int64 { return 0 }
	cases := []struct {
		k    kind
		want expect
	}{
		{pointSelect, expect{&workload.Counts{Reads: 1}, same}},
		{readOnly, expect{&workload.Counts{Reads: 14, Others: 2}, same}},
		{readWrite, expect{&workload.Counts{Reads: 14, Writes: 4, Others: 2}, same}},
		{writeOnly, expect{&workload.Counts{Writes: 4, Others: 2}, same}},
		{updateIndex, expect{&workload.Counts{Writes: 1}, same}},
		{updateNonIndex, expect{&workload.Counts{Writes: 1}, same}},
		{insert, expect{&workload.Counts{Writes: 1}, func(workload.Counts) int64 { return 200 }}},
		{deleteRows, expect{nil, func(c workload.Counts) int64 { return -c.Writes }}},
	}
	for kindName, cfg := range testdb.All(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, cfg)
			conn := connect(t, db)
			for _, c := range cases {
				t.Run(c.k.name(), func(t *testing.T) {
					w := parse(t, c.k, prepareArgs...)
					if err := w.Validate(); err != nil {
						t.Fatal(err)
					}
					dropAtEnd(t, w, db)
					log, loaded, err := prepareWith(t, w, db, 2, false)
					if err != nil {
						t.Fatalf("prepare: %v", err)
					}
					if loaded != 2000 {
						t.Errorf("progress counted %d rows, want 2000", loaded)
					}
					for _, line := range []string{"Creating table 'sbtest1'...", "Creating table 'sbtest2'...",
						"Inserting 1000 records into 'sbtest2'", "Creating a secondary index on 'sbtest1'..."} {
						if !strings.Contains(log, line+"\n") {
							t.Errorf("prepare log lacks %q:\n%s", line, log)
						}
					}
					for _, table := range []string{"sbtest1", "sbtest2"} {
						if got := shapeOf(t, conn, table); got.rows != 1000 || got.minID != 1 || got.maxID != 1000 {
							t.Errorf("%s: %+v, want 1000 rows with ids 1..1000", table, got)
						}
						for i, v := range sampleValues(t, conn, table) {
							p := cPattern
							if i%2 == 1 {
								p = padPattern
							}
							if !p.MatchString(v) {
								t.Errorf("%s: value %q does not match %v", table, v, p)
							}
						}
					}
					if !indexExists(t, conn, kindName, "sbtest1", "k_1") || !indexExists(t, conn, kindName, "sbtest2", "k_2") {
						t.Error("secondary indexes k_1/k_2 are missing")
					}
					if m, err := w.Missing(testCtx(t), conn, db.Dialect()); err != nil || !m.None() {
						t.Errorf("Missing after prepare = %v, %v; want none", m, err)
					}

					total := runEvents(t, w, db, 200, c.want.perEvent)
					if c.k == deleteRows && (total.Writes+total.Others != 200 || total.Writes == 0) {
						t.Errorf("counts %+v after 200 events", total)
					}
					rows := shapeOf(t, conn, "sbtest1").rows + shapeOf(t, conn, "sbtest2").rows
					if want := 2000 + c.want.rowDelta(total); rows != want {
						t.Errorf("after 200 events the tables hold %d rows, want %d (counts %+v)", rows, want, total)
					}

					_, _, err = prepareWith(t, w, db, 2, false)
					if err == nil || !strings.Contains(err.Error(), "table sbtest1 already exists") || !strings.Contains(err.Error(), "--replace") {
						t.Errorf("second prepare: error %v, want 'table sbtest1 already exists … --replace'", err)
					}
					if _, _, err := prepareWith(t, w, db, 2, true); err != nil {
						t.Fatalf("prepare with Replace: %v", err)
					}
					if got := shapeOf(t, conn, "sbtest1"); got.rows != 1000 || got.maxID != 1000 {
						t.Errorf("after replace sbtest1 is %+v, want 1000 rows", got)
					}

					var cleanLog strings.Builder
					if err := w.Cleanup(testCtx(t), db, &cleanLog); err != nil {
						t.Fatalf("cleanup: %v", err)
					}
					if !strings.Contains(cleanLog.String(), "Dropping table 'sbtest2'...") {
						t.Errorf("cleanup log: %q", cleanLog.String())
					}
					m, err := w.Missing(testCtx(t), conn, db.Dialect())
					if err != nil || m.Count != 2 || !slices.Equal(m.First, []string{"sbtest1", "sbtest2"}) {
						t.Errorf("Missing after cleanup = %v, %v; want [sbtest1 sbtest2]", m, err)
					}
				})
			}
		})
	}
}

// TestLoadIsIndependentOfThreads loads the same seed with 1 and 3 loaders and
// compares the data.
func TestLoadIsIndependentOfThreads(t *testing.T) {
	for kindName, cfg := range testdb.All(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, cfg)
			conn := connect(t, db)
			w := parse(t, readWrite, prepareArgs...)
			var first []any
			for _, threads := range []int{1, 3} {
				if _, _, err := prepareWith(t, w, db, threads, true); err != nil {
					t.Fatalf("prepare with %d threads: %v", threads, err)
				}
				got := []any{shapeOf(t, conn, "sbtest1"), shapeOf(t, conn, "sbtest2"),
					strings.Join(sampleValues(t, conn, "sbtest1"), ","), strings.Join(sampleValues(t, conn, "sbtest2"), ",")}
				if first == nil {
					first = got
					continue
				}
				if !slices.Equal(first, got) {
					t.Errorf("data differs between 1 and %d loaders:\n%v\n%v", threads, first, got)
				}
			}
		})
	}
}

// TestInsertWithoutAutoInc checks oltp_insert --auto-inc=off: empty tables at
// prepare (as sysbench) and unique client-generated ids.
func TestInsertWithoutAutoInc(t *testing.T) {
	for kindName, cfg := range testdb.All(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, cfg)
			conn := connect(t, db)
			w := parse(t, insert, append([]string{"--auto-inc=off"}, prepareArgs...)...)
			log, loaded, err := prepareWith(t, w, db, 2, false)
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if loaded != 0 || strings.Contains(log, "Inserting") {
				t.Errorf("prepare loaded %d rows (log %q), want empty tables", loaded, log)
			}
			runEvents(t, w, db, 100, &workload.Counts{Writes: 1})
			got := shapeOf(t, conn, "sbtest1").rows + shapeOf(t, conn, "sbtest2").rows
			if got != 100 {
				t.Errorf("tables hold %d rows after 100 inserts, want 100", got)
			}
		})
	}
}

// TestSkipTrxAndSecondary covers --skip-trx (no BEGIN/COMMIT) and --secondary
// (KEY xid instead of PRIMARY KEY, so the table has an index called xid on MySQL).
func TestSkipTrxAndSecondary(t *testing.T) {
	for kindName, cfg := range testdb.All(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, cfg)
			w := parse(t, readWrite, append([]string{"--skip-trx", "--secondary", "--range-selects=off", "--create-secondary=off"}, prepareArgs...)...)
			log, _, err := prepareWith(t, w, db, 2, false)
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if strings.Contains(log, "secondary index") {
				t.Errorf("--create-secondary=off still created an index: %q", log)
			}
			runEvents(t, w, db, 50, &workload.Counts{Reads: 10, Writes: 4})
		})
	}
}
