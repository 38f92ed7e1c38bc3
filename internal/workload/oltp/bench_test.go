package oltp

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
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

// TestEventsAllocateNothing holds the workload's side of the measured path to
// no allocation per event: the ids and k values it binds are boxed from a
// block (valuearena), not one 8-byte allocation per statement. It runs on
// the dry-run driver, whose statements allocate nothing themselves.
func TestEventsAllocateNothing(t *testing.T) {
	db := openTarget(t, driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{1}, DryRun: true})
	ctx := testCtx(t)
	for _, k := range []kind{pointSelect, readOnly, readWrite, writeOnly, updateIndex, updateNonIndex, deleteRows} {
		t.Run(k.name(), func(t *testing.T) {
			w := parse(t, k, "--table-size=100000", "--tables=2")
			wk, err := w.NewWorker(ctx, connect(t, db), db.Dialect(), testFactory(t, 3).Source(1))
			if err != nil {
				t.Fatal(err)
			}
			defer wk.Close()
			var c workload.Counts
			allocs := testing.AllocsPerRun(2000, func() {
				if err := wk.Event(ctx, &c); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per event, want 0", allocs)
			}
			if c.Reads+c.Writes+c.Others == 0 {
				t.Fatal("no statement ran: the check above proves nothing")
			}
		})
	}
}
