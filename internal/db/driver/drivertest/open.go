package drivertest

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Open returns the driver that newDriver makes of cfg, failing the test on
// error, and closes it when the test ends. D is the package's concrete driver
// type, so that tests can reach its unexported fields.
func Open[D driver.Driver](tb testing.TB, newDriver func(driver.Config) (D, error), cfg driver.Config) D {
	tb.Helper()
	d, err := newDriver(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { d.Close() })
	return d
}

// Connect opens connection n of d and closes it when the test ends.
func Connect(tb testing.TB, d driver.Driver, n int) driver.Conn {
	tb.Helper()
	c, err := d.Connect(context.Background(), n)
	if err != nil {
		tb.Fatalf("Connect: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
