package mysql

import (
	"context"
	sqldriver "database/sql/driver"

	"github.com/fairbench/fairbench/internal/driver"
)

// QueryRow runs the statement, scans the first row into dest and reports
// whether there was one; further rows are read and discarded.
func (s *stmt) QueryRow(ctx context.Context, dest []any, args ...any) (bool, error) {
	n, err := s.scan(ctx, dest, nil, true, args)
	return n > 0, err
}

// QueryRows runs the statement and calls fn after scanning each row into dest;
// it returns the number of rows. An error from fn stops the reading and is
// returned as it is.
func (s *stmt) QueryRows(ctx context.Context, dest []any, fn func() error, args ...any) (int, error) {
	return s.scan(ctx, dest, fn, false, args)
}

// scan runs the statement and scans its rows into dest: only the first when
// first is set, every row (calling fn after each) otherwise.
func (s *stmt) scan(ctx context.Context, dest []any, fn func() error, first bool, args []any) (int, error) {
	vals, err := bindArgs(s.args, args)
	s.args = vals[:0]
	if err != nil {
		return 0, err
	}
	c := s.c
	if err := c.dl.enter(ctx); err != nil {
		return 0, err
	}
	var rows sqldriver.Rows
	if s.ds != nil {
		rows, err = s.ds.Query(vals)
	} else {
		rows, err = c.queryer.Query(s.query, vals)
	}
	if err != nil {
		c.dl.leave()
		return 0, c.callError(ctx, err)
	}
	if !s.cols {
		s.dest = make([]sqldriver.Value, len(rows.Columns()))
		s.cols = true
	}
	n, err := driver.ScanRows(driver.KindMySQL, rows, s.dest, dest, fn, first)
	c.dl.leave()
	if err != nil {
		return n, c.callError(ctx, err)
	}
	return n, nil
}
