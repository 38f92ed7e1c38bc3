// Package driver is the boundary between fairbench and a database: a Driver opens
// Conns to one target, a Conn runs statements, and a Dialect holds every SQL
// difference between targets so that workloads contain no database-specific branches.
//
// The interfaces are deliberately narrow and sit below database/sql: a benchmark
// worker owns exactly one connection, so pooling, per-call contexts and row
// scanning into Go values would only add allocations to the measured path.
package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ConnectTimeout bounds one connection attempt of the network drivers: the
// dial, the TLS and protocol handshakes and authentication. A server that does
// not answer within it is reported as unreachable, naming the address and the
// timeout.
const ConnectTimeout = 10 * time.Second

// Kind names a driver as the --db-driver flag spells it.
const (
	KindMySQL  = "mysql"
	KindPgSQL  = "pgsql"
	KindSQLite = "sqlite"
)

// SSLMode is the TLS policy of a server connection, spelled as sysbench spells it.
type SSLMode string

// The TLS policies a connection may ask for.
const (
	SSLOff        SSLMode = "off"         // plain TCP
	SSLOn         SSLMode = "on"          // TLS when the server offers it
	SSLRequired   SSLMode = "required"    // TLS, certificate not verified
	SSLVerifyCA   SSLMode = "verify-ca"   // TLS, certificate chain verified against --*-ssl-ca
	SSLVerifyFull SSLMode = "verify-full" // TLS, chain and host name verified
)

// SSLModes are the TLS policies by their canonical names, in order of strictness.
func SSLModes() []SSLMode {
	return []SSLMode{SSLOff, SSLOn, SSLRequired, SSLVerifyCA, SSLVerifyFull}
}

// ParseSSLMode validates a --mysql-ssl / --pgsql-ssl value.
func ParseSSLMode(s string) (SSLMode, error) {
	switch m := SSLMode(strings.ToLower(strings.TrimSpace(s))); m {
	case SSLOff, SSLOn, SSLRequired, SSLVerifyCA, SSLVerifyFull:
		return m, nil
	case "", "disable", "disabled", "false":
		return SSLOff, nil
	case "true", "preferred":
		return SSLOn, nil
	}
	return "", fmt.Errorf("unknown ssl mode %q: use off, on, required, verify-ca or verify-full", s)
}

// Config is everything needed to reach one target. It is built once from flags,
// validated, and passed down; Password is never serialised.
type Config struct {
	Kind     string   `json:"driver"`
	Hosts    []string `json:"hosts,omitempty"`  // connections are spread over them round-robin
	Ports    []int    `json:"ports,omitempty"`  // one port for all hosts, or one per host
	Socket   string   `json:"socket,omitempty"` // Unix socket; wins over Hosts when set
	User     string   `json:"user,omitempty"`
	Password string   `json:"-"`
	Database string   `json:"database,omitempty"`

	SSL     SSLMode `json:"ssl,omitempty"`
	SSLCA   string  `json:"ssl_ca,omitempty"`
	SSLCert string  `json:"ssl_cert,omitempty"`
	SSLKey  string  `json:"ssl_key,omitempty"`
	// SSLCipher is MySQL's --mysql-ssl-cipher: the TLS 1.2 cipher suites
	// allowed, ':'-separated, OpenSSL's names; a connection given it is held
	// to TLS 1.2 ("" lets Go's TLS choose, TLS 1.3 included).
	SSLCipher string `json:"ssl_cipher,omitempty"`
	// Compression asks a MySQL server for protocol compression (zlib), as
	// --mysql-compression=on.
	Compression bool `json:"compression,omitempty"`
	// DryRun is MySQL's --mysql-dry-run: no server is contacted, every
	// call succeeds with no rows (package dryrun), so that a run measures
	// the client alone.
	DryRun bool `json:"dry_run,omitempty"`

	// Path is the SQLite database file.
	Path string `json:"path,omitempty"`

	// Prepared selects server-side prepared statements (sysbench's default);
	// false sends every statement as text with the arguments interpolated by the client.
	Prepared bool `json:"prepared"`

	// Isolation is the transaction isolation level every connection sets
	// before it is used, and again after a reconnect (ParseIsolation's
	// names); "" leaves the server's default.
	Isolation string `json:"isolation,omitempty"`
	// SessionVars are set, in order, on every connection before it is used,
	// and again after a reconnect.
	SessionVars []SessionVar `json:"session_vars,omitempty"`

	// ConnectTimeout bounds one connection attempt (0: ConnectTimeout).
	ConnectTimeout time.Duration `json:"-"`
}

// Timeout returns how long one connection attempt may take.
func (c *Config) Timeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return ConnectTimeout
}

// Endpoint returns host and port of connection number n (round-robin over Hosts;
// Ports has either one entry for all hosts or one per host).
func (c *Config) Endpoint(n int) (host string, port int) {
	if len(c.Hosts) > 0 {
		i := n % len(c.Hosts)
		host = c.Hosts[i]
		if len(c.Ports) == len(c.Hosts) {
			return host, c.Ports[i]
		}
	}
	if len(c.Ports) > 0 {
		if len(c.Hosts) == 0 {
			port = c.Ports[n%len(c.Ports)]
		} else {
			port = c.Ports[0]
		}
	}
	return host, port
}

