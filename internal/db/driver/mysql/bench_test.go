package mysql

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// BenchmarkPointSelect measures Stmt.Query of sysbench's point select on a
// live connection; run with -benchmem to see allocs/op.
func BenchmarkPointSelect(b *testing.B) {
	drivertest.BenchPointSelect(b, newDriver, mysqlTarget(b, true))
}

// BenchmarkRangeSelect compares Stmt.Query and Stmt.Drain on a 100-row range.
func BenchmarkRangeSelect(b *testing.B) {
	drivertest.BenchRangeSelect(b, newDriver, mysqlTarget(b, true))
}

// BenchmarkIndexUpdate measures Stmt.Exec of sysbench's index update.
func BenchmarkIndexUpdate(b *testing.B) {
	drivertest.BenchIndexUpdate(b, newDriver, mysqlTarget(b, true))
}
