package mysql

import (
	"context"
	sqldriver "database/sql/driver"
	"io"
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
	n, err := scanRows(rows, s.dest, dest, fn, first)
	c.dl.leave()
	if err != nil {
		return n, c.callError(ctx, err)
	}
	return n, nil
}

// scanRows reads rows into buf, scans the wanted ones into dest, closes rows
// and returns how many rows there were (with first, at most 1 is counted:
// the rest are discarded).
func scanRows(rows sqldriver.Rows, buf []sqldriver.Value, dest []any, fn func() error, first bool) (int, error) {
	n := 0
	for {
		err := rows.Next(buf)
		if err == io.EOF {
			break
		}
		if err == nil && (!first || n == 0) {
			n++
			if err = scanRow(dest, buf); err == nil && fn != nil {
				err = fn()
			}
		}
		if err != nil {
			rows.Close()
			return n, err
		}
	}
	return n, rows.Close()
}
