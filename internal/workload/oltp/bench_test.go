package oltp

import (
	"testing"

	"github.com/fairbench/fairbench/internal/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// BenchmarkEvent runs events on embedded SQLite and reports allocations per
// event (workload and driver together). Tables are prepared once per workload.
func BenchmarkEvent(b *testing.B) {
	for _, k := range []kind{pointSelect, readOnly, readWrite, insert} {
		b.Run(k.name(), func(b *testing.B) {
			db := openTarget(b, testdb.SQLite(b))
			w := parse(b, k, "--table-size=100000")
			if _, _, err := prepareWith(b, w, db, 1, false); err != nil {
				b.Fatalf("prepare: %v", err)
			}
			ctx := testCtx(b)
			wk, err := w.NewWorker(ctx, connect(b, db), db.Dialect(), testFactory(b, 3).Source(1))
			if err != nil {
				b.Fatal(err)
			}
			defer wk.Close()
			var c workload.Counts
			b.ReportAllocs()
			for b.Loop() {
				if err := wk.Event(ctx, &c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.Reads+c.Writes+c.Others)/float64(b.N), "queries/op")
		})
	}
}
