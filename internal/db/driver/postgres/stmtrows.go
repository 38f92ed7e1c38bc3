package postgres

import (
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// rowSink receives the data rows of one call: it scans them into dest and
// calls fn after each (only the first row when first is set).
type rowSink struct {
	dest  []any
	fn    func() error
	first bool
	rows  int   // rows scanned
	err   error // the first scan or fn error; later rows are discarded
}

// take handles one data row.
func (k *rowSink) take(values [][]byte) {
	if k.err != nil || (k.first && k.rows > 0) {
		return
	}
	k.rows++
	if k.err = scanRow(k.dest, values); k.err == nil && k.fn != nil {
		k.err = k.fn()
	}
}

// QueryRow runs the statement, scans the first row into dest and reports
// whether there was one; further rows are read and discarded.
func (s *preparedStmt) QueryRow(ctx context.Context, dest []any, args ...any) (bool, error) {
	s.sink = rowSink{dest: dest, first: true}
	err := s.scan(ctx, args)
	return s.sink.rows > 0, err
}

// QueryRows runs the statement and calls fn after scanning each row into dest;
// it returns the number of rows. An error from fn stops the scanning (the
// remaining rows are read and discarded) and is returned.
func (s *preparedStmt) QueryRows(ctx context.Context, dest []any, fn func() error, args ...any) (int, error) {
	s.sink = rowSink{dest: dest, fn: fn}
	err := s.scan(ctx, args)
	return s.sink.rows, err
}

// scan binds args and runs the statement once, handing its rows to s.sink.
func (s *preparedStmt) scan(ctx context.Context, args []any) error {
	defer s.release()
	if len(args) != len(s.sd.ParamOIDs) {
		return fmt.Errorf("postgres: %q takes %d arguments, %d were given", s.query, len(s.sd.ParamOIDs), len(args))
	}
	values, err := s.args.encode(args)
	if err != nil {
		return fmt.Errorf("postgres: %q: %w", s.query, err)
	}
	if err := s.c.enter(ctx); err != nil {
		return contextError(s.query, err)
	}
	w := &s.c.wire
	w.bind.PreparedStatement = s.sd.Name
	w.bind.Parameters = values
	w.fe.SendBind(&w.bind)
	w.bind.Parameters = nil
	w.fe.SendExecute(&w.exec)
	w.fe.SendSync(&w.sync)
	err = s.c.roundTripRows(&s.sink)
	return s.c.leave(ctx, s.query, err)
}

// release drops the references to the caller's destinations and function.
func (s *preparedStmt) release() { s.sink.dest, s.sink.fn = nil, nil }

// QueryRow runs the statement, scans the first row into dest and reports
// whether there was one; further rows are read and discarded.
func (s *textStmt) QueryRow(ctx context.Context, dest []any, args ...any) (bool, error) {
	s.sink = rowSink{dest: dest, first: true}
	err := s.scan(ctx, args)
	return s.sink.rows > 0, err
}

// QueryRows runs the statement and calls fn after scanning each row into dest;
// it returns the number of rows. An error from fn stops the scanning (the
// remaining rows are read and discarded) and is returned.
func (s *textStmt) QueryRows(ctx context.Context, dest []any, fn func() error, args ...any) (int, error) {
	s.sink = rowSink{dest: dest, fn: fn}
	err := s.scan(ctx, args)
	return s.sink.rows, err
}

// scan interpolates args and runs the statement over the simple query
// protocol, handing its rows to s.sink.
func (s *textStmt) scan(ctx context.Context, args []any) (err error) {
	defer func() { s.sink.dest, s.sink.fn = nil, nil }()
	s.buf, err = interpolate(s.buf[:0], s.parts, args, s.c.escapeBackslash)
	if err != nil {
		return fmt.Errorf("postgres: %q: %w", s.query, err)
	}
	if err := s.c.enter(ctx); err != nil {
		return contextError(s.query, err)
	}
	w := &s.c.wire
	// pgconn copies the text into its write buffer, so s.buf needs no copy.
	w.query.String = unsafe.String(unsafe.SliceData(s.buf), len(s.buf))
	w.fe.SendQuery(&w.query)
	w.query.String = ""
	err = s.c.roundTripRows(&s.sink)
	return s.c.leave(ctx, s.query, err)
}

// roundTripRows is roundTrip for statements whose rows are wanted: it sends
// the queued messages and reads the answers up to ReadyForQuery, handing each
// data row to sink while its values are valid. A server error is returned once
// the server is ready again, then a scan error; an I/O error or a FATAL server
// error loses the connection.
func (c *Conn) roundTripRows(sink *rowSink) error {
	fe := c.wire.fe
	if err := fe.Flush(); err != nil {
		return c.lose(err)
	}
	var pgErr *pgconn.PgError
	for {
		msg, err := fe.Receive()
		if err != nil {
			return c.lose(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			sink.take(m.Values)
		case *pgproto3.ErrorResponse:
			if pgErr == nil {
				pgErr = pgconn.ErrorResponseToPgError(m)
			}
			if strings.EqualFold(m.Severity, "FATAL") {
				return c.lose(pgErr)
			}
		case *pgproto3.ReadyForQuery:
			if pgErr != nil {
				return pgErr
			}
			return sink.err
		}
	}
}
