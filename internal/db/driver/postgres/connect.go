package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/netconn"
)

// connectTimeout bounds one connection attempt, as libpq's connect_timeout does.
const connectTimeout = driver.ConnectTimeout

// defaultPort is PostgreSQL's port when the configuration names none.
const defaultPort = 5432

// socketPrefix starts the name of a PostgreSQL Unix socket inside its directory.
const socketPrefix = ".s.PGSQL."

// sslMode spells a driver.SSLMode as libpq's sslmode.
func sslMode(m driver.SSLMode) (string, error) {
	switch m {
	case "", driver.SSLOff:
		return "disable", nil
	case driver.SSLOn:
		return "prefer", nil
	case driver.SSLRequired:
		return "require", nil
	case driver.SSLVerifyCA:
		return "verify-ca", nil
	case driver.SSLVerifyFull:
		return "verify-full", nil
	}
	return "", fmt.Errorf("unknown ssl mode %q: use off, on, required, verify-ca or verify-full", m)
}

// endpoint is where connection number n goes: a TCP host and port, or a socket
// directory and the port that names the socket file in it.
type endpoint struct {
	host string // host name, IP address, or absolute socket directory
	port int
}

// String names the endpoint for error messages.
func (e endpoint) String() string {
	if strings.HasPrefix(e.host, "/") {
		return filepath.Join(e.host, socketPrefix+strconv.Itoa(e.port))
	}
	return net.JoinHostPort(e.host, strconv.Itoa(e.port))
}

// endpointOf picks the endpoint of connection number n. A socket wins over hosts
// and may be given as its directory or as the full path of the socket file.
func endpointOf(cfg *driver.Config, n int) endpoint {
	host, port := cfg.Endpoint(n)
	if port == 0 {
		port = defaultPort
	}
	if cfg.Socket == "" {
		return endpoint{host: host, port: port}
	}
	dir, file := filepath.Split(filepath.Clean(cfg.Socket))
	if p, ok := strings.CutPrefix(file, socketPrefix); ok {
		if sp, err := strconv.Atoi(p); err == nil && sp > 0 {
			return endpoint{host: filepath.Clean(dir), port: sp}
		}
	}
	return endpoint{host: filepath.Clean(cfg.Socket), port: port}
}

// connString builds a libpq keyword/value string for ep. The password is left out
// on purpose so that no parse error can ever show it; pgConfig sets it afterwards.
func connString(cfg *driver.Config, ep endpoint) (string, error) {
	mode, err := sslMode(cfg.SSL)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	quote := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	kv := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteString("='")
		b.WriteString(quote.Replace(v))
		b.WriteByte('\'')
	}
	kv("host", ep.host)
	kv("port", strconv.Itoa(ep.port))
	kv("user", cfg.User)
	kv("dbname", cfg.Database)
	kv("sslmode", mode)
	kv("sslrootcert", cfg.SSLCA)
	kv("sslcert", cfg.SSLCert)
	kv("sslkey", cfg.SSLKey)
	kv("connect_timeout", strconv.Itoa(int(max(cfg.Timeout()/time.Second, 1))))
	kv("application_name", "fairbench")
	return b.String(), nil
}

// pgConfig returns the pgconn configuration of connection number n.
func pgConfig(cfg *driver.Config, ep endpoint) (*pgconn.Config, error) {
	cs, err := connString(cfg, ep)
	if err != nil {
		return nil, err
	}
	pc, err := pgconn.ParseConfig(cs)
	if err != nil {
		return nil, fmt.Errorf("check the --pgsql-* connection flags: %w", err)
	}
	if cfg.Password != "" {
		pc.Password = cfg.Password
	}
	pc.ConnectTimeout = cfg.Timeout()
	// Blocking reads wake the worker's thread directly instead of through the
	// network poller: less client CPU per query (see package netconn).
	pc.DialFunc = netconn.Dial
	return pc, nil
}

