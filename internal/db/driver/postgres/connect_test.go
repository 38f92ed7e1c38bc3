package postgres

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestEndpointOf(t *testing.T) {
	cases := []struct {
		name string
		cfg  driver.Config
		n    int
		want string
	}{
		{"default port", driver.Config{Hosts: []string{"db"}}, 0, "db:5432"},
		{"round robin", driver.Config{Hosts: []string{"a", "b"}, Ports: []int{6432}}, 3, "b:6432"},
		{"port per host", driver.Config{Hosts: []string{"a", "b"}, Ports: []int{1, 2}}, 2, "a:1"},
		{"socket directory", driver.Config{Hosts: []string{"a"}, Socket: "/var/run/postgresql"}, 1, "/var/run/postgresql/.s.PGSQL.5432"},
		{"socket directory with port", driver.Config{Socket: "/tmp/", Ports: []int{6000}}, 0, "/tmp/.s.PGSQL.6000"},
		{"socket file", driver.Config{Socket: "/run/pg/.s.PGSQL.5433", Ports: []int{1}}, 0, "/run/pg/.s.PGSQL.5433"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := endpointOf(&tc.cfg, tc.n).String(); got != tc.want {
				t.Errorf("endpoint = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestConnStringMapsSSLModesAndHidesPassword(t *testing.T) {
	cases := []struct {
		mode driver.SSLMode
		want string
	}{
		{"", "sslmode='disable'"},
		{driver.SSLOff, "sslmode='disable'"},
		{driver.SSLOn, "sslmode='prefer'"},
		{driver.SSLRequired, "sslmode='require'"},
		{driver.SSLVerifyCA, "sslmode='verify-ca'"},
		{driver.SSLVerifyFull, "sslmode='verify-full'"},
	}
	for _, tc := range cases {
		cfg := driver.Config{User: "o'neil", Password: "s3cret", SSL: tc.mode, SSLCA: "/ca.pem", SSLCert: "/c.pem", SSLKey: "/k.pem"}
		cs, err := connString(&cfg, endpoint{host: "h", port: 1})
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		for _, want := range []string{tc.want, `user='o\'neil'`, "sslrootcert='/ca.pem'", "sslcert='/c.pem'", "sslkey='/k.pem'", "connect_timeout='10'"} {
			if !strings.Contains(cs, want) {
				t.Errorf("%s: %q lacks %q", tc.mode, cs, want)
			}
		}
		if strings.Contains(cs, "s3cret") {
			t.Errorf("%s: connection string %q holds the password", tc.mode, cs)
		}
	}
	if _, err := New(driver.Config{Hosts: []string{"h"}, SSL: "sometimes"}); err == nil {
		t.Error("New accepted an unknown ssl mode")
	}
	if _, err := New(driver.Config{}); err == nil || !strings.Contains(err.Error(), "--pgsql-host") {
		t.Errorf("New without host: err = %v, want a hint about --pgsql-host", err)
	}
}

func TestConnectByTCPAndSocket(t *testing.T) {
	cfg := testdb.PgSQL(t)
	tcp := cfg
	socketDir := cfg
	socketDir.Socket = "/var/run/postgresql"
	socketFile := cfg
	socketFile.Socket = "/var/run/postgresql/.s.PGSQL.5432"
	for name, cfg := range map[string]driver.Config{"tcp": tcp, "socket directory": socketDir, "socket file": socketFile} {
		t.Run(name, func(t *testing.T) {
			c := connectTo(t, cfg)
			if got := queryOne(t, c, "SELECT current_database()"); got != cfg.Database {
				t.Errorf("connected to database %q, want %q", got, cfg.Database)
			}
			viaSocket := queryOne(t, c, "SELECT inet_server_addr() IS NULL")
			if want := map[bool]string{true: "t", false: "f"}[cfg.Socket != ""]; viaSocket != want {
				t.Errorf("inet_server_addr() IS NULL = %s, want %s", viaSocket, want)
			}
		})
	}
}

func TestConnectErrorsSayWhatIsWrong(t *testing.T) {
	base := testdb.PgSQLServer()
	base.Password = "hunter2-not-shown"
	unreachable := base
	unreachable.Ports = []int{freePort(t)}

	noDB := base
	noDB.Database = "fbt_no_such_database"
	noUser := base
	noUser.Database = "postgres"
	noUser.User = "fbt_no_such_user"
	// A PostgreSQL client pointed at a MySQL server's port (it used to say
	// "received unexpected message: %!w(<nil>)").
	mysqlPort := base
	my := testdb.MySQLServer()
	mysqlPort.Hosts, mysqlPort.Ports, mysqlPort.Socket = my.Hosts, my.Ports, ""

	cases := []struct {
		name string
		cfg  driver.Config
		want []string
		// needs is the server the case talks to; "" for none.
		needs string
	}{
		{"wrong database", noDB, []string{`database "fbt_no_such_database" does not exist`, "3D000", "--pgsql-db"}, "PostgreSQL"},
		{"wrong user", noUser, []string{`role "fbt_no_such_user" does not exist`, "--pgsql-user"}, "PostgreSQL"},
		{"unreachable port", unreachable, []string{"connection refused", "is PostgreSQL running"}, ""},
		{"a MySQL server", mysqlPort, []string{"did not speak the PostgreSQL protocol", "such as MySQL", "--pgsql-port"}, "MariaDB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				testdb.SkipShort(t, tc.needs)
			}
			_, err := openDriver(t, tc.cfg).Connect(context.Background(), 0)
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), base.Password) {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}
