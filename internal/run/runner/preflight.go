package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Files a connection keeps open: a socket for a server; the database file, its
// journal or WAL and the shared-memory index for SQLite.
const (
	filesPerServerConn = 1
	filesPerSQLiteConn = 3
	// filesSpare covers what the process opens besides connections (the
	// binary, standard streams, the result file, the poller, a profile).
	filesSpare = 64
)

// Preflight checks, before any worker connects, that a run of threads
// connections fits the limits it will meet, and says what to raise when it does
// not: the process's open file limit (raised to the hard limit here when that is
// enough) and the server's max_connections minus the connections already open
// (MySQL also max_user_connections). It opens one connection to read the
// server's limits; a limit it cannot read is not checked.
func Preflight(ctx context.Context, drv driver.Driver, threads int) error {
	perConn := filesPerServerConn
	if drv.Kind() == driver.KindSQLite {
		perConn = filesPerSQLiteConn
	}
	errFiles := raiseFileLimit(threads*perConn + filesSpare)
	if drv.Kind() == driver.KindSQLite {
		return errFiles
	}
	conn, err := drv.Connect(ctx, 0)
	if err != nil {
		return errors.Join(errFiles, fmt.Errorf("preflight: connect: %w", err))
	}
	defer conn.Close()
	var lim serverLimits
	switch drv.Kind() {
	case driver.KindMySQL:
		lim = mysqlLimits(ctx, conn)
	case driver.KindPgSQL:
		lim = pgsqlLimits(ctx, conn)
	}
	return errors.Join(errFiles, lim.check(drv.Kind(), threads))
}

// raiseFileLimit makes sure the process may open need files: it raises the soft
// RLIMIT_NOFILE up to the hard one when that is enough (Go already does so at
// start-up on Linux since 1.19, so this rarely has work) and otherwise says how
// to raise the hard limit.
func raiseFileLimit(need int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // unknown: nothing to check against
	}
	want := uint64(need)
	if lim.Cur >= want {
		return nil
	}
	if lim.Max >= want {
		raised := lim
		raised.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err == nil {
			return nil
		}
	}
	return fmt.Errorf("the open file limit is %d (hard limit %d) but the run needs about %d open files: "+
		"raise it with 'ulimit -n %d' in the shell that starts fairbench (raising the hard limit needs root, "+
		"or nofile in /etc/security/limits.conf, or LimitNOFILE= in a systemd unit), or run fewer threads",
		lim.Cur, lim.Max, need, need)
}

// serverLimits are a server's connection limits as read by preflight; zero
// fields are unknown or unlimited.
type serverLimits struct {
	maxConnections int
	// maxUserConnections is MySQL's per-account limit (0: none).
	maxUserConnections int
	// inUse is the number of client connections open, preflight's own excluded.
	inUse int
	// reserved are the connection slots this user may not take (PostgreSQL's
	// superuser_reserved_connections for a user that is not a superuser).
	reserved int
}

// check says what to raise when threads more connections do not fit.
func (l serverLimits) check(kind string, threads int) error {
	var errs []error
	if l.maxConnections > 0 {
		free := l.maxConnections - l.reserved - l.inUse
		if threads > free {
			want := threads + l.inUse + l.reserved + 10
			fix := fmt.Sprintf("SET GLOBAL max_connections = %d (and max_connections = %d in the server's configuration file, to keep it after a restart)", want, want)
			if kind == driver.KindPgSQL {
				fix = fmt.Sprintf("ALTER SYSTEM SET max_connections = %d and restart the server (this setting takes effect only at start-up)", want)
			}
			detail := fmt.Sprintf("max_connections = %d", l.maxConnections)
			if l.reserved > 0 {
				detail += fmt.Sprintf(", %d reserved for superusers", l.reserved)
			}
			if l.inUse > 0 {
				detail += fmt.Sprintf(", %d already in use", l.inUse)
			}
			errs = append(errs, fmt.Errorf("%d threads need %d connections but the server has room for %d (%s): raise it with %s, or run fewer threads",
				threads, threads, max(free, 0), detail, fix))
		}
	}
	if l.maxUserConnections > 0 && threads > l.maxUserConnections {
		errs = append(errs, fmt.Errorf("%d threads need %d connections but the server allows max_user_connections = %d per account: raise it with SET GLOBAL max_user_connections = %d (or 0 for no limit), or run fewer threads",
			threads, threads, l.maxUserConnections, threads+10))
	}
	return errors.Join(errs...)
}

// mysqlLimits reads a MySQL-protocol server's limits; what it cannot read stays zero.
func mysqlLimits(ctx context.Context, conn driver.Conn) serverLimits {
	var l serverLimits
	if row := firstRow(ctx, conn, "SELECT @@max_connections, @@max_user_connections"); len(row) == 2 {
		l.maxConnections, _ = strconv.Atoi(row[0])
		l.maxUserConnections, _ = strconv.Atoi(row[1])
	}
	if row := firstRow(ctx, conn, "SHOW GLOBAL STATUS LIKE 'Threads_connected'"); len(row) == 2 {
		if n, err := strconv.Atoi(row[1]); err == nil {
			l.inUse = max(n-1, 0)
		}
	}
	return l
}

// pgsqlLimits reads a PostgreSQL server's limits; what it cannot read stays zero.
func pgsqlLimits(ctx context.Context, conn driver.Conn) serverLimits {
	var l serverLimits
	row := firstRow(ctx, conn, "SELECT current_setting('max_connections'), current_setting('superuser_reserved_connections'), "+
		"current_setting('is_superuser'), (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')")
	if len(row) != 4 {
		return l
	}
	l.maxConnections, _ = strconv.Atoi(row[0])
	if strings.TrimSpace(row[2]) != "on" {
		l.reserved, _ = strconv.Atoi(row[1])
	}
	if n, err := strconv.Atoi(row[3]); err == nil {
		l.inUse = max(n-1, 0)
	}
	return l
}

// firstRow returns the first row of a metadata query, nil when it fails.
func firstRow(ctx context.Context, conn driver.Conn, query string) []string {
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil || len(rows) == 0 {
		return nil
	}
	return rows[0]
}
