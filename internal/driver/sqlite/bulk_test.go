package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

func TestBulkInsert10k(t *testing.T) {
	d := openDriver(t, sqliteTarget(t, true))
	c := connect(t, d, 0)
	loadSbtest(t, d, c, "sbtest1", 10_000) // 9 full batches of 1024 rows and a short one
	if got := count(t, c, "sbtest1"); got != 10_000 {
		t.Fatalf("%d rows, want 10000", got)
	}
	rows, err := c.QueryStrings(context.Background(), "SELECT MIN(id), MAX(id), MIN(LENGTH(c)), MIN(LENGTH(pad)) FROM sbtest1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "10000", "119", "59"}; fmt.Sprint(rows[0]) != fmt.Sprint(want) {
		t.Errorf("id range and lengths = %v, want %v", rows[0], want)
	}
	// AUTOINCREMENT continues after the explicit ids.
	if _, err := c.Exec(context.Background(), "INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'c', 'p')"); err != nil {
		t.Fatal(err)
	}
	if rows, err := c.QueryStrings(context.Background(), "SELECT MAX(id) FROM sbtest1"); err != nil || rows[0][0] != "10001" {
		t.Errorf("next generated id = %q, %v; want 10001", rows, err)
	}
}

// fixedRows is a RowSource over literal rows.
type fixedRows struct {
	rows [][]any
	i    int
}

func (f *fixedRows) Next() bool             { f.i++; return f.i <= len(f.rows) }
func (f *fixedRows) Values() ([]any, error) { return f.rows[f.i-1], nil }
func (f *fixedRows) Err() error             { return nil }

func TestBulkInsertRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, sqliteTarget(t, true))
	c := connect(t, d, 0)
	loadSbtest(t, d, c, "sbtest1", 10)
	when := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	bad := &fixedRows{rows: [][]any{{int64(11), 1, "c", []byte("pad")}, {int64(12), 1, "c", when}, {int64(1), 1, "dup", "pad"}}}
	_, err := c.BulkInsert(ctx, "sbtest1", sbColumns, bad)
	if got := d.Describe(err); got.Code != "SQLITE_CONSTRAINT" {
		t.Fatalf("BulkInsert with a duplicate id: %v (%+v), want SQLITE_CONSTRAINT", err, got)
	}
	if got := count(t, c, "sbtest1"); got != 10 {
		t.Errorf("%d rows after the failed load, want the 10 from before", got)
	}
	good := &fixedRows{rows: [][]any{{int64(11), 1, "c", []byte("pad")}, {int64(12), 1, "c", when}}}
	if n, err := c.BulkInsert(ctx, "sbtest1", sbColumns, good); err != nil || n != 2 {
		t.Fatalf("BulkInsert after the failed one = %d, %v", n, err)
	}
	rows, err := c.QueryStrings(ctx, "SELECT pad FROM sbtest1 WHERE id IN (11, 12) ORDER BY id")
	if err != nil || fmt.Sprint(rows) != "[[pad] [2024-02-29 13:14:15]]" {
		t.Errorf("loaded values = %q, %v", rows, err)
	}
}

// BenchmarkBulkInsert loads 200k sysbench rows per iteration and reports rows/s.
func BenchmarkBulkInsert(b *testing.B) {
	const rows = 200_000
	d := openDriver(b, sqliteTarget(b, true))
	c := connect(b, d, 0)
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		table := fmt.Sprintf("bulk%d", i)
		b.StopTimer()
		for _, q := range d.Dialect().CreateTable(sbtest(table)) {
			if _, err := c.Exec(context.Background(), q); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		n, err := c.BulkInsert(context.Background(), table, sbColumns, newSBRows(rows))
		elapsed += time.Since(start)
		if err != nil || n != rows {
			b.Fatalf("BulkInsert = %d, %v", n, err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
}

var _ driver.RowSource = (*fixedRows)(nil)
