package sysinfo

import (
	"context"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// sqlitePragmas are the SQLite pragmas recorded in a result.
func sqlitePragmas() []string {
	return []string{"journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout"}
}

// detectSQLite fingerprints the embedded SQLite database.
func detectSQLite(ctx context.Context, conn driver.Conn, n *notes) result.Server {
	s := result.Server{Flavor: "SQLite"}
	if row, err := queryRow(ctx, conn, "SELECT sqlite_version()"); err != nil {
		n.add(err)
	} else {
		s.Version = row[0]
	}
	s.Variables = map[string]string{}
	for _, pragma := range sqlitePragmas() {
		row, err := queryRow(ctx, conn, "PRAGMA "+pragma)
		if err != nil {
			n.add(err)
			continue
		}
		if len(row) > 0 {
			s.Variables[pragma] = row[0]
		}
	}
	return s
}
