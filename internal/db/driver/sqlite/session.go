package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// checkSession refuses, before anything opens, an isolation level SQLite
// does not have: its transactions are always serializable (read_uncommitted
// applies only to a shared cache, which fairbench does not use).
func checkSession(cfg *driver.Config) error {
	if cfg.Isolation != "" && cfg.Isolation != driver.Serializable {
		return fmt.Errorf("sqlite: --isolation-level=%s: SQLite's transactions are always serializable; give serializable or leave the option out", cfg.Isolation)
	}
	return nil
}

// setupSession sets the session variables, which for SQLite are pragmas,
// on a new connection after fairbench's own (so that they win), and reads
// each back: SQLite ignores an unknown pragma silently, so one that answers
// nothing is refused. A refusal is a *driver.SetupError.
func setupSession(ctx context.Context, c *conn, cfg *driver.Config) error {
	for _, v := range cfg.SessionVars {
		setting := "--session-var=" + v.String()
		if _, err := c.Exec(ctx, "PRAGMA "+v.Name+" = "+driver.LiteralValue(v.Value, false)); err != nil {
			return &driver.SetupError{Setting: setting, Err: err}
		}
		rows, err := c.QueryStrings(ctx, "PRAGMA "+v.Name)
		if err != nil {
			return &driver.SetupError{Setting: setting, Err: err}
		}
		if len(rows) == 0 {
			return &driver.SetupError{Setting: setting, Err: errors.New("SQLite has no pragma " + v.Name + " that answers when read (it ignores unknown pragmas without a word)")}
		}
	}
	return nil
}
