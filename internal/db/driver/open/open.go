// Package open turns a validated driver.Config into the Driver of its kind. It is
// the one place that knows every driver package.
package open

import (
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/dryrun"
	"github.com/fairbench/fairbench/internal/db/driver/mysql"
	"github.com/fairbench/fairbench/internal/db/driver/postgres"
	"github.com/fairbench/fairbench/internal/db/driver/sqlite"
)

// Kinds lists the values --db-driver accepts.
func Kinds() []string { return []string{driver.KindMySQL, driver.KindPgSQL, driver.KindSQLite} }

// Driver returns the driver for cfg.Kind; with cfg.DryRun, that driver
// wrapped by dryrun, whose connections reach no server.
func Driver(cfg driver.Config) (driver.Driver, error) {
	if cfg.DryRun {
		if cfg.Kind != driver.KindMySQL {
			return nil, fmt.Errorf("a dry run (--mysql-dry-run) is for the MySQL driver, not %s: give --db-driver=mysql", cfg.Kind)
		}
		d, err := mysql.New(cfg)
		if err != nil {
			return nil, err
		}
		return dryrun.Wrap(d), nil
	}
	switch cfg.Kind {
	case driver.KindMySQL:
		return mysql.New(cfg)
	case driver.KindPgSQL:
		return postgres.New(cfg)
	case driver.KindSQLite:
		return sqlite.New(cfg)
	}
	return nil, fmt.Errorf("unknown --db-driver %q: use mysql, pgsql or sqlite", cfg.Kind)
}

// Dialect returns the SQL dialect of kind without opening a driver (which,
// for SQLite, creates the database's directory): for commands that only
// write SQL, such as prepare tpcc --output-dir.
func Dialect(kind string) (driver.Dialect, error) {
	switch kind {
	case driver.KindMySQL:
		return mysql.Dialect{}, nil
	case driver.KindPgSQL:
		return postgres.Dialect{}, nil
	case driver.KindSQLite:
		return sqlite.Dialect{}, nil
	}
	return nil, fmt.Errorf("unknown --db-driver %q: use mysql, pgsql or sqlite", kind)
}

// ErrorCodeCheck returns the check of an --*-ignore-errors code for kind:
// each driver knows the shape of the codes its errors carry (a MySQL number,
// a PostgreSQL SQLSTATE, an SQLite result code name). Nil for an unknown kind.
func ErrorCodeCheck(kind string) func(code string) error {
	switch kind {
	case driver.KindMySQL:
		return mysql.CheckErrorCode
	case driver.KindPgSQL:
		return postgres.CheckErrorCode
	case driver.KindSQLite:
		return sqlite.CheckErrorCode
	}
	return nil
}
