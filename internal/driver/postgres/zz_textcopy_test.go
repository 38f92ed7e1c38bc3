package postgres

import (
	"context"
	"testing"
	"time"
)

func BenchmarkZZTextCopy(b *testing.B) {
	const rows = 200000
	c := connectTo(b, freshDB(b, true)).(*Conn)
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
		r := &copyReader{rows: newSBRows(rows), columns: 4, encode: appendTextRow}
		tag, err := c.pg.CopyFrom(context.Background(), r, "COPY t (id, k, c, pad) FROM STDIN")
		elapsed += time.Since(start)
		cpu += selfCPU() - c0
		scpu += procCPU(pid) - s0
		if err != nil || tag.RowsAffected() != rows {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows*b.N), "client-cpu-ns/row")
	b.ReportMetric(float64(scpu.Nanoseconds())/float64(rows*b.N), "server-cpu-ns/row")
}
