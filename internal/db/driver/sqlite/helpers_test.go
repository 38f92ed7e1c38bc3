package sqlite

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

// sqliteTarget returns a Config for a fresh database file.
func sqliteTarget(t testing.TB, prepared bool) driver.Config {
	cfg := testdb.SQLite(t)
	cfg.Prepared = prepared
	return cfg
}
