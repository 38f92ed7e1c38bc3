package mysql

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// stmt is a statement bound to one conn: a server-side prepared statement
// (COM_STMT_EXECUTE, binary protocol) when ds is set, otherwise query text whose
// arguments the client interpolates on every call (COM_QUERY), like sysbench's
// --db-ps-mode=disable.
type stmt struct {
	c     *conn
	query string
	ds    sqldriver.Stmt
	dest  []sqldriver.Value // one row, reused between calls
	cols  bool              // dest is sized
}

var _ driver.Stmt = (*stmt)(nil)

// Exec runs the statement and returns the number of changed rows.
func (s *stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	vals, err := s.c.bind(args)
	if err != nil {
		return 0, err
	}
	c := s.c
	if err := c.dl.enter(ctx); err != nil {
		return 0, err
	}
	var res sqldriver.Result
	if s.ds != nil {
		res, err = s.ds.Exec(vals)
	} else {
		res, err = c.execer.Exec(s.query, vals)
	}
	c.dl.leave()
	if err != nil {
		return 0, c.callError(ctx, err)
	}
	return res.RowsAffected()
}

// Query runs the statement, reads every row and returns how many there were.
func (s *stmt) Query(ctx context.Context, args ...any) (int, error) {
	rows, err := s.rows(ctx, args)
	if err != nil {
		return 0, err
	}
	n, err := driver.CountRows(rows, s.dest)
	s.c.dl.leave()
	if err != nil {
		return n, s.c.callError(ctx, err)
	}
	return n, nil
}

// Drain runs the statement and receives its rows without decoding them:
// go-sql-driver skips the unread rows of a closed result, while Next boxes
// every string column of every row into a driver.Value (a 24-byte allocation
// per value: go-sql-driver/mysql#192).
func (s *stmt) Drain(ctx context.Context, args ...any) error {
	rows, err := s.rows(ctx, args)
	if err != nil {
		return err
	}
	err = rows.Close()
	s.c.dl.leave()
	if err != nil {
		return s.c.callError(ctx, err)
	}
	return nil
}

// rows binds args and runs the statement under ctx's deadline watch. On success
// the call is still in flight: the caller reads the rows into s.dest (sized to
// the result's columns) and then calls s.c.dl.leave().
func (s *stmt) rows(ctx context.Context, args []any) (sqldriver.Rows, error) {
	vals, err := s.c.bind(args)
	if err != nil {
		return nil, err
	}
	c := s.c
	if err := c.dl.enter(ctx); err != nil {
		return nil, err
	}
	var rows sqldriver.Rows
	if s.ds != nil {
		rows, err = s.ds.Query(vals)
	} else {
		rows, err = c.queryer.Query(s.query, vals)
	}
	if err != nil {
		c.dl.leave()
		return nil, c.callError(ctx, err)
	}
	if !s.cols {
		s.dest = make([]sqldriver.Value, len(rows.Columns()))
		s.cols = true
	}
	return rows, nil
}

// Close releases the server-side statement (COM_STMT_CLOSE, no reply awaited).
func (s *stmt) Close() error {
	if s.ds == nil {
		return nil
	}
	ds := s.ds
	s.ds = nil
	if err := ds.Close(); err != nil {
		return fmt.Errorf("mysql: close statement %q: %w", s.query, err)
	}
	return nil
}
