package tpcc

import (
	"context"
	"io"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestPartitionedSchema creates the tables with --parts=4 on every target
// (SQLite ignores partitioning) and drops them again.
func TestPartitionedSchema(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		ctx := context.Background()
		drv := openDriver(t, cfg)
		c := connect(t, drv)
		w := newWorkload(t, "--parts=4")
		for _, def := range tableDefs(w.opts.Parts) {
			if err := createTable(ctx, c, drv.Dialect(), def, io.Discard); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
		}
		if missing, err := w.Missing(ctx, c, drv.Dialect()); err != nil || !missing.None() {
			t.Errorf("%s: Missing = %v (%v) after creating the partitioned tables", kind, missing, err)
		}
		if err := dropTables(ctx, c, drv.Dialect(), nil); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if missing, _ := w.Missing(ctx, c, drv.Dialect()); missing.Count != len(allTables()) || missing.First[0] != allTables()[0] {
			t.Errorf("%s: Missing = %v after dropping", kind, missing)
		}
	}
}

func TestTableDefsFollowTheSpec(t *testing.T) {
	cols := map[string]int{tWarehouse: 9, tDistrict: 11, tCustomer: 21, tHistory: 8, tNewOrder: 3, tOrders: 8, tOrderLine: 10, tItem: 5, tStock: 17}
	for _, def := range tableDefs(2) {
		if def.Name == tMeta {
			continue
		}
		if n := len(def.Columns); n != cols[def.Name] {
			t.Errorf("%s: %d columns, clause 1.3 has %d", def.Name, n, cols[def.Name])
		}
		partitioned := def.PartitionByHash > 1
		if want := def.Name != tItem && def.Name != tHistory; partitioned != want {
			t.Errorf("%s: partitioned %v, want %v", def.Name, partitioned, want)
		}
	}
}
