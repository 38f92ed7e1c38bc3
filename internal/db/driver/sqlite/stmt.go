package sqlite

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// stmt is a statement bound to one conn: a prepared SQLite statement reset and
// stepped again on every call when ds is set, otherwise query text compiled on
// every call.
type stmt struct {
	c       *conn
	query   string
	ds      sqldriver.Stmt
	execer  sqldriver.StmtExecContext
	queryer sqldriver.StmtQueryContext
	args    []sqldriver.NamedValue // reused between calls
	dest    []sqldriver.Value      // one row, reused between calls
	cols    bool                   // dest is sized
	wait    bool                   // may wait for the write lock: pass the context
}

var _ driver.Stmt = (*stmt)(nil)

// Exec runs the statement and returns the number of rows it changed.
func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	if s.ds == nil {
		return s.c.Exec(ctx, s.query, args...)
	}
	named, err := bindArgs(s.args, args)
	s.args = named[:0]
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	res, err := s.execer.ExecContext(callContext(ctx, s.wait), named)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Query runs the statement, reads every row and returns how many there were.
func (s *stmt) Query(ctx context.Context, args ...any) (int, error) {
	rows, err := s.rows(ctx, args)
	if err != nil {
		return 0, err
	}
	return driver.CountRows(rows, s.dest)
}

// Drain runs the statement as Query does: SQLite computes a row only when it
// is stepped to, so skipping the rows would skip the work measured.
func (s *stmt) Drain(ctx context.Context, args ...any) error {
	_, err := s.Query(ctx, args...)
	return err
}

// rows binds args and runs the statement; s.dest is sized to the result's columns.
func (s *stmt) rows(ctx context.Context, args []any) (sqldriver.Rows, error) {
	named, err := bindArgs(s.args, args)
	s.args = named[:0]
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rows sqldriver.Rows
	if s.ds != nil {
		rows, err = s.queryer.QueryContext(callContext(ctx, s.wait), named)
	} else {
		rows, err = s.c.queryer.QueryContext(callContext(ctx, s.wait), s.query, named)
	}
	if err != nil {
		return nil, err
	}
	if !s.cols {
		s.dest = make([]sqldriver.Value, len(rows.Columns()))
		s.cols = true
	}
	return rows, nil
}

// Close finalizes the prepared statement.
func (s *stmt) Close() error {
	if s.ds == nil {
		return nil
	}
	ds := s.ds
	s.ds = nil
	if err := ds.Close(); err != nil {
		return fmt.Errorf("sqlite: close statement %q: %w", s.query, err)
	}
	return nil
}
