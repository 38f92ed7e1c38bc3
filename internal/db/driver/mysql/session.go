package mysql

import (
	"context"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// setupSession applies the configuration's isolation level and session
// variables to a new connection (Connect runs it for every connection, the
// runner's reconnects included). A refusal is a *driver.SetupError carrying
// the server's message.
func setupSession(ctx context.Context, c *conn, cfg *driver.Config) error {
	if cfg.Isolation != "" {
		if _, err := c.Exec(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL "+driver.IsolationSQL(cfg.Isolation)); err != nil {
			return &driver.SetupError{Setting: "--isolation-level=" + cfg.Isolation, Err: err}
		}
	}
	for _, v := range cfg.SessionVars {
		if _, err := c.Exec(ctx, "SET SESSION "+v.Name+" = "+driver.LiteralValue(v.Value, true)); err != nil {
			return &driver.SetupError{Setting: "--session-var=" + v.String(), Err: err}
		}
	}
	return nil
}
