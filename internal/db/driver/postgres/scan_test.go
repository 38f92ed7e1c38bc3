package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// TestQueryRowAndQueryRows runs the drivertest.QueryRowScanning checks with
// prepared and with unprepared statements.
func TestQueryRowAndQueryRows(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run(map[bool]string{true: "prepared", false: "unprepared"}[prepared], func(t *testing.T) {
			d := openDriver(t, freshDB(t, prepared))
			drivertest.QueryRowScanning(t, d, drivertest.Connect(t, d, 0))
		})
	}
}

// Scanning text-format numbers into *int64 and *float64 allocates nothing per row.
func TestQueryRowsAllocatesNothingPerRow(t *testing.T) {
	d := openDriver(t, freshDB(t, true))
	c := drivertest.Connect(t, d, 0)
	ctx := context.Background()
	drivertest.LoadScanTable(t, d, c, time.Now().UTC().Truncate(time.Second))
	st, err := c.Prepare(ctx, "SELECT id, big, amount FROM scan_t WHERE id >= ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var id, big int64
	var amount float64
	dest := []any{&id, &big, &amount}
	fn := func() error { return nil }
	args := []any{int64(100)}
	allocs := testing.AllocsPerRun(5, func() {
		if n, err := st.QueryRows(ctx, dest, fn, args...); err != nil || n != drivertest.ScanRowsLoaded {
			t.Fatalf("QueryRows = %d, %v", n, err)
		}
	})
	if allocs > 20 {
		t.Fatalf("QueryRows of %d rows made %.0f allocations; want a few per call, none per row", drivertest.ScanRowsLoaded, allocs)
	}
}
