package sqlite

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// conn is one connection to the database file, used by one goroutine at a time.
type conn struct {
	raw      sqldriver.Conn
	execer   sqldriver.ExecerContext
	queryer  sqldriver.QueryerContext
	preparer sqldriver.ConnPrepareContext
	prepared bool
	args     []sqldriver.NamedValue // reused by Exec and Query
	closed   bool
}

var _ driver.Conn = (*conn)(nil)

func newConn(raw sqldriver.Conn, prepared bool) (*conn, error) {
	execer, okE := raw.(sqldriver.ExecerContext)
	queryer, okQ := raw.(sqldriver.QueryerContext)
	preparer, okP := raw.(sqldriver.ConnPrepareContext)
	if !okE || !okQ || !okP {
		return nil, errors.New("sqlite: modernc.org/sqlite connection lacks the context interfaces (unsupported version)")
	}
	return &conn{raw: raw, execer: execer, queryer: queryer, preparer: preparer, prepared: prepared}, nil
}

// Prepare returns a prepared statement stepped again on every call when the
// driver is configured for prepared statements; otherwise a statement whose
// text SQLite compiles on every call.
func (c *conn) Prepare(ctx context.Context, query string) (driver.Stmt, error) {
	s := &stmt{c: c, query: query, wait: waitsForLock(query)}
	if !c.prepared {
		return s, nil
	}
	ds, err := c.preparer.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prepare %q: %w", query, err)
	}
	s.ds = ds
	s.execer, _ = ds.(sqldriver.StmtExecContext)
	s.queryer, _ = ds.(sqldriver.StmtQueryContext)
	if s.execer == nil || s.queryer == nil {
		ds.Close()
		return nil, errors.New("sqlite: prepared statement lacks the context interfaces (unsupported version)")
	}
	return s, nil
}

// Exec runs query and returns the number of rows it changed.
func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	named, err := bindArgs(c.args, args)
	c.args = named[:0]
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	res, err := c.execer.ExecContext(ctx, query, named)
	if err != nil {
		return 0, err
	}
	if !isDML(query) {
		// sqlite3_changes() keeps the count of the last INSERT/UPDATE/DELETE, so
		// BEGIN, COMMIT or DDL would report it again.
		return 0, nil
	}
	return res.RowsAffected()
}

// isDML reports whether query starts with a statement that changes rows.
func isDML(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	if len(q) < 6 {
		return false
	}
	switch strings.ToUpper(q[:6]) {
	case "INSERT", "UPDATE", "DELETE", "REPLAC":
		return true
	}
	return strings.EqualFold(q[:4], "WITH")
}

// Query runs query, reads every row and returns how many there were.
func (c *conn) Query(ctx context.Context, query string, args ...any) (int, error) {
	named, err := bindArgs(c.args, args)
	c.args = named[:0]
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	rows, err := c.queryer.QueryContext(callContext(ctx, waitsForLock(query)), query, named)
	if err != nil {
		return 0, err
	}
	return driver.CountRows(rows, make([]sqldriver.Value, len(rows.Columns())))
}

// QueryStrings runs query and returns its rows as text, NULL as "".
func (c *conn) QueryStrings(ctx context.Context, query string, args ...any) ([][]string, error) {
	_, out, err := c.QueryColumns(ctx, query, args...)
	return out, err
}

// QueryColumns runs query and returns its column names and its rows as
// text, NULL as "".
func (c *conn) QueryColumns(ctx context.Context, query string, args ...any) ([]string, [][]string, error) {
	named, err := bindArgs(nil, args)
	if err != nil {
		return nil, nil, err
	}
	rows, err := c.queryer.QueryContext(ctx, query, named)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: %s: %w", query, err)
	}
	defer rows.Close()
	cols := rows.Columns()
	dest := make([]sqldriver.Value, len(cols))
	var out [][]string
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				break
			}
			return cols, out, fmt.Errorf("sqlite: %s: read row: %w", query, err)
		}
		out = append(out, driver.ValuesToStrings(dest))
	}
	return cols, out, nil
}

// Close closes the connection.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if err := c.raw.Close(); err != nil {
		return fmt.Errorf("sqlite: close connection: %w", err)
	}
	return nil
}
