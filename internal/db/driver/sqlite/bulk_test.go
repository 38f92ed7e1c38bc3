package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

func TestBulkInsert10k(t *testing.T) {
	d := openDriver(t, sqliteTarget(t, true))
	c := drivertest.Connect(t, d, 0)
	drivertest.BulkInsert10k(t, d, c, "sbtest1") // 9 full batches of 1024 rows and a short one
	// AUTOINCREMENT continues after the explicit ids.
	if _, err := c.Exec(context.Background(), "INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'c', 'p')"); err != nil {
		t.Fatal(err)
	}
	if rows, err := c.QueryStrings(context.Background(), "SELECT MAX(id) FROM sbtest1"); err != nil || rows[0][0] != "10001" {
		t.Errorf("next generated id = %q, %v; want 10001", rows, err)
	}
}

func TestBulkInsertRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, sqliteTarget(t, true))
	c := drivertest.Connect(t, d, 0)
	drivertest.LoadSbtest(t, d, c, "sbtest1", 10)
	when := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	bad := drivertest.NewFixedRows([][]any{{int64(11), 1, "c", []byte("pad")}, {int64(12), 1, "c", when}, {int64(1), 1, "dup", "pad"}})
	_, err := c.BulkInsert(ctx, "sbtest1", drivertest.SbtestColumns(), bad)
	if got := d.Describe(err); got.Code != "SQLITE_CONSTRAINT" {
		t.Fatalf("BulkInsert with a duplicate id: %v (%+v), want SQLITE_CONSTRAINT", err, got)
	}
	if got := drivertest.Count(t, c, "sbtest1"); got != 10 {
		t.Errorf("%d rows after the failed load, want the 10 from before", got)
	}
	good := drivertest.NewFixedRows([][]any{{int64(11), 1, "c", []byte("pad")}, {int64(12), 1, "c", when}})
	if n, err := c.BulkInsert(ctx, "sbtest1", drivertest.SbtestColumns(), good); err != nil || n != 2 {
		t.Fatalf("BulkInsert after the failed one = %d, %v", n, err)
	}
	rows, err := c.QueryStrings(ctx, "SELECT pad FROM sbtest1 WHERE id IN (11, 12) ORDER BY id")
	if err != nil || fmt.Sprint(rows) != "[[pad] [2024-02-29 13:14:15]]" {
		t.Errorf("loaded values = %q, %v", rows, err)
	}
}

// BenchmarkBulkInsert loads 200k sysbench rows per iteration and reports rows/s.
func BenchmarkBulkInsert(b *testing.B) {
	d := openDriver(b, sqliteTarget(b, true))
	drivertest.BenchBulkInsert(b, d, drivertest.Connect(b, d, 0))
}