// connect opens connection number n of cfg.
func connect(ctx context.Context, cfg *driver.Config, n int) (*Conn, error) {
	ep := endpointOf(cfg, n)
	pc, err := pgConfig(cfg, ep)
	if err != nil {
		return nil, fmt.Errorf("postgres: connection to %s: %w", ep, err)
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.Timeout())
	defer cancel()
	pg, err := pgconn.ConnectConfig(cctx, pc)
	if err != nil {
		if foreignProtocol(err) {
			// pgx's own words say nothing useful ("received unexpected message: %!w(<nil>)").
			return nil, fmt.Errorf("postgres: the server at %s did not speak the PostgreSQL protocol: it answered the start-up message with something else "+
				"(is it another server, such as MySQL? check that --pgsql-host and --pgsql-port name a PostgreSQL server)", ep)
		}
		hint := connectHint(err)
		if ctx.Err() == nil && (cctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || pgconn.Timeout(err)) {
			hint = fmt.Sprintf(" (no answer within %s, the connect timeout: check that --pgsql-host and --pgsql-port name a PostgreSQL server that is running and reachable from here, and that no firewall drops the packets)", cfg.Timeout())
		}
		return nil, fmt.Errorf("postgres: connect to %s as user %q, database %q: %w%s",
			ep, cfg.User, cfg.Database, err, hint)
	}
	c := newConn(pg, cfg.Prepared)
	if err := setupSession(cctx, c, cfg); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// setupSession applies the configuration's isolation level and session
// variables (run-time parameters, set with set_config so that no value needs
// quoting) to a new connection; connect runs it for every connection, the
// runner's reconnects included. A refusal is a *driver.SetupError carrying
// the server's message.
func setupSession(ctx context.Context, c *Conn, cfg *driver.Config) error {
	if cfg.Isolation != "" {
		if _, err := c.Exec(ctx, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+driver.IsolationSQL(cfg.Isolation)); err != nil {
			return &driver.SetupError{Setting: "--isolation-level=" + cfg.Isolation, Err: err}
		}
	}
	for _, v := range cfg.SessionVars {
		if _, err := c.QueryStrings(ctx, "SELECT set_config(?, ?, false)", v.Name, v.Value); err != nil {
			return &driver.SetupError{Setting: "--session-var=" + v.String(), Err: err}
		}
	}
	return nil
}

// foreignProtocol reports whether a failed connect met a server that answered
// in another protocol than PostgreSQL's (a MySQL server greets first).
func foreignProtocol(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "received unexpected message") || strings.Contains(msg, "unknown message type")
}

// connectHint tells a user what to do about a failed connection.
func connectHint(err error) string {
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "3D000":
		return " (create the database or fix --pgsql-db)"
	case errors.As(err, &pgErr) && pgErr.Code == "28000" && strings.Contains(pgErr.Message, "no encryption"):
		return " (the server accepts only TLS connections from here: use --pgsql-ssl=required or stricter)"
	case errors.As(err, &pgErr) && pgErr.Code == "28000" && strings.Contains(pgErr.Message, "client certificate"):
		return " (the server wants a client certificate: set --pgsql-ssl-cert and --pgsql-ssl-key)"
	case errors.As(err, &pgErr) && (pgErr.Code == "28000" || pgErr.Code == "28P01"):
		return " (check --pgsql-user and --pgsql-password, and pg_hba.conf on the server)"
	case errors.As(err, &pgErr):
		return ""
	case isTLSFailure(err):
		return " (check --pgsql-ssl-ca and that the server's certificate names the host you connect to, or use a weaker --pgsql-ssl)"
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT):
		return " (is PostgreSQL running and listening there? check --pgsql-host, --pgsql-port and --pgsql-socket)"
	case pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded):
		return " (the server did not answer in time: check the address and any firewall)"
	}
	return ""
}

// isTLSFailure reports whether err comes from a server certificate that does
// not verify.
func isTLSFailure(err error) bool {
	var (
		verifyErr *tls.CertificateVerificationError
		authErr   x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	return errors.As(err, &verifyErr) || errors.As(err, &authErr) || errors.As(err, &hostErr) || errors.As(err, &invalid)
}
