package postgres

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

type strRows struct{ *sbRows; v []any }

func (r strRows) Values() ([]any, error) {
	r.v[0], r.v[1], r.v[2], r.v[3] = r.sbRows.values[0], r.sbRows.values[1], string(r.c), string(r.pad)
	return r.v, nil
}

func BenchmarkZZBinaryCopy(b *testing.B) {
	const rows = 200000
	cfg := freshDB(b, true)
	ctx := testContext(b)
	pc, err := pgx.Connect(ctx, fmt.Sprintf("host=127.0.0.1 user=postgres dbname=%s", cfg.Database))
	if err != nil {
		b.Fatal(err)
	}
	defer pc.Close(ctx)
	var elapsed, cpu, scpu time.Duration
	pid := strconv.Itoa(int(pc.PgConn().PID()))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, stmt := range []string{(Dialect{}).DropTable("t"), (Dialect{}).CreateTable(sbtest("t"))[0]} {
			if _, err := pc.Exec(ctx, stmt); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start, c0, s0 := time.Now(), selfCPU(), procCPU(pid)
		n, err := pc.CopyFrom(ctx, pgx.Identifier{"t"}, sbColumns, strRows{newSBRows(rows), make([]any, 4)})
		elapsed += time.Since(start)
		cpu += selfCPU() - c0
		scpu += procCPU(pid) - s0
		if err != nil || n != rows {
			b.Fatalf("CopyFrom: %d, %v", n, err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows*b.N), "client-cpu-ns/row")
	b.ReportMetric(float64(scpu.Nanoseconds())/float64(rows*b.N), "server-cpu-ns/row")
}
