package mysql

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// TestQueryRowAndQueryRows runs the drivertest.QueryRowScanning checks with
// prepared and with unprepared statements.
func TestQueryRowAndQueryRows(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run(map[bool]string{true: "prepared", false: "unprepared"}[prepared], func(t *testing.T) {
			d := openDriver(t, mysqlTarget(t, prepared))
			drivertest.QueryRowScanning(t, d, drivertest.Connect(t, d, 0))
		})
	}
}
