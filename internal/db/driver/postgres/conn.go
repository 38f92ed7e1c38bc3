package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Conn is one PostgreSQL connection, used by one goroutine at a time.
//
// Every call hands context.Background to pgconn, which then skips its own
// per-call context watching (a few allocations per call); cancellation is
// handled once per context by the Conn's interrupter instead.
type Conn struct {
	pg       *pgconn.PgConn
	in       interrupter
	prepared bool // Config.Prepared: server-side prepared statements
	// escapeBackslash is set when the server has standard_conforming_strings off.
	escapeBackslash bool
	broken          bool // an earlier call closed or interrupted the connection
	stmtSeq         int  // names prepared statements uniquely on this connection

	wire wire   // the measured path's protocol state
	args params // encodes the arguments of Exec and Query
	text []byte // holds Exec and Query statements with interpolated arguments
}

var _ driver.Conn = (*Conn)(nil)

// newConn wraps a freshly connected pgconn.
func newConn(pg *pgconn.PgConn, prepared bool) *Conn {
	c := &Conn{
		pg:              pg,
		prepared:        prepared,
		escapeBackslash: pg.ParameterStatus("standard_conforming_strings") == "off",
	}
	c.in.pg, c.in.sock = pg, pg.Conn()
	c.wire.fe = pg.Frontend()
	return c
}

// enter starts a call under ctx.
func (c *Conn) enter(ctx context.Context) error {
	if c.broken || c.pg.IsClosed() {
		c.broken = true
		return &lostError{errUnusable}
	}
	return c.in.enter(ctx)
}

// leave ends a call and turns its error into the driver's error: wrapped with
// the statement, marked when the connection was lost, and replaced by the
// context's error when the context interrupted the call.
func (c *Conn) leave(ctx context.Context, query string, err error) error {
	if c.pg.IsClosed() {
		c.broken = true
	}
	if c.in.leave(c.broken) && err != nil {
		return fmt.Errorf("postgres: %q interrupted: %w (%w)", query, ctx.Err(), err)
	}
	if err == nil {
		return nil
	}
	if c.broken {
		var lost *lostError
		if !errors.As(err, &lost) {
			err = &lostError{err}
		}
	}
	return fmt.Errorf("postgres: %q: %w", query, err)
}

// contextError reports that ctx ended before a call started.
func contextError(query string, err error) error {
	return fmt.Errorf("postgres: %q not started: %w", query, err)
}

// Prepare returns a statement for repeated execution: a server-side prepared
// statement when Config.Prepared is set, otherwise a statement whose arguments
// are interpolated client-side and sent over the simple query protocol.
func (c *Conn) Prepare(ctx context.Context, query string) (driver.Stmt, error) {
	if !c.prepared {
		return newTextStmt(c, query), nil
	}
	sql, n := rebind(query)
	c.stmtSeq++
	name := "fb" + strconv.Itoa(c.stmtSeq)
	if err := c.enter(ctx); err != nil {
		return nil, contextError(query, err)
	}
	sd, err := c.pg.Prepare(context.Background(), name, sql, nil)
	if err = c.leave(ctx, query, err); err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if len(sd.ParamOIDs) != n {
		return nil, fmt.Errorf("postgres: prepare %q: the server sees %d parameters, the query has %d '?' placeholders", query, len(sd.ParamOIDs), n)
	}
	return newPreparedStmt(c, query, sd), nil
}

// Exec runs a statement that returns no rows and reports the rows it changed.
func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	_, affected, err := c.run(ctx, query, args)
	return affected, err
}

// Query runs a statement, reads every row it returns and reports how many.
func (c *Conn) Query(ctx context.Context, query string, args ...any) (int, error) {
	rows, _, err := c.run(ctx, query, args)
	return rows, err
}

// run sends a one-off statement: as plain text over the simple query protocol
// when it has no arguments, with bound parameters over the extended protocol
// when statements are prepared, and interpolated as text otherwise.
func (c *Conn) run(ctx context.Context, query string, args []any) (rows int, affected int64, err error) {
	if len(args) == 0 {
		return c.runSimple(ctx, query, query)
	}
	if !c.prepared {
		c.text, err = interpolate(c.text[:0], splitPlaceholders(query), args, c.escapeBackslash)
		if err != nil {
			return 0, 0, fmt.Errorf("postgres: %q: %w", query, err)
		}
		return c.runSimple(ctx, unsafe.String(unsafe.SliceData(c.text), len(c.text)), query)
	}
	sql, n := rebind(query)
	if n != len(args) {
		return 0, 0, fmt.Errorf("postgres: %q has %d '?' placeholders but %d arguments were given", query, n, len(args))
	}
	values, err := c.args.encode(args)
	if err != nil {
		return 0, 0, fmt.Errorf("postgres: %q: %w", query, err)
	}
	if err := c.enter(ctx); err != nil {
		return 0, 0, contextError(query, err)
	}
	rr := c.pg.ExecParams(context.Background(), sql, values, nil, nil, nil)
	rows, affected, err = drain(rr)
	return rows, affected, c.leave(ctx, query, err)
}

// runSimple sends sql over the simple query protocol and counts the rows of all
// its results; affected is the count of the last command. query names the
// statement in errors.
func (c *Conn) runSimple(ctx context.Context, sql, query string) (rows int, affected int64, err error) {
	if err := c.enter(ctx); err != nil {
		return 0, 0, contextError(query, err)
	}
	rows, affected, err = c.execSimple(sql)
	return rows, affected, c.leave(ctx, query, err)
}

// drain counts the rows of rr without copying them and closes it.
func drain(rr *pgconn.ResultReader) (rows int, affected int64, err error) {
	for rr.NextRow() {
		rows++
	}
	tag, err := rr.Close()
	return rows, tag.RowsAffected(), err
}

// QueryStrings runs a statement and returns its rows as text (NULL as "").
func (c *Conn) QueryStrings(ctx context.Context, query string, args ...any) ([][]string, error) {
	_, out, err := c.QueryColumns(ctx, query, args...)
	return out, err
}

// QueryColumns runs a statement and returns its column names and its rows
// as text (NULL as "").
func (c *Conn) QueryColumns(ctx context.Context, query string, args ...any) ([]string, [][]string, error) {
	sql, n := rebind(query)
	if n != len(args) {
		return nil, nil, fmt.Errorf("postgres: %q has %d '?' placeholders but %d arguments were given", query, n, len(args))
	}
	values, err := c.args.encode(args)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: %q: %w", query, err)
	}
	if err := c.enter(ctx); err != nil {
		return nil, nil, contextError(query, err)
	}
	var out [][]string
	rr := c.pg.ExecParams(context.Background(), sql, values, nil, nil, nil)
	var cols []string
	for _, f := range rr.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = string(v)
		}
		out = append(out, row)
	}
	_, err = rr.Close()
	if err = c.leave(ctx, query, err); err != nil {
		return nil, nil, err
	}
	if len(cols) == 0 { // known only once the first row arrived
		for _, f := range rr.FieldDescriptions() {
			cols = append(cols, f.Name)
		}
	}
	return cols, out, nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.in.release()
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if err := c.pg.Close(ctx); err != nil && !c.broken {
		return fmt.Errorf("postgres: close connection: %w", err)
	}
	return nil
}
