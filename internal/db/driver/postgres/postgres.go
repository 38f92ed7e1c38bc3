// Package postgres is fairbench's PostgreSQL driver. It works directly on
// jackc/pgx's wire-protocol layer (pgconn) so that the measured path of a run
// costs the client as little as the server allows: server-side prepared
// statements take their arguments as text from per-statement buffers, result rows
// are counted without being copied, and unprepared statements are interpolated
// into a reused buffer and sent over the simple query protocol, as sysbench's
// --db-ps-mode=disable does.
package postgres

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Driver opens connections to one PostgreSQL target. It holds no connection
// itself; every Conn it returns is independent of the others.
type Driver struct {
	cfg     driver.Config
	dialect Dialect
}

// New returns the PostgreSQL driver for cfg. It validates cfg but does not
// connect; Connect does.
func New(cfg driver.Config) (driver.Driver, error) {
	if cfg.Socket == "" && len(cfg.Hosts) == 0 {
		return nil, fmt.Errorf("postgres: no host and no socket given: set --pgsql-host (and --pgsql-port) or --pgsql-socket")
	}
	if cfg.SSL != "" {
		if _, err := sslMode(cfg.SSL); err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
	}
	cfg.Hosts = append([]string(nil), cfg.Hosts...)
	cfg.Ports = append([]int(nil), cfg.Ports...)
	return &Driver{cfg: cfg}, nil
}

// Kind returns driver.KindPgSQL.
func (d *Driver) Kind() string { return driver.KindPgSQL }

// Dialect returns the PostgreSQL dialect.
func (d *Driver) Dialect() driver.Dialect { return d.dialect }

// Connect opens connection number n; n picks the host round-robin.
func (d *Driver) Connect(ctx context.Context, n int) (driver.Conn, error) {
	c, err := connect(ctx, &d.cfg, n)
	if err != nil {
		return nil, err // a nil interface, not a nil *Conn in one
	}
	return c, nil
}

// DefaultIgnorable lists the SQLSTATEs sysbench's pgsql driver ignores by
// default: deadlock detected, serialization failure and unique violation.
func (d *Driver) DefaultIgnorable() []string {
	return []string{"40P01", "40001", "23505"}
}

// Close releases nothing: a PostgreSQL driver holds no shared resource.
func (d *Driver) Close() error { return nil }
