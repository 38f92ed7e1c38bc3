package warmup

import (
	"context"
	"regexp"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestProgressCountsTablesAndBytes: a warm-up with a Progress counts its
// tables done of all and, where the server says how large they are (MySQL,
// PostgreSQL), their bytes; before it begins the line says nothing is known.
func TestProgressCountsTablesAndBytes(t *testing.T) {
	wants := map[string]string{
		driver.KindMySQL:  `^warm-up: 2/2 tables, [0-9.]+ [KMG]iB of [0-9.]+ [KMG]iB \(100\.0%\), [0-9.]+ [KMG]?i?B/s, ETA 0s$`,
		driver.KindPgSQL:  `^warm-up: 2/2 tables, [0-9.]+ [KMG]iB of [0-9.]+ [KMG]iB \(100\.0%\), [0-9.]+ [KMG]?i?B/s, ETA 0s$`,
		driver.KindSQLite: `^warm-up: 2/2 tables \(100\.0%\), [0-9.]+ tables/s, ETA 0s$`,
	}
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t, cfg)
			prog := NewProgress()
			if got, want := prog.Line(), `^warm-up: 0 tables \(0\.0 tables/s\)$`; !regexp.MustCompile(want).MatchString(got) {
				t.Errorf("line before the start = %q, want %s", got, want)
			}
			if _, err := Run(context.Background(), f.drv, f.server, []string{"wa", "wb"}, 2, nil, prog); err != nil {
				t.Fatal(err)
			}
			if got := prog.Line(); !regexp.MustCompile(wants[kind]).MatchString(got) {
				t.Errorf("line at the end = %q, want %s", got, wants[kind])
			}
			if _, total, _ := prog.bytes.Snapshot(); (kind != driver.KindSQLite) != (total > 0) {
				t.Errorf("bytes expected = %d: want the server's sizes on MySQL and PostgreSQL, none on SQLite", total)
			}
		})
	}
}
