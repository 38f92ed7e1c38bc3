package sqlite

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// BenchmarkPointSelect measures Stmt.Query of sysbench's point select; run with
// -benchmem to see allocs/op.
func BenchmarkPointSelect(b *testing.B) {
	drivertest.BenchPointSelect(b, newDriver, sqliteTarget(b, true))
}
