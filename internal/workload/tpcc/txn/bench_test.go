package txn

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// BenchmarkTransactions runs each transaction alone on the SQLite fixture, to
// show its client-side allocations per transaction.
func BenchmarkTransactions(b *testing.B) {
	f := loadFixture(b, testdb.SQLite(b))
	ctx := context.Background()
	for kind, name := range Kinds {
		b.Run(name, func(b *testing.B) {
			w := f.worker(b, 1, only(kind), uint64(kind+1))
			refill := f.worker(b, 1, only(NewOrder), 99)
			var c workload.Counts
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if kind == Delivery {
					b.StopTimer() // give every district an order to deliver
					for range 10 {
						if err := refill.Event(ctx, &c); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				if err := w.Event(ctx, &c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