// Driver opens connections to one configured target.
type Driver interface {
	// Kind is KindMySQL, KindPgSQL or KindSQLite.
	Kind() string
	// Dialect returns the SQL differences of this target.
	Dialect() Dialect
	// Connect opens connection number n; n picks the host round-robin.
	Connect(ctx context.Context, n int) (Conn, error)
	// Describe classifies an error returned by a Conn or Stmt of this driver.
	Describe(err error) ErrorInfo
	// DefaultIgnorable lists the error codes that sysbench ignores by default for
	// this driver (the event is rolled back and counted).
	DefaultIgnorable() []string
	// Close releases what the driver holds (for SQLite: the database handle).
	Close() error
}

// ErrorInfo says what an error means to the runner.
type ErrorInfo struct {
	// Code is the server's error code as users know it: "1213", "40P01", "SQLITE_BUSY".
	// Empty when the error did not come from the server.
	Code string
	// ConnectionLost is true when the connection is gone (2006, 2013, broken pipe,
	// admin shutdown …); the runner reconnects and re-runs the event.
	ConnectionLost bool
	// Retryable is true for a serialization failure or a deadlock: the
	// transaction was rolled back by the server and can be run again as it
	// was (pgbench's --max-tries): PostgreSQL 40001 and 40P01, MySQL 1213
	// (deadlock), SQLite SQLITE_BUSY.
	Retryable bool
}

// Conn is one connection, used by one goroutine at a time. Queries use '?'
// placeholders; the driver rebinds them for its server.
type Conn interface {
	// Prepare returns a statement for repeated execution. With Config.Prepared it is a
	// server-side prepared statement; otherwise the driver interpolates arguments
	// into the text on each call.
	Prepare(ctx context.Context, query string) (Stmt, error)
	// Exec runs a statement that returns no rows and reports the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a statement, reads every row it returns and reports how many.
	Query(ctx context.Context, query string, args ...any) (int, error)
	// QueryStrings runs a statement and returns its rows as text (NULL as "").
	// It is for small metadata queries, never for the measured path.
	QueryStrings(ctx context.Context, query string, args ...any) ([][]string, error)
	// QueryColumns runs a statement and returns the names of its result's
	// columns and its rows as text (NULL as ""): what pgbench's \gset and
	// \aset store. Like QueryStrings, it is not for the measured path of a
	// workload that needs no names.
	QueryColumns(ctx context.Context, query string, args ...any) (columns []string, rows [][]string, err error)
	// BulkInsert loads rows into table as fast as this target allows (COPY, LOAD DATA,
	// large multi-row INSERTs, or one transaction of prepared inserts) and returns the
	// number of rows loaded.
	BulkInsert(ctx context.Context, table string, columns []string, rows RowSource) (int64, error)
	// Close closes the connection.
	Close() error
}

// FrozenBulkInserter is a Conn whose bulk load can write rows already frozen
// (PostgreSQL's COPY … FREEZE): visible to every later transaction, so that
// a VACUUM after the load has little left to do. It is legal only into a
// table created or truncated in the connection's current transaction (begun
// with Exec of the Dialect's Begin), and not into a partitioned table.
type FrozenBulkInserter interface {
	BulkInsertFrozen(ctx context.Context, table string, columns []string, rows RowSource) (int64, error)
}

// Stmt is a statement bound to one Conn.
type Stmt interface {
	// Exec runs the statement and reports the rows it changed.
	Exec(ctx context.Context, args ...any) (int64, error)
	// Query runs the statement, reads every row and reports how many.
	Query(ctx context.Context, args ...any) (int, error)
	// Drain runs the statement and receives every row without decoding it, as
	// sysbench does with a SELECT (it stores the result and never reads it):
	// the server's work is Query's, the client's the least there is.
	Drain(ctx context.Context, args ...any) error
	// QueryRow runs the statement and scans the first row's columns into dest
	// (*int64, *float64, *string, *[]byte, *time.Time, *bool; NULL leaves zero values)
	// and reports whether there was a row; remaining rows are read and discarded.
	QueryRow(ctx context.Context, dest []any, args ...any) (bool, error)
	// QueryRows runs the statement and calls fn for every row with the columns scanned into dest as QueryRow does.
	QueryRows(ctx context.Context, dest []any, fn func() error, args ...any) (int, error)
	// Close releases the statement.
	Close() error
}

// RowSource yields the rows of a bulk load. Values returns one value per column:
// int64, float64, string, []byte, time.Time or nil. The slice may be reused by the
// next call to Next. Its method set matches pgx.CopyFromSource.
type RowSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// ErrTableMissing is wrapped by errors that report a table the workload needs but
// the database lacks.
var ErrTableMissing = errors.New("table missing")

// Describe names the target for messages, without credentials:
// "mysql://sbtest@127.0.0.1:3306/sbtest" or "sqlite:fairbench-data/fairbench.db".
func (cfg Config) Describe() string {
	if cfg.Kind == KindSQLite {
		return "sqlite:" + cfg.Path
	}
	where := cfg.Socket
	if where == "" {
		parts := make([]string, len(cfg.Hosts))
		for i := range cfg.Hosts {
			h, p := cfg.Endpoint(i)
			parts[i] = fmt.Sprintf("%s:%d", h, p)
		}
		where = strings.Join(parts, ",")
	}
	return fmt.Sprintf("%s://%s@%s/%s", cfg.Kind, cfg.User, where, cfg.Database)
}
