package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// benchRows is the size of the table the statement benchmarks read.
const benchRows = 10000

// BenchmarkPointSelect measures Stmt.Query of sysbench's point select as the
// runner calls it: one long-lived context, one boxed int64 argument per call.
func BenchmarkPointSelect(b *testing.B) {
	for _, mode := range []struct {
		name     string
		prepared bool
	}{{"prepared", true}, {"unprepared", false}} {
		b.Run(mode.name, func(b *testing.B) {
			cfg := freshDB(b, mode.prepared)
			c := connectTo(b, cfg)
			createAndLoad(b, c, "t", benchRows)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stmt, err := c.Prepare(ctx, "SELECT c FROM t WHERE id=?")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := selfCPU()
			for i := 0; i < b.N; i++ {
				n, err := stmt.Query(ctx, int64(i%benchRows+1))
				if err != nil || n != 1 {
					b.Fatalf("Query: %d rows, %v", n, err)
				}
			}
			b.ReportMetric(float64((selfCPU()-cpu0).Nanoseconds())/float64(b.N), "client-cpu-ns/op")
		})
	}
}

// BenchmarkIndexUpdate measures Stmt.Exec of sysbench's index update.
func BenchmarkIndexUpdate(b *testing.B) {
	drivertest.BenchIndexUpdate(b, New, freshDB(b, true))
}

// BenchmarkBulkInsert loads 200k sysbench-shaped rows per iteration and
// reports rows/s.
func BenchmarkBulkInsert(b *testing.B) {
	const rows = 200000
	c := connectTo(b, freshDB(b, true))
	ctx := testContext(b)
	var elapsed, cpu, scpu time.Duration
	pid := queryOne(b, c, "SELECT pg_backend_pid()")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, stmt := range []string{(Dialect{}).DropTable("t"), (Dialect{}).CreateTable(sbtest("t"))[0]} {
			if _, err := c.Exec(ctx, stmt); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start, c0, s0 := time.Now(), selfCPU(), procCPU(pid)
		n, err := c.BulkInsert(ctx, "t", sbColumns, newSBRows(rows))
		elapsed += time.Since(start)
		cpu += selfCPU() - c0
		scpu += procCPU(pid) - s0
		if err != nil || n != rows {
			b.Fatalf("BulkInsert: %d, %v", n, err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows*b.N), "client-cpu-ns/row")
	b.ReportMetric(float64(scpu.Nanoseconds())/float64(rows*b.N), "server-cpu-ns/row")
}
