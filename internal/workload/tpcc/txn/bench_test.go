package txn

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// BenchmarkTransactions runs each transaction alone on the fixture of each
// target, to show its client-side allocations and time per transaction
// (SQLite in-process; MariaDB and PostgreSQL also pay a round trip per
// statement).
func BenchmarkTransactions(b *testing.B) {
	targets := map[string]func(testing.TB) driver.Config{
		driver.KindSQLite: testdb.SQLite, driver.KindMySQL: testdb.MySQL, driver.KindPgSQL: testdb.PgSQL,
	}
	for _, target := range []string{driver.KindSQLite, driver.KindMySQL, driver.KindPgSQL} {
		b.Run(target, func(b *testing.B) {
			f := loadFixture(b, targets[target](b))
			for kind, name := range Kinds {
				b.Run(name, func(b *testing.B) { benchmarkKind(b, f, kind) })
			}
		})
	}
}

// benchmarkKind runs transaction kind b.N times on fixture f.
func benchmarkKind(b *testing.B, f *fixtureDB, kind int) {
	ctx := context.Background()
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
}
