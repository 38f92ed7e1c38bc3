package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// TestSessionPragmas: session variables are pragmas set on every
// connection after fairbench's own; an unknown pragma, which SQLite ignores
// silently, and an isolation level SQLite does not have are refused.
func TestSessionPragmas(t *testing.T) {
	cfg := sqliteTarget(t, true)
	cfg.Isolation = driver.Serializable
	cfg.SessionVars = []driver.SessionVar{{Name: "synchronous", Value: "FULL"}, {Name: "cache_size", Value: "-4000"}}
	d := openDriver(t, cfg)
	for n := range 2 {
		c := drivertest.Connect(t, d, n)
		for pragma, want := range map[string]string{"synchronous": "2", "cache_size": "-4000"} {
			rows, err := c.QueryStrings(context.Background(), "PRAGMA "+pragma)
			if err != nil || len(rows) != 1 || rows[0][0] != want {
				t.Errorf("connection %d: PRAGMA %s = %v %v, want %s", n, pragma, rows, err, want)
			}
		}
	}

	cfg.SessionVars = []driver.SessionVar{{Name: "no_such_pragma", Value: "1"}}
	_, err := openDriver(t, cfg).Connect(context.Background(), 0)
	if !driver.IsSetupError(err) || !strings.Contains(err.Error(), "no pragma no_such_pragma") {
		t.Errorf("unknown pragma: %v; want a SetupError", err)
	}
	cfg.SessionVars, cfg.Isolation = nil, driver.ReadCommitted
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "always serializable") {
		t.Errorf("read-committed on SQLite: %v; want refused", err)
	}
}
