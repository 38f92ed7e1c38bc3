// Package dryrun is sysbench's --mysql-dry-run: a driver whose connections
// answer every call with success and no rows, without a server and without
// any network, so that a run measures the client alone — the workload's
// statement generation, its random numbers and parameters, the runner's
// timing and histograms — as sysbench's dry run "pretends that all MySQL
// client API calls are successful without executing them".
//
// It wraps the driver of the target (whose Kind, Dialect, DefaultIgnorable
// and Describe it keeps, so that the statements are those of the target's
// dialect) and never calls its Connect. The measured path allocates nothing:
// connections and statements are empty values, and each call returns at once.
// Statements are not encoded for the wire: with server-side prepared
// statements (the default) sysbench's dry run skips that too, as it never
// calls mysql_stmt_execute; with --db-ps-mode=disable sysbench still builds
// each statement's text, which this driver does not (the workload's own
// text statements, oltp_insert's, are built as usual).
package dryrun

import (
	"context"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Wrap returns d whose connections are dry: Connect never reaches d's
// server, every statement succeeds, changes no rows and returns none.
func Wrap(d driver.Driver) driver.Driver { return dryDriver{Driver: d} }

type dryDriver struct {
	driver.Driver
}

// Connect returns a dry connection at once.
func (dryDriver) Connect(context.Context, int) (driver.Conn, error) { return conn{}, nil }

// conn is a dry connection: an empty value, so that neither it nor its
// statements cost an allocation.
type conn struct{}

func (conn) Prepare(context.Context, string) (driver.Stmt, error) { return stmt{}, nil }

func (conn) Exec(context.Context, string, ...any) (int64, error) { return 0, nil }

func (conn) Query(context.Context, string, ...any) (int, error) { return 0, nil }

func (conn) QueryStrings(context.Context, string, ...any) ([][]string, error) { return nil, nil }
func (conn) QueryColumns(context.Context, string, ...any) ([]string, [][]string, error) {
	return nil, nil, nil
}

// bulkCheckEvery is how many rows a bulk load reads between looks at its
// context, so that Ctrl-C ends a long prepare.
const bulkCheckEvery = 1024

// BulkInsert reads every row of rows (so that prepare generates them all, as
// sysbench's dry prepare builds its INSERTs) and stores none.
func (conn) BulkInsert(ctx context.Context, _ string, _ []string, rows driver.RowSource) (int64, error) {
	var n int64
	for rows.Next() {
		if _, err := rows.Values(); err != nil {
			return n, err
		}
		n++
		if n%bulkCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
	}
	return n, rows.Err()
}

func (conn) Close() error { return nil }

// stmt is a dry statement.
type stmt struct{}

func (stmt) Exec(context.Context, ...any) (int64, error) { return 0, nil }

func (stmt) Query(context.Context, ...any) (int, error) { return 0, nil }

func (stmt) Drain(context.Context, ...any) error { return nil }

func (stmt) QueryRow(context.Context, []any, ...any) (bool, error) { return false, nil }

func (stmt) QueryRows(context.Context, []any, func() error, ...any) (int, error) { return 0, nil }

func (stmt) Close() error { return nil }
