package drivertest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Sbtest returns the sysbench table named name as the OLTP workload describes
// it with sysbench's default options.
func Sbtest(name string) driver.Table {
	return driver.Table{
		Name: name,
		Columns: []driver.Column{
			{Name: "id", Type: driver.Integer, NotNull: true, AutoIncrement: true},
			{Name: "k", Type: driver.Integer, NotNull: true, Default: "'0'"},
			{Name: "c", Type: driver.Char, Size: 120, NotNull: true, Default: "''"},
			{Name: "pad", Type: driver.Char, Size: 60, NotNull: true, Default: "''"},
		},
		PrimaryKey: []string{"id"},
		Engine:     "innodb",
	}
}

// SbtestColumns returns the columns of Sbtest in the order SBRows yields them.
func SbtestColumns() []string { return []string{"id", "k", "c", "pad"} }

// SBRows is a driver.RowSource of n sysbench-shaped rows with ids 1..n: k a
// random id, c 119 characters and pad 59, as sysbench generates them. The
// random values are the same on every run.
type SBRows struct {
	n, i int64
	rng  *rand.Rand
	vals []any
	buf  []byte
}

var _ driver.RowSource = (*SBRows)(nil)

// NewSBRows returns the rows with ids 1..n.
func NewSBRows(n int64) *SBRows {
	return &SBRows{n: n, rng: rand.New(rand.NewPCG(1, 2)), vals: make([]any, 4)}
}

// Next moves to the next row.
func (s *SBRows) Next() bool { s.i++; return s.i <= s.n }

// Values returns the current row; the slice is reused by the next call.
func (s *SBRows) Values() ([]any, error) {
	s.vals[0] = s.i
	s.vals[1] = s.rng.Int64N(s.n) + 1
	s.vals[2] = s.digits(10)
	s.vals[3] = s.digits(5)
	return s.vals, nil
}

// Err returns nil: generating rows does not fail.
func (s *SBRows) Err() error { return nil }

// digits returns groups of 11 random digits joined by '-' (sysbench's c and pad).
func (s *SBRows) digits(groups int) string {
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

// LoadSbtest creates Sbtest(name) in d's dialect and loads n rows into it
// through c, failing the test unless all n were stored.
func LoadSbtest(tb testing.TB, d driver.Driver, c driver.Conn, name string, n int64) {
	tb.Helper()
	ctx := context.Background()
	for _, q := range d.Dialect().CreateTable(Sbtest(name)) {
		if _, err := c.Exec(ctx, q); err != nil {
			tb.Fatalf("create %s: %v", name, err)
		}
	}
	got, err := c.BulkInsert(ctx, name, SbtestColumns(), NewSBRows(n))
	if err != nil {
		tb.Fatalf("BulkInsert: %v", err)
	}
	if got != n {
		tb.Fatalf("BulkInsert loaded %d rows, want %d", got, n)
	}
}

// Count returns SELECT COUNT(*) of table.
func Count(tb testing.TB, c driver.Conn, table string) int {
	tb.Helper()
	rows, err := c.QueryStrings(context.Background(), "SELECT COUNT(*) FROM "+table)
	if err != nil {
		tb.Fatalf("count %s: %v", table, err)
	}
	n, err := strconv.Atoi(rows[0][0])
	if err != nil {
		tb.Fatalf("count %s: %q", table, rows)
	}
	return n
}

// MixedTypes returns table t with a composite primary key (a, b) and columns of
// the other portable types with a size, a default and NOT NULL among them:
// a SMALLINT, b BIGINT NOT NULL, c VARCHAR(24), d DECIMAL(12,2) DEFAULT 0.00,
// e Float and f Timestamp.
func MixedTypes() driver.Table {
	return driver.Table{
		Name: "t",
		Columns: []driver.Column{
			{Name: "a", Type: driver.SmallInt},
			{Name: "b", Type: driver.BigInt, NotNull: true},
			{Name: "c", Type: driver.Varchar, Size: 24},
			{Name: "d", Type: driver.Decimal, Size: 12, Scale: 2, Default: "0.00"},
			{Name: "e", Type: driver.Float},
			{Name: "f", Type: driver.Timestamp},
		},
		PrimaryKey: []string{"a", "b"},
	}
}
