package sysinfo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// pgSettings are the PostgreSQL settings recorded in a result.
func pgSettings() []string {
	return []string{
		"shared_buffers", "effective_cache_size", "work_mem", "synchronous_commit", "fsync",
		"full_page_writes", "wal_level", "wal_buffers", "max_wal_size", "checkpoint_timeout",
		"max_connections", "default_transaction_isolation", "huge_pages",
	}
}

// pgFlavor classifies a PostgreSQL-protocol server by its version() string.
func pgFlavor(version string) string {
	switch {
	case strings.Contains(version, "CockroachDB"):
		return "CockroachDB"
	case strings.Contains(version, "-YB-") || strings.Contains(version, "YugabyteDB"):
		return "YugabyteDB"
	case strings.Contains(version, "Greenplum"):
		return "Greenplum"
	case strings.Contains(version, "Redshift"):
		return "Redshift"
	}
	return "PostgreSQL"
}

// pgBytes converts a pg_settings setting in a memory unit ("16384" in "8kB") to
// bytes. It reports false for settings not in a memory unit and for the special
// values below zero ("-1" = chosen automatically).
func pgBytes(setting, unit string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(setting), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	digits := strings.TrimRightFunc(unit, func(r rune) bool { return r < '0' || r > '9' })
	suffix := unit[len(digits):]
	multiple := int64(1)
	if digits != "" {
		if multiple, err = strconv.ParseInt(digits, 10, 64); err != nil {
			return 0, false
		}
	}
	var scale int64
	switch suffix {
	case "B":
		scale = 1
	case "kB":
		scale = 1 << 10
	case "MB":
		scale = 1 << 20
	case "GB":
		scale = 1 << 30
	case "TB":
		scale = 1 << 40
	default:
		return 0, false
	}
	return n * multiple * scale, true
}

// detectPgSQL fingerprints a PostgreSQL-protocol server.
func detectPgSQL(ctx context.Context, conn driver.Conn, n *notes) result.Server {
	var s result.Server
	if row, err := queryRow(ctx, conn, "SHOW server_version"); err != nil {
		n.add(err)
	} else {
		s.Version, s.Flavor = row[0], "PostgreSQL"
	}
	if row, err := queryRow(ctx, conn, "SELECT version()"); err != nil {
		n.add(err)
	} else {
		s.VersionComment = row[0]
		s.Flavor = pgFlavor(s.VersionComment)
	}
	query := "SELECT name, setting, COALESCE(unit, ''), current_setting(name) FROM pg_settings WHERE name IN " + driver.NameList(pgSettings())
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil {
		n.add(fmt.Errorf("reading pg_settings: %w", err))
		return s
	}
	s.Variables = map[string]string{}
	for _, row := range rows {
		if len(row) < 4 {
			continue
		}
		name, setting, unit, shown := row[0], row[1], row[2], row[3]
		s.Variables[name] = shown
		if b, ok := pgBytes(setting, unit); ok {
			s.Variables[name+"_bytes"] = strconv.FormatInt(b, 10)
		}
	}
	return s
}
