package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// errUnusable is returned by calls on a connection that an earlier call left
// closed or interrupted.
var errUnusable = errors.New("connection is closed after an earlier failure or interruption: reconnect")

// lostError marks an error after which pgconn closed the connection.
type lostError struct{ err error }

func (e *lostError) Error() string { return e.err.Error() }
func (e *lostError) Unwrap() error { return e.err }

// Describe classifies an error returned by a Conn or Stmt of this driver: Code is
// the SQLSTATE of a server error, and ConnectionLost is set for errors after which
// the connection is gone (socket errors, SQLSTATE class 08, administrator
// shutdown 57P01–57P03). An error caused by the caller's context ending is
// neither, so that the runner does not reconnect after its own deadline.
func (d *Driver) Describe(err error) driver.ErrorInfo {
	var info driver.ErrorInfo
	if err == nil {
		return info
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		info.Code = pgErr.Code
		info.Retryable = pgErr.Code == "40001" || pgErr.Code == "40P01" // serialization_failure, deadlock_detected
		if sqlStateMeansLost(pgErr.Code) {
			info.ConnectionLost = true
			return info
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return info
	}
	info.ConnectionLost = info.ConnectionLost || errorMeansLost(err)
	return info
}

// sqlStateMeansLost reports whether a SQLSTATE says the session is over.
func sqlStateMeansLost(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
		return true
	}
	return strings.HasPrefix(code, "08") // connection exception
}

// errorMeansLost reports whether a client-side error means the connection is gone.
func errorMeansLost(err error) bool {
	var lost *lostError
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &lost),
		errors.Is(err, errUnusable),
		errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &opErr),
		errors.As(err, &netErr):
		return true
	}
	return false
}

// CheckErrorCode refuses what cannot be a SQLSTATE (Describe's Code): five
// digits or capital letters ("40P01"), not a condition name or a number of
// another length.
func CheckErrorCode(code string) error {
	ok := len(code) == 5
	for _, r := range code {
		ok = ok && (r >= '0' && r <= '9' || r >= 'A' && r <= 'Z')
	}
	if !ok {
		return fmt.Errorf("%q is not a PostgreSQL SQLSTATE: give five-character codes such as 40P01 (deadlock) or 40001 (serialization failure)", code)
	}
	return nil
}
