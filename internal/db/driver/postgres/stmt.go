package postgres

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// preparedStmt is a server-side prepared statement. Each call binds its
// arguments as text from the statement's own buffers and counts result rows
// without copying them.
type preparedStmt struct {
	c     *Conn
	query string // as the caller wrote it, for errors
	sd    *pgconn.StatementDescription
	args  params
	sink  rowSink // the rows of QueryRow and QueryRows
}

var _ driver.Stmt = (*preparedStmt)(nil)

func newPreparedStmt(c *Conn, query string, sd *pgconn.StatementDescription) *preparedStmt {
	return &preparedStmt{c: c, query: query, sd: sd}
}

// exec binds args and runs the statement once.
func (s *preparedStmt) exec(ctx context.Context, args []any) (rows int, affected int64, err error) {
	if len(args) != len(s.sd.ParamOIDs) {
		return 0, 0, fmt.Errorf("postgres: %q takes %d arguments, %d were given", s.query, len(s.sd.ParamOIDs), len(args))
	}
	values, err := s.args.encode(args)
	if err != nil {
		return 0, 0, fmt.Errorf("postgres: %q: %w", s.query, err)
	}
	if err := s.c.enter(ctx); err != nil {
		return 0, 0, contextError(s.query, err)
	}
	rows, affected, err = s.c.execPrepared(s.sd.Name, values)
	return rows, affected, s.c.leave(ctx, s.query, err)
}

// Exec runs the statement and reports the rows it changed.
func (s *preparedStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	_, affected, err := s.exec(ctx, args)
	return affected, err
}

// Query runs the statement, reads every row and reports how many.
func (s *preparedStmt) Query(ctx context.Context, args ...any) (int, error) {
	rows, _, err := s.exec(ctx, args)
	return rows, err
}

// Drain runs the statement as Query does: pgconn decodes no row it is not asked for.
func (s *preparedStmt) Drain(ctx context.Context, args ...any) error {
	_, _, err := s.exec(ctx, args)
	return err
}

// Close deallocates the statement on the server, unless the connection is gone.
func (s *preparedStmt) Close() error {
	if s.c.broken || s.c.pg.IsClosed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if err := s.c.pg.Deallocate(ctx, s.sd.Name); err != nil {
		return fmt.Errorf("postgres: deallocate %q: %w", s.query, err)
	}
	return nil
}

// textStmt is a statement run without server-side preparation: each call
// writes the query with its arguments as literals into a reused buffer and
// sends it over the simple query protocol (sysbench's --db-ps-mode=disable).
type textStmt struct {
	c     *Conn
	query string
	parts []string // query cut at its placeholders
	buf   []byte
	sink  rowSink // the rows of QueryRow and QueryRows
}

var _ driver.Stmt = (*textStmt)(nil)

func newTextStmt(c *Conn, query string) *textStmt {
	return &textStmt{c: c, query: query, parts: splitPlaceholders(query), buf: make([]byte, 0, len(query)+64)}
}

// exec interpolates args and runs the statement once.
func (s *textStmt) exec(ctx context.Context, args []any) (rows int, affected int64, err error) {
	s.buf, err = interpolate(s.buf[:0], s.parts, args, s.c.escapeBackslash)
	if err != nil {
		return 0, 0, fmt.Errorf("postgres: %q: %w", s.query, err)
	}
	// pgconn copies the text into its write buffer before returning from Exec,
	// and s.buf is not touched again until the next call, so no copy is needed.
	return s.c.runSimple(ctx, unsafe.String(unsafe.SliceData(s.buf), len(s.buf)), s.query)
}

// Exec runs the statement and reports the rows it changed.
func (s *textStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	_, affected, err := s.exec(ctx, args)
	return affected, err
}

// Query runs the statement, reads every row and reports how many.
func (s *textStmt) Query(ctx context.Context, args ...any) (int, error) {
	rows, _, err := s.exec(ctx, args)
	return rows, err
}

// Drain runs the statement as Query does: pgconn decodes no row it is not asked for.
func (s *textStmt) Drain(ctx context.Context, args ...any) error {
	_, _, err := s.exec(ctx, args)
	return err
}

// Close releases nothing: the statement lives only on the client.
func (s *textStmt) Close() error { return nil }
