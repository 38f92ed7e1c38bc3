package sysinfo

import (
	"context"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// DetectTLS asks the server whether the session of conn, a connection of the
// driver kind, is encrypted: MySQL and MariaDB report Ssl_version and
// Ssl_cipher in SHOW SESSION STATUS, PostgreSQL its row of pg_stat_ssl. It
// returns nil for SQLite, which has no connection to encrypt.
func DetectTLS(ctx context.Context, kind string, conn driver.Conn) *result.TLS {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	switch kind {
	case driver.KindMySQL:
		rows, err := conn.QueryStrings(ctx, "SHOW SESSION STATUS LIKE 'Ssl_%'")
		if err != nil {
			return &result.TLS{Note: "SHOW SESSION STATUS LIKE 'Ssl_%': " + err.Error()}
		}
		var t result.TLS
		for _, r := range rows {
			if len(r) < 2 {
				continue
			}
			switch strings.ToLower(r[0]) {
			case "ssl_version":
				t.Version = r[1]
			case "ssl_cipher":
				t.Cipher = r[1]
			}
		}
		t.Used = t.Version != "" || t.Cipher != ""
		return &t
	case driver.KindPgSQL:
		const q = "SELECT ssl, COALESCE(version, ''), COALESCE(cipher, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
		row, err := queryRow(ctx, conn, q)
		if err != nil {
			return &result.TLS{Note: err.Error()}
		}
		if len(row) < 3 {
			return &result.TLS{Note: q + ": short row"}
		}
		t := result.TLS{Used: row[0] == "t" || strings.EqualFold(row[0], "true")}
		if t.Used {
			t.Version, t.Cipher = row[1], row[2]
		}
		return &t
	}
	return nil
}
