package observe

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// mysqlCounters are the SHOW GLOBAL STATUS counters whose deltas a result keeps.
// A server that lacks some (MariaDB has no Innodb_rows_*, TiDB has hardly any)
// simply has fewer.
func mysqlCounters() []string {
	return []string{
		// buffer pool and data files
		"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_write_requests",
		"Innodb_buffer_pool_read_ahead", "Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_wait_free",
		"Innodb_data_read", "Innodb_data_reads", "Innodb_data_written", "Innodb_data_writes", "Innodb_data_fsyncs",
		"Innodb_dblwr_pages_written",
		// redo log
		"Innodb_os_log_written", "Innodb_os_log_fsyncs", "Innodb_log_writes", "Innodb_log_write_requests", "Innodb_log_waits",
		// rows and locks
		"Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted", "Rows_read",
		"Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_deadlocks",
		"Handler_read_key", "Handler_read_next", "Handler_read_rnd_next",
		"Handler_write", "Handler_update", "Handler_delete", "Handler_commit", "Handler_rollback",
		// statements and traffic
		"Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_rollback",
		"Bytes_sent", "Bytes_received",
		"Created_tmp_tables", "Created_tmp_disk_tables", "Select_scan", "Select_full_join", "Sort_merge_passes",
		"Slow_queries", "Connections", "Threads_created",
	}
}

// mysqlProbe reads a MySQL-protocol server: MySQL, MariaDB, Percona, TiDB.
type mysqlProbe struct {
	flavor string
}

func (mysqlProbe) source() string { return "SHOW GLOBAL STATUS" }

func (p mysqlProbe) snapshot(ctx context.Context, conn driver.Conn) (map[string]int64, error) {
	names := mysqlCounters()
	rows, err := conn.QueryStrings(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN "+driver.NameList(names))
	if err != nil {
		return nil, fmt.Errorf("SHOW GLOBAL STATUS: %w", err)
	}
	wanted := make(map[string]string, len(names))
	for _, name := range names {
		wanted[strings.ToLower(name)] = name
	}
	snap := make(map[string]int64, len(names))
	for _, row := range rows {
		if len(row) < 2 {
			continue
		}
		name, ok := wanted[strings.ToLower(row[0])]
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(row[1]), 10, 64); err == nil {
			snap[name] = n
		}
	}
	if len(snap) == 0 && p.flavor == "TiDB" {
		return nil, fmt.Errorf("TiDB's SHOW GLOBAL STATUS has none of the InnoDB counters: read TiDB's own metrics (Grafana/Prometheus) for server figures")
	}
	return snap, nil
}

func (mysqlProbe) gauges(ctx context.Context, conn driver.Conn) (map[string]float64, error) {
	rows, err := conn.QueryStrings(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_running'")
	if err != nil {
		return nil, fmt.Errorf("SHOW GLOBAL STATUS LIKE 'Threads_running': %w", err)
	}
	for _, row := range rows {
		if len(row) >= 2 && strings.EqualFold(row[0], "Threads_running") {
			n, err := strconv.ParseFloat(strings.TrimSpace(row[1]), 64)
			if err != nil {
				return nil, fmt.Errorf("Threads_running is %q, not a number", row[1])
			}
			// The probe's own SHOW STATUS is running too.
			return map[string]float64{"Threads_running": max(n-1, 0)}, nil
		}
	}
	return nil, nil
}

func (mysqlProbe) derive(s *result.ObservedServer, seconds float64) {
	c := counters(s.Counters)
	if reads, ok := c.get("Innodb_buffer_pool_reads"); ok {
		if requests, ok := c.get("Innodb_buffer_pool_read_requests"); ok && requests > 0 {
			s.BufferPoolHitPct = ptr(100 * (1 - float64(min(reads, requests))/float64(requests)))
		}
	}
	s.DiskReadsPerSec = c.rate(seconds, "Innodb_buffer_pool_reads")
	s.BytesWrittenPerSec = c.rate(seconds, "Innodb_data_written")
	s.LogBytesPerSec = c.rate(seconds, "Innodb_os_log_written")
	// MariaDB 10.8 and later have no Innodb_os_log_fsyncs: their
	// Innodb_data_fsyncs counts the log's fsyncs (and the data files').
	s.LogFlushesPerSec = c.firstRate(seconds, []string{"Innodb_os_log_fsyncs"}, []string{"Innodb_data_fsyncs"})
	s.RowsReadPerSec = c.firstRate(seconds, []string{"Innodb_rows_read"}, []string{"Rows_read"})
	s.RowsChangedPerSec = c.firstRate(seconds,
		[]string{"Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted"},
		[]string{"Handler_write", "Handler_update", "Handler_delete"})
}
