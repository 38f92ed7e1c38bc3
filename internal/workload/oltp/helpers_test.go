package oltp

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/workload"
)

// testCtx returns a context that ends with the test (or after a minute).
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openTarget opens the driver of cfg, closed when the test ends.
func openTarget(t testing.TB, cfg driver.Config) driver.Driver {
	t.Helper()
	d, err := open.Driver(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// connect opens connection 0 of db, closed when the test ends.
func connect(t testing.TB, db driver.Driver) driver.Conn {
	t.Helper()
	c, err := db.Connect(testCtx(t), 0)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// prepareWith runs w.Prepare with threads loaders and a fixed seed, returning
// the log and the rows the progress counted.
func prepareWith(t testing.TB, w *oltp, db driver.Driver, threads int, replace bool) (string, int64, error) {
	t.Helper()
	var log bytes.Buffer
	prog := workload.NewProgress(0)
	err := w.Prepare(testCtx(t), workload.PrepareEnv{
		Driver: db, Threads: threads, Rand: testFactory(t, 7), Replace: replace, Log: &log, Progress: prog,
	})
	done, _, _ := prog.Snapshot()
	return log.String(), done, err
}

// queryInts runs a query returning one row of integers.
func queryInts(t testing.TB, c driver.Conn, q string) []int64 {
	t.Helper()
	rows, err := c.QueryStrings(testCtx(t), q)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%s: %d rows, %v", q, len(rows), err)
	}
	out := make([]int64, len(rows[0]))
	for i, s := range rows[0] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: column %d = %q: %v", q, i, s, err)
		}
		out[i] = v
	}
	return out
}

// tableShape is what the data tests compare: row count, id bounds, sum of k.
type tableShape struct{ rows, minID, maxID, sumK int64 }

func shapeOf(t testing.TB, c driver.Conn, table string) tableShape {
	t.Helper()
	v := queryInts(t, c, "SELECT COUNT(*), COALESCE(MIN(id),0), COALESCE(MAX(id),0), COALESCE(SUM(k),0) FROM "+table)
	return tableShape{v[0], v[1], v[2], v[3]}
}

// sampleValues returns c and pad of a few ids (CHAR padding trimmed: PostgreSQL
// returns blank-padded CHAR values).
func sampleValues(t testing.TB, c driver.Conn, table string) []string {
	t.Helper()
	rows, err := c.QueryStrings(testCtx(t), "SELECT c, pad FROM "+table+" WHERE id IN (1, 2, 500, 999, 1000) ORDER BY id")
	if err != nil {
		t.Fatalf("sample %s: %v", table, err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, strings.TrimRight(r[0], " "), strings.TrimRight(r[1], " "))
	}
	return out
}

// indexExists asks the catalogue of kind whether table has an index called name.
func indexExists(t testing.TB, c driver.Conn, kind, table, name string) bool {
	t.Helper()
	var q string
	switch kind {
	case driver.KindMySQL:
		q = "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = '" + table + "' AND index_name = '" + name + "'"
	case driver.KindPgSQL:
		q = "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '" + table + "' AND indexname = '" + name + "'"
	default:
		q = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = '" + table + "' AND name = '" + name + "'"
	}
	return queryInts(t, c, q)[0] > 0
}

// dropAtEnd drops w's tables when the test ends, so that a failed subtest does
// not leave tables behind for the next one.
func dropAtEnd(t testing.TB, w *oltp, db driver.Driver) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := w.Cleanup(ctx, db, io.Discard); err != nil {
			t.Errorf("drop tables at the end: %v", err)
		}
	})
}

// runEvents runs n events on a fresh worker and checks that each one did exactly
// want (when check returns a non-nil expectation for it).
func runEvents(t testing.TB, w *oltp, db driver.Driver, n int, want *workload.Counts) workload.Counts {
	t.Helper()
	ctx := testCtx(t)
	conn := connect(t, db)
	wk, err := w.NewWorker(ctx, conn, db.Dialect(), testFactory(t, 99).Source(1))
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	defer wk.Close()
	var total workload.Counts
	for i := range n {
		var c workload.Counts
		if err := wk.Event(ctx, &c); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if want != nil && c != *want {
			t.Fatalf("event %d counted %+v, want %+v", i, c, *want)
		}
		total.Reads += c.Reads
		total.Writes += c.Writes
		total.Others += c.Others
	}
	return total
}
