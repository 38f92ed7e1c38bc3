package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// testTimeout bounds every test's talk with the server.
const testTimeout = 60 * time.Second

// testContext returns a context that ends with the test.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// openDriver returns the driver for cfg.
func openDriver(t testing.TB, cfg driver.Config) driver.Driver {
	t.Helper()
	return drivertest.Open(t, New, cfg)
}

// connectTo opens connection 0 of cfg and closes it when the test ends.
func connectTo(t testing.TB, cfg driver.Config) driver.Conn {
	t.Helper()
	c, err := openDriver(t, cfg).Connect(testContext(t), 0)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// freshDB returns a Config of a private database with the given preparation mode.
func freshDB(t testing.TB, prepared bool) driver.Config {
	t.Helper()
	cfg := testdb.PgSQL(t)
	cfg.Prepared = prepared
	return cfg
}

// sbtest describes a sysbench table named name; PostgreSQL ignores its Engine.
func sbtest(name string) driver.Table { return drivertest.Sbtest(name) }

// sbColumns are the columns sbRows yields.
var sbColumns = []string{"id", "k", "c", "pad"}

// sbRows yields n sysbench-shaped rows with ids 1..n: k an integer, c 119
// characters and pad 59, as sysbench generates them.
type sbRows struct {
	n, i   int
	values []any
	c, pad []byte
}

func newSBRows(n int) *sbRows {
	return &sbRows{n: n, values: make([]any, 4), c: make([]byte, 119), pad: make([]byte, 59)}
}

func (r *sbRows) Next() bool {
	if r.i >= r.n {
		return false
	}
	r.i++
	digits(r.c, r.i)
	digits(r.pad, r.i*7)
	r.values[0], r.values[1] = int64(r.i), int64(r.i%1000)
	r.values[2], r.values[3] = r.c, r.pad
	return true
}

func (r *sbRows) Values() ([]any, error) { return r.values, nil }
func (r *sbRows) Err() error             { return nil }

// digits fills b with groups of 11 digits joined by '-', derived from seed.
func digits(b []byte, seed int) {
	x := uint64(seed)*2654435761 + 1
	for i := range b {
		if i%12 == 11 {
			b[i] = '-'
			continue
		}
		x = x*6364136223846793005 + 1442695040888963407
		b[i] = '0' + byte(x>>60)%10
	}
}

// createAndLoad creates table name with the sysbench schema and loads n rows.
func createAndLoad(t testing.TB, c driver.Conn, name string, n int) {
	t.Helper()
	ctx := testContext(t)
	for _, stmt := range (Dialect{}).CreateTable(sbtest(name)) {
		if _, err := c.Exec(ctx, stmt); err != nil {
			t.Fatalf("create table: %v", err)
		}
	}
	got, err := c.BulkInsert(ctx, name, sbColumns, newSBRows(n))
	if err != nil {
		t.Fatalf("BulkInsert: %v", err)
	}
	if got != int64(n) {
		t.Fatalf("BulkInsert loaded %d rows, want %d", got, n)
	}
}

// queryInt runs a one-value query and returns the value as text.
func queryOne(t testing.TB, c driver.Conn, query string, args ...any) string {
	t.Helper()
	rows, err := c.QueryStrings(testContext(t), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: got %v, want one value", query, rows)
	}
	return rows[0][0]
}

// modes runs f once with prepared statements and once without.
func modes(t *testing.T, f func(t *testing.T, prepared bool)) {
	for _, prepared := range []bool{true, false} {
		t.Run(fmt.Sprintf("prepared=%v", prepared), func(t *testing.T) { f(t, prepared) })
	}
}
