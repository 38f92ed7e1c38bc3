package sysinfo

import (
	"context"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// mysqlVariables are the MySQL/MariaDB/Percona global variables recorded in a result.
func mysqlVariables() []string {
	return []string{
		"innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_flush_log_at_trx_commit",
		"innodb_flush_method", "innodb_doublewrite", "innodb_log_file_size", "innodb_redo_log_capacity",
		"innodb_io_capacity", "innodb_io_capacity_max", "innodb_adaptive_hash_index",
		"sync_binlog", "log_bin", "binlog_format", "max_connections",
		"transaction_isolation", "tx_isolation", "thread_handling", "performance_schema",
		"version_compile_machine",
		// TiDB
		"tidb_txn_mode", "tidb_enable_async_commit", "tidb_enable_1pc", "tidb_distsql_scan_concurrency",
		"tidb_executor_concurrency", "tidb_mem_quota_query", "tidb_isolation_read_engines",
	}
}

// mysqlFlavor classifies a MySQL-protocol server by VERSION() and @@version_comment.
func mysqlFlavor(version, comment string) string {
	v, c := strings.ToLower(version), strings.ToLower(comment)
	switch {
	case strings.Contains(v, "tidb"):
		return "TiDB"
	case strings.Contains(v, "mariadb") || strings.Contains(c, "mariadb"):
		return "MariaDB"
	case strings.Contains(c, "percona"):
		return "Percona"
	}
	return "MySQL"
}

// detectMySQL fingerprints a MySQL-protocol server.
func detectMySQL(ctx context.Context, conn driver.Conn, n *notes) result.Server {
	var s result.Server
	if row, err := queryRow(ctx, conn, "SELECT VERSION(), @@version_comment"); err != nil {
		n.add(err)
	} else if len(row) >= 2 {
		s.Version, s.VersionComment = row[0], row[1]
		s.Flavor = mysqlFlavor(s.Version, s.VersionComment)
	}
	rows, err := conn.QueryStrings(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN "+driver.NameList(mysqlVariables()))
	if err != nil {
		n.add(fmt.Errorf("SHOW GLOBAL VARIABLES: %w", err))
		return s
	}
	s.Variables = pickVariables(rows, mysqlVariables())
	return s
}

// pickVariables keeps the name/value rows whose name is wanted.
func pickVariables(rows [][]string, wanted []string) map[string]string {
	want := make(map[string]bool, len(wanted))
	for _, w := range wanted {
		want[w] = true
	}
	vars := map[string]string{}
	for _, row := range rows {
		if len(row) >= 2 && want[strings.ToLower(row[0])] {
			vars[strings.ToLower(row[0])] = row[1]
		}
	}
	return vars
}
