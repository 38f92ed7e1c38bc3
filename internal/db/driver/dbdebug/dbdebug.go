// Package dbdebug is sysbench's --db-debug: a driver whose connections print
// every statement they send, with its arguments, prefixed with the number of
// the thread (connection) that sent it. It wraps another driver and is
// installed only when asked for, so a run without it pays nothing for it.
package dbdebug

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Wrap returns d whose connections print each statement on w, one line
// each ("DEBUG: thread 3: SELECT c FROM sbtest1 WHERE id=? [42]"); lines of
// different threads never interleave.
func Wrap(d driver.Driver, w io.Writer) driver.Driver {
	return &debugDriver{Driver: d, out: &printer{w: w}}
}

type printer struct {
	mu sync.Mutex
	w  io.Writer
}

// print writes one statement of thread n with its arguments.
func (p *printer) print(n int, query string, args []any) {
	var b strings.Builder
	fmt.Fprintf(&b, "DEBUG: thread %d: %s", n, strings.Join(strings.Fields(query), " "))
	if len(args) > 0 {
		b.WriteString(" [")
		for i, a := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			switch v := a.(type) {
			case string:
				fmt.Fprintf(&b, "%q", v)
			case []byte:
				fmt.Fprintf(&b, "%q", v)
			default:
				fmt.Fprintf(&b, "%v", v)
			}
		}
		b.WriteString("]")
	}
	b.WriteByte('\n')
	p.mu.Lock()
	io.WriteString(p.w, b.String())
	p.mu.Unlock()
}

type debugDriver struct {
	driver.Driver
	out *printer
}

// Connect opens connection n of the wrapped driver; its statements are
// printed as thread n's.
func (d *debugDriver) Connect(ctx context.Context, n int) (driver.Conn, error) {
	c, err := d.Driver.Connect(ctx, n)
	if err != nil {
		return nil, err
	}
	return &debugConn{Conn: c, n: n, out: d.out}, nil
}

type debugConn struct {
	driver.Conn
	n   int
	out *printer
}

func (c *debugConn) Prepare(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.Conn.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return &debugStmt{Stmt: s, c: c, query: query}, nil
}

func (c *debugConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	c.out.print(c.n, query, args)
	return c.Conn.Exec(ctx, query, args...)
}

func (c *debugConn) Query(ctx context.Context, query string, args ...any) (int, error) {
	c.out.print(c.n, query, args)
	return c.Conn.Query(ctx, query, args...)
}

func (c *debugConn) QueryStrings(ctx context.Context, query string, args ...any) ([][]string, error) {
	c.out.print(c.n, query, args)
	return c.Conn.QueryStrings(ctx, query, args...)
}

func (c *debugConn) QueryColumns(ctx context.Context, query string, args ...any) ([]string, [][]string, error) {
	c.out.print(c.n, query, args)
	return c.Conn.QueryColumns(ctx, query, args...)
}

func (c *debugConn) BulkInsert(ctx context.Context, table string, columns []string, rows driver.RowSource) (int64, error) {
	c.out.print(c.n, fmt.Sprintf("bulk insert into %s (%s)", table, strings.Join(columns, ", ")), nil)
	return c.Conn.BulkInsert(ctx, table, columns, rows)
}

type debugStmt struct {
	driver.Stmt
	c     *debugConn
	query string
}

func (s *debugStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	s.c.out.print(s.c.n, s.query, args)
	return s.Stmt.Exec(ctx, args...)
}

func (s *debugStmt) Query(ctx context.Context, args ...any) (int, error) {
	s.c.out.print(s.c.n, s.query, args)
	return s.Stmt.Query(ctx, args...)
}

func (s *debugStmt) Drain(ctx context.Context, args ...any) error {
	s.c.out.print(s.c.n, s.query, args)
	return s.Stmt.Drain(ctx, args...)
}

func (s *debugStmt) QueryRow(ctx context.Context, dest []any, args ...any) (bool, error) {
	s.c.out.print(s.c.n, s.query, args)
	return s.Stmt.QueryRow(ctx, dest, args...)
}

func (s *debugStmt) QueryRows(ctx context.Context, dest []any, fn func() error, args ...any) (int, error) {
	s.c.out.print(s.c.n, s.query, args)
	return s.Stmt.QueryRows(ctx, dest, fn, args...)
}
