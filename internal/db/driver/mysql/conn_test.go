package mysql

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func socketPath() string { return testdb.MySQLSocket() }

func TestConnectTCPAndSocket(t *testing.T) {
	base := testdb.MySQL(t)
	socket := base
	socket.Socket = socketPath()
	cases := []struct {
		name string
		cfg  driver.Config
	}{
		{"tcp", base},
		{"socket", socket},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Socket != "" {
				if _, err := os.Stat(tc.cfg.Socket); err != nil {
					t.Skipf("no MySQL socket at %s (set FAIRBENCH_TEST_MYSQL_SOCKET)", tc.cfg.Socket)
				}
			}
			d := openDriver(t, tc.cfg)
			c := drivertest.Connect(t, d, 0)
			rows, err := c.QueryStrings(context.Background(), "SELECT DATABASE(), @@version")
			if err != nil {
				t.Fatal(err)
			}
			if rows[0][0] != tc.cfg.Database {
				t.Fatalf("DATABASE() = %q, want %q", rows[0][0], tc.cfg.Database)
			}
		})
	}
}

func TestConnectErrorsExplain(t *testing.T) {
	wrongPassword := testdb.MySQLServer()
	wrongPassword.Password = "definitely-not-the-password"
	noServer := testdb.MySQLServer()
	noServer.Hosts, noServer.Ports = []string{"127.0.0.1"}, []int{1}
	cases := []struct {
		name string
		cfg  driver.Config
		want []string
		code string
		// needs is the server the case talks to; "" for none.
		needs string
	}{
		{"wrong password", wrongPassword, []string{"authentication failed for user \"" + wrongPassword.User + "\"", "--mysql-password"}, "1045", "MariaDB"},
		{"unreachable port", noServer, []string{"cannot reach the server at 127.0.0.1:1", "connection refused"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				testdb.SkipShort(t, tc.needs)
			}
			d := openDriver(t, tc.cfg)
			c, err := d.Connect(context.Background(), 0)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got := d.Describe(err).Code; got != tc.code {
				t.Errorf("Describe code = %q, want %q", got, tc.code)
			}
		})
	}
}

func TestHostsRoundRobin(t *testing.T) {
	cfg := testdb.MySQLServer()
	cfg.Hosts = []string{"127.0.0.1", "localhost"}
	cfg.Ports = []int{3306, 3307}
	d := openDriver(t, cfg)
	want := []string{"127.0.0.1:3306", "localhost:3307"}
	for n := 0; n < 4; n++ {
		if got := d.endpoints[n%len(d.endpoints)].addr; got != want[n%2] {
			t.Errorf("connection %d goes to %s, want %s", n, got, want[n%2])
		}
	}
}

func TestStatements(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run("prepared="+strconv.FormatBool(prepared), func(t *testing.T) {
			d := openDriver(t, mysqlTarget(t, prepared))
			c := drivertest.Connect(t, d, 0)
			drivertest.Statements(t, d, c)

			// MySQL reports changed rows, not matched ones (no CLIENT_FOUND_ROWS).
			ctx := context.Background()
			sameC, err := c.Prepare(ctx, "UPDATE sbtest1 SET c=c WHERE id=?")
			if err != nil {
				t.Fatal(err)
			}
			defer sameC.Close()
			if got, err := sameC.Exec(ctx, 1); err != nil || got != 0 {
				t.Errorf("matched but unchanged counts 0 (changed rows): Exec = %d, %v; want 0", got, err)
			}
		})
	}
}

func TestTransactions(t *testing.T) {
	d := openDriver(t, mysqlTarget(t, true))
	// InnoDB keeps an AUTO_INCREMENT id that a rolled-back insert took.
	drivertest.Transactions(t, d, drivertest.Connect(t, d, 0), false)
}

func TestArgumentErrorsExplain(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, mysqlTarget(t, false))
	c := drivertest.Connect(t, d, 0)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"too few arguments", func() error { _, err := c.Query(ctx, "SELECT ?, ?", 1); return err }, "do not match the statement's ? placeholders"},
		{"unsupported type", func() error { _, err := c.Exec(ctx, "DO ?", struct{}{}); return err }, "unsupported type struct {}"},
	}
	for _, tc := range cases {
		if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if n, err := c.Query(ctx, "SELECT 1"); err != nil || n != 1 {
		t.Fatalf("connection unusable after argument errors: %d, %v", n, err)
	}
}
