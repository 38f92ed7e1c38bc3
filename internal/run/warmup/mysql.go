package warmup

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// mysqlChecksum reads a MySQL, MariaDB or Percona table with CHECKSUM TABLE and
// each secondary index with a COUNT(*) forced onto it.
type mysqlChecksum struct{}

func (mysqlChecksum) name() string { return MethodChecksum }

func (mysqlChecksum) table(ctx context.Context, conn driver.Conn, table string) (TableReport, error) {
	var rep TableReport
	qt := quoteIdent(table, '`')
	sum, err := checksum(ctx, conn, "CHECKSUM TABLE "+qt, 1)
	if err != nil {
		return rep, err
	}
	rep.Checksum = sum
	indexes, err := conn.QueryStrings(ctx, "SELECT DISTINCT index_name FROM information_schema.statistics"+
		" WHERE table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY' AND index_type = 'BTREE'"+
		" ORDER BY index_name", table)
	if err != nil {
		return rep, fmt.Errorf("list indexes: %w", err)
	}
	if len(indexes) == 0 {
		rep.Rows, err = queryInt(ctx, conn, "SELECT COUNT(*) FROM "+qt)
		return rep, err
	}
	for _, ix := range indexes {
		if rep.Rows, err = queryInt(ctx, conn, mysqlIndexScan(table, ix[0])); err != nil {
			return rep, err
		}
		rep.Indexes++
	}
	return rep, nil
}

// mysqlIndexScan counts the rows of table by reading all of index ix.
func mysqlIndexScan(table, ix string) string {
	return "SELECT COUNT(*) FROM " + quoteIdent(table, '`') + " FORCE INDEX (" + quoteIdent(ix, '`') + ")"
}

// tidbChecksum reads a TiDB table with ADMIN CHECKSUM TABLE, which covers the
// key-value pairs of the table and its indexes, and counts its rows.
type tidbChecksum struct{}

func (tidbChecksum) name() string { return MethodAdminChecksum }

func (tidbChecksum) table(ctx context.Context, conn driver.Conn, table string) (TableReport, error) {
	var rep TableReport
	qt := quoteIdent(table, '`')
	// Db_name, Table_name, Checksum_crc64_xor, Total_kvs, Total_bytes
	sum, err := checksum(ctx, conn, "ADMIN CHECKSUM TABLE "+qt, 2)
	if err != nil {
		return rep, err
	}
	rep.Checksum = sum
	rep.Rows, err = queryInt(ctx, conn, "SELECT COUNT(*) FROM "+qt)
	return rep, err
}

// checksum runs a checksum statement and returns column col of its one row.
func checksum(ctx context.Context, conn driver.Conn, query string, col int) (string, error) {
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil {
		return "", fmt.Errorf("%s: %w", query, err)
	}
	if len(rows) != 1 || len(rows[0]) <= col {
		return "", fmt.Errorf("%s: unexpected result %q", query, rows)
	}
	if rows[0][col] == "" { // NULL: the server could not read the table
		return "", fmt.Errorf("%s: no checksum (does the table exist? run 'fairbench prepare' first)", query)
	}
	return rows[0][col], nil
}
