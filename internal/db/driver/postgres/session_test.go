package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// TestSessionSetOnEveryConnection: the isolation level and the run-time
// parameters are set on a new connection, and again on the connection that
// replaces one the server terminated (the runner's reconnect is a new Connect).
func TestSessionSetOnEveryConnection(t *testing.T) {
	modes(t, func(t *testing.T, prepared bool) {
		cfg := freshDB(t, prepared)
		killer := connectTo(t, cfg)
		before := queryOne(t, killer, "SELECT current_setting('transaction_isolation')")
		want := "serializable"
		cfg.Isolation = driver.Serializable
		if before == want {
			cfg.Isolation, want = driver.RepeatableRead, "repeatable read"
		}
		cfg.SessionVars = []driver.SessionVar{{Name: "work_mem", Value: "7MB"}, {Name: "search_path", Value: `"$user", public`}, {Name: "fairbench.tag", Value: "it's"}}
		d := openDriver(t, cfg)
		victim := drivertest.Connect(t, d, 1)
		check := func(c driver.Conn, when string) {
			if got := queryOne(t, c, "SELECT current_setting('transaction_isolation')"); got != want {
				t.Errorf("%s: isolation %q, want %q (the default is %q)", when, got, want, before)
			}
			for name, value := range map[string]string{"work_mem": "7MB", "search_path": `"$user", public`, "fairbench.tag": "it's"} {
				if got := queryOne(t, c, "SELECT current_setting(?)", name); got != value {
					t.Errorf("%s: %s = %q, want %q", when, name, got, value)
				}
			}
		}
		check(victim, "first connection")
		pid := queryOne(t, victim, "SELECT pg_backend_pid()")
		if got := queryOne(t, killer, "SELECT pg_terminate_backend(?)", pid); got != "t" {
			t.Fatalf("pg_terminate_backend = %s", got)
		}
		_, err := victim.Query(context.Background(), "SELECT 1")
		if info := d.Describe(err); err == nil || !info.ConnectionLost {
			t.Fatalf("query on the terminated connection: %v, %+v; want connection lost", err, info)
		}
		again := drivertest.Connect(t, d, 1)
		if queryOne(t, again, "SELECT pg_backend_pid()") == pid {
			t.Fatal("the reconnect has the terminated backend's pid")
		}
		check(again, "after the reconnect")
	})
}

// TestSessionRefused: a parameter or value the server refuses fails Connect
// with a *driver.SetupError carrying the server's message.
func TestSessionRefused(t *testing.T) {
	cfg := freshDB(t, true)
	for _, c := range []struct {
		v    driver.SessionVar
		want string
	}{
		{driver.SessionVar{Name: "no_such_parameter_fb", Value: "1"}, "unrecognized configuration parameter"},
		{driver.SessionVar{Name: "work_mem", Value: "lots"}, "invalid value for parameter"},
	} {
		cfg.SessionVars = []driver.SessionVar{c.v}
		conn, err := openDriver(t, cfg).Connect(testContext(t), 0)
		if err == nil {
			conn.Close()
			t.Fatalf("%s accepted", c.v)
		}
		if !driver.IsSetupError(err) || !strings.Contains(err.Error(), "--session-var="+c.v.String()) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a SetupError naming the option with %q", c.v, err, c.want)
		}
	}
}
