package drivertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// BulkInsert10k loads 10,000 sysbench rows into table through c and checks
// that all of them arrived with ids 1..10000 and full-length c and pad.
func BulkInsert10k(t *testing.T, d driver.Driver, c driver.Conn, table string) {
	t.Helper()
	LoadSbtest(t, d, c, table, 10_000)
	if got := Count(t, c, table); got != 10_000 {
		t.Fatalf("%d rows in %s, want 10000", got, table)
	}
	rows, err := c.QueryStrings(context.Background(), "SELECT MIN(id), MAX(id), MIN(LENGTH(c)), MIN(LENGTH(pad)) FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "10000", "119", "59"}; fmt.Sprint(rows[0]) != fmt.Sprint(want) {
		t.Errorf("id range and lengths = %v, want %v", rows[0], want)
	}
}

// BenchBulkInsert loads 200k sysbench rows through c per iteration, each time
// into a new table that is dropped afterwards, and reports rows/s of the
// loading alone.
func BenchBulkInsert(b *testing.B, d driver.Driver, c driver.Conn) {
	const rows = 200_000
	ctx := context.Background()
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		table := fmt.Sprintf("bulk%d", i)
		b.StopTimer()
		for _, q := range d.Dialect().CreateTable(Sbtest(table)) {
			if _, err := c.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		n, err := c.BulkInsert(ctx, table, SbtestColumns(), NewSBRows(rows))
		elapsed += time.Since(start)
		if err != nil || n != rows {
			b.Fatalf("BulkInsert = %d, %v", n, err)
		}
		b.StopTimer()
		c.Exec(ctx, d.Dialect().DropTable(table))
		b.StartTimer()
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
}
