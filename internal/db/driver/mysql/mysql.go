// Package mysql is the fairbench driver for MySQL-protocol servers (MySQL, MariaDB,
// Percona Server, TiDB …). It works below database/sql, directly on the
// database/sql/driver connections of go-sql-driver/mysql: a worker owns one
// connection, statements are executed without per-call contexts or pooling, and
// rows are counted into one reused destination slice, so the client spends as
// little CPU per query as sysbench's C client.
//
// Affected rows are "changed rows", as the mysql command-line client and sysbench
// report them: the client does not set CLIENT_FOUND_ROWS, so an UPDATE that
// matches a row but leaves it unchanged reports 0.
package mysql

import (
	"context"
	"errors"
	"os"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// bulkMode selects how BulkInsert loads rows.
type bulkMode int

const (
	// bulkLoadData streams rows with LOAD DATA LOCAL INFILE and falls back to
	// multi-row INSERTs when the server refuses local infile.
	bulkLoadData bulkMode = iota
	// bulkInsert always sends multi-row INSERT statements.
	bulkInsert
)

// Driver opens connections to one MySQL-protocol target. It is safe for
// concurrent use by several goroutines.
type Driver struct {
	cfg       driver.Config
	endpoints []endpoint
	bulk      bulkMode
}

// New validates cfg and returns a Driver for it. It opens no connection.
func New(cfg driver.Config) (driver.Driver, error) {
	return newDriver(cfg)
}

func newDriver(cfg driver.Config) (*Driver, error) {
	if cfg.User == "" {
		cfg.User = "root"
	}
	tlsCfg, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	eps, err := buildEndpoints(cfg, tlsCfg)
	if err != nil {
		return nil, err
	}
	return &Driver{cfg: cfg, endpoints: eps, bulk: bulkLoadData}, nil
}

// Kind returns driver.KindMySQL.
func (d *Driver) Kind() string { return driver.KindMySQL }

// Dialect returns the MySQL dialect.
func (d *Driver) Dialect() driver.Dialect { return Dialect{} }

// Connect opens connection number n; n picks the host round-robin (the socket,
// when configured, serves every connection).
func (d *Driver) Connect(ctx context.Context, n int) (driver.Conn, error) {
	if n < 0 {
		n = -n
	}
	ep := &d.endpoints[n%len(d.endpoints)]
	// The dial alone is bounded by the connector's Timeout; a server that
	// accepts and then says nothing would hold the handshake for ever.
	cctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout())
	defer cancel()
	c, err := dial(cctx, ep, d.bulk, d.cfg.Prepared)
	if err != nil {
		if ctx.Err() == nil && (cctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)) {
			return nil, timeoutError(err, ep, d.cfg.Timeout())
		}
		return nil, connectError(err, ep, d.cfg)
	}
	if err := setupSession(cctx, c, &d.cfg); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// DefaultIgnorable returns the MySQL error codes sysbench ignores by default:
// deadlock (1213), record changed since last read (1020) and lock wait
// timeout (1205).
func (d *Driver) DefaultIgnorable() []string { return []string{"1213", "1020", "1205"} }

// Close releases nothing: every connection is owned and closed by its worker.
func (d *Driver) Close() error { return nil }
