package drivertest

import "github.com/fairbench/fairbench/internal/db/driver"

// FixedRows is a driver.RowSource over literal rows.
type FixedRows struct {
	rows [][]any
	i    int
}

var _ driver.RowSource = (*FixedRows)(nil)

// NewFixedRows returns a RowSource that yields rows in order.
func NewFixedRows(rows [][]any) *FixedRows { return &FixedRows{rows: rows} }

// Next moves to the next row.
func (f *FixedRows) Next() bool { f.i++; return f.i <= len(f.rows) }

// Values returns the current row.
func (f *FixedRows) Values() ([]any, error) { return f.rows[f.i-1], nil }

// Err returns nil.
func (f *FixedRows) Err() error { return nil }
