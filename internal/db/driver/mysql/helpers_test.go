package mysql

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// openDriver returns a Driver for cfg, failing the test on error.
func openDriver(t testing.TB, cfg driver.Config) *Driver {
	t.Helper()
	return drivertest.Open(t, newDriver, cfg)
}

// mysqlTarget returns a fresh test database with the given statement mode.
func mysqlTarget(t testing.TB, prepared bool) driver.Config {
	cfg := testdb.MySQL(t)
	cfg.Prepared = prepared
	return cfg
}
