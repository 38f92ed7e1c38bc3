package mysql

import (
	"context"

	"github.com/fairbench/fairbench/internal/db/driver"
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
	rows, err := s.rows(ctx, args)
	if err != nil {
		return 0, err
	}
	n, err := driver.ScanRows(driver.KindMySQL, rows, s.dest, dest, fn, first)
	s.c.dl.leave()
	if err != nil {
		return n, s.c.callError(ctx, err)
	}
	return n, nil
}
