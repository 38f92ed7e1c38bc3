package pgbench

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
)

// testCtx returns a context that ends with the test (or after five minutes).
func initTestCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openTarget opens the driver of cfg, closed when the test ends.
func openInitTarget(t testing.TB, cfg driver.Config) driver.Driver {
	t.Helper()
	d, err := open.Driver(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// connect opens connection 0 of db, closed when the test ends.
func connectInit(t testing.TB, db driver.Driver) driver.Conn {
	t.Helper()
	c, err := db.Connect(initTestCtx(t), 0)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// mustInit runs Init and fails the test on an error, returning the log.
func mustInit(t testing.TB, db driver.Driver, opts InitOptions) (string, Timings) {
	t.Helper()
	var log bytes.Buffer
	tm, err := Init(initTestCtx(t), db, opts, &log, nil)
	if err != nil {
		t.Fatalf("Init(%+v): %v\nlog:\n%s", opts, err, log.String())
	}
	return log.String(), tm
}

// query runs q and returns its rows as text.
func queryRows(t testing.TB, c driver.Conn, q string) [][]string {
	t.Helper()
	rows, err := c.QueryStrings(initTestCtx(t), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// one runs q and returns the first column of its one row.
func queryOne(t testing.TB, c driver.Conn, q string) string {
	t.Helper()
	rows := queryRows(t, c, q)
	if len(rows) != 1 || len(rows[0]) == 0 {
		t.Fatalf("%s: %d rows, want 1", q, len(rows))
	}
	return rows[0][0]
}
