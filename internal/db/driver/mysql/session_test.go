package mysql

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// sessionValue reads one value of conn's session.
func sessionValue(t *testing.T, c driver.Conn, query string) string {
	t.Helper()
	rows, err := c.QueryStrings(context.Background(), query)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%s: %v %v", query, rows, err)
	}
	return rows[0][0]
}

// isolationOf reads the session's isolation level (tx_isolation on MariaDB
// before 11.1, transaction_isolation on MySQL).
func isolationOf(t *testing.T, c driver.Conn) string {
	t.Helper()
	if rows, err := c.QueryStrings(context.Background(), "SELECT @@SESSION.transaction_isolation"); err == nil {
		return rows[0][0]
	}
	return sessionValue(t, c, "SELECT @@SESSION.tx_isolation")
}

// TestSessionSetOnEveryConnection: the isolation level and the session
// variables are set on a new connection, and again on the connection that
// replaces one the server killed (the runner's reconnect is a new Connect).
func TestSessionSetOnEveryConnection(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run("prepared="+strconv.FormatBool(prepared), func(t *testing.T) {
			cfg := mysqlTarget(t, prepared)
			plain := openDriver(t, cfg)
			killer := drivertest.Connect(t, plain, 0)
			before := isolationOf(t, killer)
			cfg.Isolation = driver.Serializable
			if before == "SERIALIZABLE" {
				cfg.Isolation = driver.ReadCommitted
			}
			want := strings.ToUpper(cfg.Isolation)
			cfg.SessionVars = []driver.SessionVar{{Name: "sql_mode", Value: "STRICT_ALL_TABLES,NO_ZERO_DATE"}, {Name: "lock_wait_timeout", Value: "77"}}
			d := openDriver(t, cfg)
			victim := drivertest.Connect(t, d, 1)
			check := func(c driver.Conn, when string) {
				if got := isolationOf(t, c); got != want {
					t.Errorf("%s: isolation %s, want %s (the server's default is %s)", when, got, want, before)
				}
				if got := sessionValue(t, c, "SELECT @@SESSION.sql_mode"); got != "STRICT_ALL_TABLES,NO_ZERO_DATE" {
					t.Errorf("%s: sql_mode %q", when, got)
				}
				if got := sessionValue(t, c, "SELECT @@SESSION.lock_wait_timeout"); got != "77" {
					t.Errorf("%s: lock_wait_timeout %q", when, got)
				}
			}
			check(victim, "first connection")
			if got := isolationOf(t, killer); got != before {
				t.Errorf("a connection without the set-up has isolation %s, want the default %s", got, before)
			}
			id := sessionValue(t, victim, "SELECT CONNECTION_ID()")
			if _, err := killer.Exec(context.Background(), "KILL "+id); err != nil {
				t.Fatal(err)
			}
			_, err := victim.Query(context.Background(), "SELECT 1")
			if info := d.Describe(err); err == nil || !info.ConnectionLost {
				t.Fatalf("query on the killed connection: %v, %+v; want connection lost", err, info)
			}
			again := drivertest.Connect(t, d, 1)
			if sessionValue(t, again, "SELECT CONNECTION_ID()") == id {
				t.Fatal("the reconnect reused the killed connection's id")
			}
			check(again, "after the reconnect")
		})
	}
}

// TestSessionRefused: a value the server refuses fails Connect with a
// *driver.SetupError carrying the server's message.
func TestSessionRefused(t *testing.T) {
	cfg := mysqlTarget(t, true)
	for _, v := range []driver.SessionVar{{Name: "sql_mode", Value: "NO_SUCH_MODE"}, {Name: "no_such_variable_fb", Value: "1"}} {
		cfg.SessionVars = []driver.SessionVar{v}
		d := openDriver(t, cfg)
		c, err := d.Connect(context.Background(), 0)
		if err == nil {
			c.Close()
			t.Fatalf("%s accepted", v)
		}
		if !driver.IsSetupError(err) || !strings.Contains(err.Error(), "--session-var="+v.String()) || !strings.Contains(err.Error(), "Error 1") {
			t.Errorf("%s: %v; want a SetupError naming the option with the server's error", v, err)
		}
	}
}
