package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Server error codes that mean the connection is gone.
const (
	erServerShutdown   = 1053 // ER_SERVER_SHUTDOWN
	erNormalShutdown   = 1077 // ER_NORMAL_SHUTDOWN
	erConnectionKilled = 1927 // ER_CONNECTION_KILLED (MariaDB)
	crServerGone       = 2006 // CR_SERVER_GONE_ERROR
	crServerLost       = 2013 // CR_SERVER_LOST
	erAccessDenied     = 1045 // ER_ACCESS_DENIED_ERROR
	erBadDB            = 1049 // ER_BAD_DB_ERROR
	// erLockDeadlock is a deadlock: the server rolled the transaction back,
	// which may be run again (pgbench's --max-tries retries it).
	erLockDeadlock = 1213 // ER_LOCK_DEADLOCK
)

// Describe classifies an error returned by this driver's connections: the
// server's error number as Code, and ConnectionLost for a connection that is
// gone (server gone or killed, shutdown, reset, EOF, broken pipe). An error
// caused by the caller's context ending is neither.
func (d *Driver) Describe(err error) driver.ErrorInfo {
	return describe(err)
}

func describe(err error) driver.ErrorInfo {
	if err == nil {
		return driver.ErrorInfo{}
	}
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		info := driver.ErrorInfo{Code: strconv.Itoa(int(me.Number))}
		switch me.Number {
		case erServerShutdown, erNormalShutdown, erConnectionKilled, crServerGone, crServerLost:
			info.ConnectionLost = true
		case erLockDeadlock:
			info.Retryable = true
		}
		return info
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return driver.ErrorInfo{}
	}
	if errors.Is(err, sqldriver.ErrBadConn) || errors.Is(err, mysqldrv.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) {
		return driver.ErrorInfo{ConnectionLost: true}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return driver.ErrorInfo{ConnectionLost: true}
	}
	return driver.ErrorInfo{}
}

// handshakeError is a failed connection attempt whose network connection was
// made: whatever answered (or kept silent) on the other end, the MySQL
// handshake failed.
type handshakeError struct{ err error }

func (e *handshakeError) Error() string { return e.err.Error() }
func (e *handshakeError) Unwrap() error { return e.err }

// timeoutError says that the server at ep did not complete a connection within
// timeout, and what to check: a server that accepted the connection and sent
// no greeting does not speak the MySQL protocol (a MySQL server greets at
// once) or is stuck; one that never accepted is unreachable.
func timeoutError(err error, ep *endpoint, timeout time.Duration) error {
	if ep.network == "unix" {
		return fmt.Errorf("mysql: no answer on socket %s within %s (the connect timeout): %w (is the server there overloaded or stuck? check --mysql-socket)", ep.addr, timeout, err)
	}
	host, port, _ := net.SplitHostPort(ep.addr)
	var he *handshakeError
	if errors.As(err, &he) {
		return fmt.Errorf("mysql: the server at %s did not speak the MySQL protocol: it accepted the connection but sent no MySQL greeting within %s (the connect timeout): %w "+
			"(is it another server, such as PostgreSQL? check that --mysql-host and --mysql-port name a MySQL server, or whether that server is stuck)", ep.addr, timeout, err)
	}
	return fmt.Errorf("mysql: no answer from host %s port %s within %s (the connect timeout): %w (check that --mysql-host and --mysql-port name a MySQL server that is running and reachable from here, and that no firewall drops the packets)", host, port, timeout, err)
}

// connectError explains a failed connection attempt in terms a user can act on.
func connectError(err error, ep *endpoint, cfg driver.Config) error {
	where := ep.addr
	if ep.network == "unix" {
		where = "socket " + ep.addr
	}
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case erAccessDenied:
			return fmt.Errorf("mysql: authentication failed for user %q at %s: %w (check --mysql-user and --mysql-password%s)", cfg.User, where, err, tlsAccountHint(cfg))
		case erBadDB:
			return fmt.Errorf("mysql: database %q does not exist at %s: %w (create it with CREATE DATABASE %s, or set --mysql-db)", cfg.Database, where, err, cfg.Database)
		}
		return fmt.Errorf("mysql: connect to %s as %q: %w", where, cfg.User, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("mysql: connect to %s: %w", where, err)
	}
	if errors.Is(err, mysqldrv.ErrInvalidConn) {
		return fmt.Errorf("mysql: the server at %s closed the connection during the handshake: %w (is it a MySQL server on that port? is the server refusing this host, or out of connections?)", where, err)
	}
	if errors.Is(err, mysqldrv.ErrNoTLS) {
		return fmt.Errorf("mysql: the server at %s does not offer TLS, which --mysql-ssl=%s requires: %w (enable TLS on the server, or use --mysql-ssl=on or off)", where, cfg.SSL, err)
	}
	if isTLSFailure(err) {
		return fmt.Errorf("mysql: TLS handshake with the server at %s failed (--mysql-ssl=%s): %w (check --mysql-ssl-ca and that the server's certificate names the host you connect to, or use a weaker --mysql-ssl)", where, cfg.SSL, err)
	}
	var he *handshakeError
	if errors.As(err, &he) {
		return fmt.Errorf("mysql: the server at %s did not speak the MySQL protocol: %w (check that --mysql-host/--mysql-port or --mysql-socket name a MySQL server)", where, err)
	}
	return fmt.Errorf("mysql: cannot reach the server at %s: %w (is it running, and are --mysql-host/--mysql-port or --mysql-socket right?)", where, err)
}

// tlsAccountHint points at the TLS flags when authentication may have failed
// because the account requires TLS (REQUIRE SSL) or a client certificate
// (REQUIRE X509) that the connection lacks.
func tlsAccountHint(cfg driver.Config) string {
	switch {
	case cfg.SSL == "" || cfg.SSL == driver.SSLOff:
		return "; an account created with REQUIRE SSL also needs --mysql-ssl=required or stricter"
	case cfg.SSLCert == "":
		return "; an account created with REQUIRE X509 also needs --mysql-ssl-cert and --mysql-ssl-key"
	}
	return ""
}

// isTLSFailure reports whether err comes from a failed TLS handshake: a server
// certificate that does not verify, or an alert or garbage from the server.
func isTLSFailure(err error) bool {
	var (
		verifyErr *tls.CertificateVerificationError
		alertErr  tls.AlertError
		recordErr tls.RecordHeaderError
		authErr   x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	return errors.As(err, &verifyErr) || errors.As(err, &alertErr) || errors.As(err, &recordErr) ||
		errors.As(err, &authErr) || errors.As(err, &hostErr) || errors.As(err, &invalid)
}

// CheckErrorCode refuses what cannot be a MySQL error number (Describe's
// Code): a whole number from 1 to 65535 ("1213"), not a name or a SQLSTATE.
func CheckErrorCode(code string) error {
	n, err := strconv.ParseUint(code, 10, 16)
	if err != nil || n == 0 {
		return fmt.Errorf("%q is not a MySQL error number: give numbers such as 1213 (deadlock) or 1205 (lock wait timeout)", code)
	}
	return nil
}
