// Package sqlite is the fairbench driver for an embedded SQLite database file
// (modernc.org/sqlite, pure Go, so the binary stays CGO-free). Like the server
// drivers it works below database/sql: each worker owns one connection to the
// file, statements are prepared once and stepped directly, and rows are counted
// into one reused destination slice.
//
// Every connection runs with journal_mode=WAL, synchronous=NORMAL,
// busy_timeout=10000 and foreign_keys=OFF: the configuration most embedded
// applications use for concurrent readers and one writer at a time, durable
// across application crashes (not power loss between checkpoints), with the
// same integrity work as the server targets (sysbench's schema has no foreign
// keys). A writer that cannot get the lock within 10 s gets SQLITE_BUSY, which,
// like SQLITE_LOCKED, is ignorable by default: the embedded analogue of a
// deadlock or lock wait timeout.
package sqlite

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	modsqlite "modernc.org/sqlite"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// pragmas run on every new connection, busy_timeout first so that switching to
// WAL waits for a concurrent opener where SQLite calls the busy handler. It does
// not always: two connections switching a new file to WAL at once can get
// SQLITE_BUSY at once, so Connect runs the pragmas one connection at a time
// within the process and retries a busy one (another process) until
// pragmaBusyWait has passed.
var pragmas = [...]string{
	"PRAGMA busy_timeout=10000",
	"PRAGMA journal_mode=WAL",
	"PRAGMA synchronous=NORMAL",
	"PRAGMA foreign_keys=OFF",
}

// Driver opens connections to one SQLite database file. It is safe for
// concurrent use.
type Driver struct {
	cfg       driver.Config
	connector sqldriver.Connector
	// pragmaMu makes the threads of one run set up their connections one at
	// a time (see pragmas).
	pragmaMu sync.Mutex
}

// pragmaBusyWait is how long Connect retries a pragma that gets SQLITE_BUSY:
// the busy timeout the connection is given.
const pragmaBusyWait = 10 * time.Second

// New validates cfg, creates the directory of cfg.Path when it is missing, and
// returns a Driver. It opens no connection.
func New(cfg driver.Config) (driver.Driver, error) {
	return newDriver(cfg)
}

func newDriver(cfg driver.Config) (*Driver, error) {
	if cfg.Path == "" {
		return nil, errors.New("sqlite: no database file given: set the SQLite database path")
	}
	if err := checkSession(&cfg); err != nil {
		return nil, err
	}
	if dir := filepath.Dir(cfg.Path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create directory for database %s: %w (choose a writable path)", cfg.Path, err)
		}
	}
	conn, err := modsqlite.NewConnector(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: database path %q: %w", cfg.Path, err)
	}
	return &Driver{cfg: cfg, connector: conn}, nil
}

// Kind returns driver.KindSQLite.
func (d *Driver) Kind() string { return driver.KindSQLite }

// Dialect returns the SQLite dialect.
func (d *Driver) Dialect() driver.Dialect { return Dialect{} }

// Connect opens a new connection to the database file (n is only used to
// satisfy the interface: every connection goes to the same file).
func (d *Driver) Connect(ctx context.Context, n int) (driver.Conn, error) {
	raw, err := d.connector.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w (check that the path is writable)", d.cfg.Path, err)
	}
	c, err := newConn(raw, d.cfg.Prepared)
	if err != nil {
		raw.Close()
		return nil, err
	}
	if err := d.runPragmas(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	if err := setupSession(ctx, c, &d.cfg); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// runPragmas runs pragmas on c, one connection of d at a time, retrying a
// pragma that gets SQLITE_BUSY until pragmaBusyWait has passed or ctx ends.
func (d *Driver) runPragmas(ctx context.Context, c *conn) error {
	d.pragmaMu.Lock()
	defer d.pragmaMu.Unlock()
	for _, p := range pragmas {
		deadline := time.Now().Add(pragmaBusyWait)
		for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
			_, err := c.Exec(ctx, p)
			if err == nil {
				break
			}
			if d.Describe(err).Code != "SQLITE_BUSY" || time.Now().After(deadline) {
				return fmt.Errorf("sqlite: %s on %s: %w", p, d.cfg.Path, err)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("sqlite: %s on %s: %w", p, d.cfg.Path, ctx.Err())
			case <-time.After(wait):
			}
		}
	}
	return nil
}

// DefaultIgnorable returns SQLITE_BUSY and SQLITE_LOCKED.
func (d *Driver) DefaultIgnorable() []string { return []string{"SQLITE_BUSY", "SQLITE_LOCKED"} }

// Close releases nothing: every connection is owned and closed by its worker.
func (d *Driver) Close() error { return nil }
