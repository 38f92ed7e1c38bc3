package mysql

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// conn is one server connection, used by one goroutine at a time.
type conn struct {
	raw      sqldriver.Conn
	execer   sqldriver.Execer  // text protocol, client-side interpolation
	queryer  sqldriver.Queryer // text protocol, client-side interpolation
	dl       deadline
	prepared bool
	bulk     bulkMode
	args     []sqldriver.Value // reused by every call on the connection (see bind)
	loads    int               // LOAD DATA readers registered so far (unique names)
	closed   bool
}

var _ driver.Conn = (*conn)(nil)

// dial opens one connection to ep.
func dial(ctx context.Context, ep *endpoint, bulk bulkMode, prepared bool) (*conn, error) {
	slot := &netConnSlot{}
	raw, err := ep.connector.Connect(context.WithValue(ctx, netConnSlotKey{}, slot))
	if err != nil {
		if slot.conn != nil {
			return nil, &handshakeError{err}
		}
		return nil, err
	}
	execer, okE := raw.(sqldriver.Execer)
	queryer, okQ := raw.(sqldriver.Queryer)
	if !okE || !okQ || slot.conn == nil {
		raw.Close()
		return nil, errors.New("mysql: go-sql-driver connection lacks Execer/Queryer or dial hook (unsupported driver version)")
	}
	c := &conn{raw: raw, execer: execer, queryer: queryer, prepared: prepared, bulk: bulk}
	nc := slot.conn
	c.dl.kill = func() { nc.Close() }
	return c, nil
}

// callError turns the error of a call into what the caller sees: the context's
// error when the deadline watcher cut the call short, the driver's error otherwise.
func (c *conn) callError(ctx context.Context, err error) error {
	if c.dl.fired() {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("mysql: call cancelled, connection closed: %w", cerr)
		}
	}
	if errors.Is(err, sqldriver.ErrSkip) {
		// go-sql-driver's way of saying that interpolation failed.
		return fmt.Errorf("mysql: the arguments do not match the statement's ? placeholders: %w", err)
	}
	return err
}

// Prepare returns a server-side prepared statement when the driver is configured
// for prepared statements, and a text statement interpolated per call otherwise.
func (c *conn) Prepare(ctx context.Context, query string) (driver.Stmt, error) {
	s := &stmt{c: c, query: query}
	if !c.prepared {
		return s, nil
	}
	if err := c.dl.enter(ctx); err != nil {
		return nil, err
	}
	ds, err := c.raw.Prepare(query)
	c.dl.leave()
	if err != nil {
		return nil, fmt.Errorf("mysql: prepare %q: %w", query, c.callError(ctx, err))
	}
	s.ds = ds
	return s, nil
}

// bind converts a call's arguments into the connection's one reusable
// buffer. Calls on a connection never overlap (a statement's rows are read
// before the next call), so every statement of the connection shares it: the
// buffer grows to the widest statement once per connection, not once per
// statement (TPC-C prepares ~40 per connection, up to 150 arguments wide).
func (c *conn) bind(args []any) ([]sqldriver.Value, error) {
	vals, err := bindArgs(c.args, args)
	c.args = vals[:0]
	return vals, err
}

// Exec runs query as text (arguments interpolated by the client) and returns
// the number of changed rows.
func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	vals, err := c.bind(args)
	if err != nil {
		return 0, err
	}
	if err := c.dl.enter(ctx); err != nil {
		return 0, err
	}
	res, err := c.execer.Exec(query, vals)
	c.dl.leave()
	if err != nil {
		return 0, c.callError(ctx, err)
	}
	return res.RowsAffected()
}

// Query runs query as text, reads every row and returns how many there were.
func (c *conn) Query(ctx context.Context, query string, args ...any) (int, error) {
	vals, err := c.bind(args)
	if err != nil {
		return 0, err
	}
	if err := c.dl.enter(ctx); err != nil {
		return 0, err
	}
	rows, err := c.queryer.Query(query, vals)
	if err != nil {
		c.dl.leave()
		return 0, c.callError(ctx, err)
	}
	n, err := driver.CountRows(rows, make([]sqldriver.Value, len(rows.Columns())))
	c.dl.leave()
	if err != nil {
		return n, c.callError(ctx, err)
	}
	return n, nil
}

// QueryStrings runs query and returns its rows as text, NULL as "".
func (c *conn) QueryStrings(ctx context.Context, query string, args ...any) ([][]string, error) {
	_, out, err := c.QueryColumns(ctx, query, args...)
	return out, err
}

// QueryColumns runs query and returns its column names and its rows as
// text, NULL as "".
func (c *conn) QueryColumns(ctx context.Context, query string, args ...any) ([]string, [][]string, error) {
	vals, err := bindArgs(nil, args)
	if err != nil {
		return nil, nil, err
	}
	if err := c.dl.enter(ctx); err != nil {
		return nil, nil, err
	}
	defer c.dl.leave()
	rows, err := c.queryer.Query(query, vals)
	if err != nil {
		return nil, nil, fmt.Errorf("mysql: %s: %w", query, c.callError(ctx, err))
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
			return cols, out, fmt.Errorf("mysql: %s: read row: %w", query, c.callError(ctx, err))
		}
		out = append(out, driver.ValuesToStrings(dest))
	}
	if err := rows.Close(); err != nil {
		return cols, out, fmt.Errorf("mysql: %s: %w", query, c.callError(ctx, err))
	}
	return cols, out, nil
}

// Close closes the connection (COM_QUIT) and stops its deadline watcher.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.dl.close()
	if err := c.raw.Close(); err != nil && !errors.Is(err, sqldriver.ErrBadConn) {
		return fmt.Errorf("mysql: close connection: %w", err)
	}
	return nil
}
