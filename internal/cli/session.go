package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/workload"
)

// session is an open target (measure.Target, with the error policy of its
// driver's --*-ignore-errors). cfg, drv, server and tls repeat the
// target's, for the commands that only read them.
type session struct {
	target *measure.Target
	cfg    driver.Config
	drv    driver.Driver // nil for a prepare that exports files (exportSession)
	// dialect is drv's, or the target's when there is no driver.
	dialect driver.Dialect
	server  result.Server
	// tls is what the server said of the first connection's encryption (nil
	// for SQLite).
	tls *result.TLS
}

// openSession validates the connection flags and opens the target
// (measure.Open): it connects once to prove the target works, fingerprints
// the server and asks it whether that connection is encrypted.
func (inv *invocation) openSession(ctx context.Context) (*session, error) {
	cfg, ignore, err := inv.target.config(inv.command.Flags(), inv.app.Getenv)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return inv.openTarget(ctx, cfg, ignore)
}

// openTarget opens the target of cfg, as the connection flags gave it, with
// ignore (their --*-ignore-errors value) as its error policy: see
// openSession.
func (inv *invocation) openTarget(ctx context.Context, cfg driver.Config, ignore string) (*session, error) {
	if cfg.DryRun {
		if err := inv.refuseDryRun(); err != nil {
			return nil, err
		}
	}
	if err := inv.app.connecting(); err != nil {
		return nil, err
	}
	opts := measure.OpenOptions{
		OnSlow: func() {
			fmt.Fprintf(inv.app.Stderr, "fairbench: connecting to %s (timeout %s) ...\n", describeTarget(cfg), cfg.Timeout())
		},
		IgnoreErrors: ignore,
	}
	if inv.run.machines != nil { // run: the server's machines are observed
		opts.Machines = inv.run.machines
	}
	t, err := measure.Open(ctx, cfg, opts)
	var ce *measure.ConnectError
	switch {
	case errors.As(err, &ce):
		if ctx.Err() != nil { // Ctrl-C or SIGTERM while connecting: nothing ran
			return nil, withCode(ExitInterrupted, fmt.Errorf("interrupted while connecting to %s: nothing was run", describeTarget(cfg)))
		}
		if driver.IsSetupError(err) { // connected, then the server refused the session's set-up
			return nil, withCode(ExitTarget, fmt.Errorf("%s: %w", describeTarget(cfg), ce.Err))
		}
		return nil, withCode(ExitTarget, fmt.Errorf("%w%s", err, connectHint(cfg)))
	case err != nil:
		return nil, withCode(ExitUsage, err)
	}
	return &session{target: t, cfg: t.Config, drv: t.Driver, dialect: t.Driver.Dialect(), server: t.Server, tls: t.TLS}, nil
}

// exportSession is the session of a prepare that writes files instead of
// loading (workload.Exporter): the target's flags are validated and its
// dialect chosen, but no driver is opened and no connection made, so that
// nothing (not the default SQLite database) is created outside the files'
// directory.
func (inv *invocation) exportSession() (*session, error) {
	cfg, _, err := inv.target.config(inv.command.Flags(), inv.app.Getenv)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if err := inv.app.connecting(); err != nil {
		return nil, err
	}
	d, err := open.Dialect(cfg.Kind)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return &session{cfg: cfg, dialect: d}, nil
}

// refuseDryRun refuses a dry run (--mysql-dry-run) of a command that needs
// a server's answers: check and warmup, which read the data, and any
// command of a workload whose events read what they send next
// (workload.DryRunner).
func (inv *invocation) refuseDryRun() error {
	if inv.phase == phaseCheck || inv.phase == phaseWarmup {
		return usageErrorf("%s %s with --mysql-dry-run: a dry run has no server, so no data to %s; leave out --mysql-dry-run", inv.phase, inv.spec.Name, inv.phase)
	}
	if d, ok := inv.wl.(workload.DryRunner); !ok || !d.DryRuns() {
		return usageErrorf("%s with --mysql-dry-run: its transactions read what they send next from the server (ids, counts, stock levels), and a dry run answers every statement with no rows; a dry run is for the sysbench OLTP workloads (oltp_read_write, oltp_point_select, …)", inv.spec.Name)
	}
	return nil
}

// serverName names the server for the lines that start a command
// ("MariaDB 10.11.6-MariaDB"), or says that a dry run contacts none.
func (s *session) serverName() string {
	if s.cfg.DryRun {
		return "dry run: no server is contacted"
	}
	return s.server.Flavor + " " + s.server.Version
}

// connectHint suggests what to check when a connection fails.
func connectHint(cfg driver.Config) string {
	switch cfg.Kind {
	case driver.KindMySQL:
		return "\n  check --mysql-host/--mysql-port (or --mysql-socket), --mysql-user, --mysql-password (or MYSQL_PWD) and that database --mysql-db exists"
	case driver.KindPgSQL:
		return "\n  check --pgsql-host/--pgsql-port (or --pgsql-socket), --pgsql-user, --pgsql-password (or PGPASSWORD) and that database --pgsql-db exists"
	}
	return "\n  check that --sqlite-db names a writable file"
}

func (s *session) close() {
	if s.target != nil { // nil for an export session
		s.target.Close()
	}
}

// missingTables says which tables the workload needs that the target lacks.
func (inv *invocation) missingTables(ctx context.Context, s *session) (workload.Absent, error) {
	conn, err := s.drv.Connect(ctx, 0)
	if err != nil {
		return workload.Absent{}, withCode(ExitTarget, fmt.Errorf("cannot connect to %s: %w", describeTarget(s.cfg), err))
	}
	defer conn.Close()
	missing, err := inv.wl.Missing(ctx, conn, s.drv.Dialect())
	if err != nil {
		return workload.Absent{}, withCode(ExitTarget, fmt.Errorf("listing tables on %s: %w", describeTarget(s.cfg), err))
	}
	return missing, nil
}

// sameFlags renders the workload and connection flags the user gave, so that a
// message can show the exact command to run next (secrets left out; not the
// options of run or prepare themselves).
func (inv *invocation) sameFlags() string {
	var parts []string
	keep := map[string]bool{}
	for _, g := range inv.groups {
		if runGroups[g.title] || g.title == "Prepare options" || g.title == "Random numbers" || g.title == serverMachineGroup {
			continue
		}
		g.fs.VisitAll(func(f *pflag.Flag) { keep[f.Name] = true })
	}
	inv.command.Flags().Visit(func(f *pflag.Flag) {
		if keep[f.Name] && !secretFlags[f.Name] {
			parts = append(parts, fmt.Sprintf("--%s=%s", f.Name, f.Value.String()))
		}
	})
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// isInterrupted reports whether err or ctx says the user interrupted.
func isInterrupted(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled)
}
