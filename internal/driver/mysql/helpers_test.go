package mysql

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testdb"
)

// openDriver returns a Driver for cfg, failing the test on error.
func openDriver(t testing.TB, cfg driver.Config) *Driver {
	t.Helper()
	d, err := newDriver(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// connect opens connection n of d and closes it when the test ends.
func connect(t testing.TB, d driver.Driver, n int) driver.Conn {
	t.Helper()
	c, err := d.Connect(context.Background(), n)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sbRows is a RowSource of n sysbench-shaped rows with ids 1..n.
type sbRows struct {
	n, i int64
	rng  *rand.Rand
	vals []any
	buf  []byte
}

func newSBRows(n int64) *sbRows {
	return &sbRows{n: n, rng: rand.New(rand.NewPCG(1, 2)), vals: make([]any, 4)}
}

func (s *sbRows) Next() bool { s.i++; return s.i <= s.n }

func (s *sbRows) Values() ([]any, error) {
	s.vals[0] = s.i
	s.vals[1] = s.rng.Int64N(s.n) + 1
	s.vals[2] = s.digits(10)
	s.vals[3] = s.digits(5)
	return s.vals, nil
}

func (s *sbRows) Err() error { return nil }

// digits returns groups of 11 random digits joined by '-' (sysbench's c and pad).
func (s *sbRows) digits(groups int) string {
	s.buf = s.buf[:0]
	for g := 0; g < groups; g++ {
		if g > 0 {
			s.buf = append(s.buf, '-')
		}
		for i := 0; i < 11; i++ {
			s.buf = append(s.buf, byte('0'+s.rng.IntN(10)))
		}
	}
	return string(s.buf)
}

var sbColumns = []string{"id", "k", "c", "pad"}

// loadSbtest creates table name and loads n rows into it through c.
func loadSbtest(t testing.TB, d driver.Driver, c driver.Conn, name string, n int64) {
	t.Helper()
	ctx := context.Background()
	for _, q := range d.Dialect().CreateTable(sbtest(name)) {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	got, err := c.BulkInsert(ctx, name, sbColumns, newSBRows(n))
	if err != nil {
		t.Fatalf("BulkInsert: %v", err)
	}
	if got != n {
		t.Fatalf("BulkInsert loaded %d rows, want %d", got, n)
	}
}

// count returns SELECT COUNT(*) of table.
func count(t testing.TB, c driver.Conn, table string) int {
	t.Helper()
	rows, err := c.QueryStrings(context.Background(), "SELECT COUNT(*) FROM "+table)
	if err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	n, err := strconv.Atoi(rows[0][0])
	if err != nil {
		t.Fatalf("count %s: %q", table, rows)
	}
	return n
}

// mysqlTarget returns a fresh test database with the given statement mode.
func mysqlTarget(t testing.TB, prepared bool) driver.Config {
	cfg := testdb.MySQL(t)
	cfg.Prepared = prepared
	return cfg
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
