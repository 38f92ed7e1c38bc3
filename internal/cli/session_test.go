package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestSessionVarAfterReconnect runs on PostgreSQL with a session variable
// other sessions can see (application_name, in pg_stat_activity),
// terminates the run's backends mid-run, and expects the backends that
// replace them to carry it too: the runner's reconnects get the set-up. The
// isolation level is read back into the result and printed in the header.
func TestSessionVarAfterReconnect(t *testing.T) {
	cfg := testdb.PgSQL(t)
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=1000"}, targetArgs(cfg))...); r.code != ExitOK {
		t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	admin, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	app := "fb_" + strings.TrimPrefix(cfg.Database, "fbt_")
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2", "--time=10", "--output=" + out,
			"--isolation-level=repeatable-read", "--session-var", "application_name=" + app}, targetArgs(cfg))...)
	}()
	pids := func(query string, args ...any) []string {
		rows, err := admin.QueryStrings(context.Background(), query, args...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r[0])
		}
		return out
	}
	const ofRun = "SELECT pid FROM pg_stat_activity WHERE datname = ? AND application_name = ?"
	backends := func() []string { return pids(ofRun, cfg.Database, app) }
	// Only the workers' backends are terminated: those whose last statement
	// is the workload's. A backend of the checks before the run (the data
	// inspection) carries the application_name too, and terminating it is a
	// failure before the run, not a reconnect within it.
	workers := func() []string { return pids(ofRun+" AND query LIKE 'SELECT c FROM sbtest%'", cfg.Database, app) }
	var killed []string
	for deadline := time.Now().Add(5 * time.Second); len(killed) == 0 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		for _, pid := range workers() {
			if _, err := admin.QueryStrings(context.Background(), "SELECT pg_terminate_backend(?)", pid); err == nil {
				killed = append(killed, pid)
			}
		}
	}
	if len(killed) == 0 {
		t.Fatal("found no backend of the run with its application_name to terminate")
	}
	var renewed []string
	for deadline := time.Now().Add(5 * time.Second); len(renewed) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		for _, pid := range backends() {
			if !slices.Contains(killed, pid) {
				renewed = append(renewed, pid)
			}
		}
	}
	r := <-done
	if r.code != ExitOK {
		t.Fatalf("exit %d after terminating %v\n%s%s", r.code, killed, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Totals.Counts.Reconnects == 0 {
		t.Fatalf("terminated backends %v but the result has no reconnect", killed)
	}
	if len(renewed) == 0 {
		t.Errorf("after %d reconnects no new backend had application_name %s (terminated: %v)", res.Totals.Counts.Reconnects, app, killed)
	}
	ss := res.Target.Session
	if ss == nil || ss.Isolation != "repeatable read" || ss.Variables["application_name"] != app {
		t.Errorf("target.session = %+v, want repeatable read and application_name %s", ss, app)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("Session: isolation repeatable read; application_name=%s", app)) {
		t.Errorf("the header does not show the session:\n%s", r.stdout)
	}
}

// TestSessionRefusedBeforeTheRun: a value the server refuses stops the
// command before the run starts, exit 3 with the server's message; a value
// no server is asked about is a usage error, exit 2.
func TestSessionRefusedBeforeTheRun(t *testing.T) {
	my, pg := testdb.MySQL(t), testdb.PgSQL(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"mysql variable value", join(targetArgs(my), []string{"--session-var=sql_mode=NO_SUCH_MODE"}), ExitTarget, "Variable 'sql_mode' can't be set to the value of 'NO_SUCH_MODE'"},
		{"mysql unknown variable", join(targetArgs(my), []string{"--session-var=fb_no_such_var=1"}), ExitTarget, "Unknown system variable"},
		{"pgsql unknown parameter", join(targetArgs(pg), []string{"--session-var=fb_no_such_param=1"}), ExitTarget, `unrecognized configuration parameter "fb_no_such_param"`},
		{"unknown level", join(targetArgs(my), []string{"--isolation-level=snapshot"}), ExitUsage, `unknown isolation level "snapshot"`},
		{"bad name", join(targetArgs(pg), []string{"--session-var=a;b=1"}), ExitUsage, "--session-var: session variable name"},
		{"go-tpc snapshot", []string{"tpcc", "-H", my.Hosts[0], "--isolation", "5", "run"}, ExitUsage, "--isolation 5 (snapshot)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args[0] != "tpcc" {
				args = join([]string{"run", "oltp_point_select", "--table-size=10", "--time=1"}, args)
			}
			r := runCLI(context.Background(), nil, args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s%s", r.code, c.code, c.want, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout, "Threads started") || strings.Contains(r.stdout, "SQL statistics") {
				t.Errorf("the run started:\n%s", r.stdout)
			}
		})
	}
}
