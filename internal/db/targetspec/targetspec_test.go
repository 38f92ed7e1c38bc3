package targetspec

import (
	"errors"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// env serves vars; MYSQL_UNIX_PORT, unless given, names no socket, so that
// "localhost" stays TCP whatever sockets this machine has (see
// TestLocalhostSocket).
func env(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok || k != "MYSQL_UNIX_PORT" {
			return v
		}
		return "/nonexistent/fairbench-test.sock"
	}
}

// TestLocalhostSocket checks that MySQL's "localhost" goes through the socket
// the client configuration names (here MYSQL_UNIX_PORT), unless a port or
// TLS is asked for or another host is named.
func TestLocalhostSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "my.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	}
	defer l.Close()
	vars := map[string]string{"MYSQL_UNIX_PORT": sock}
	for _, c := range []struct {
		name string
		s    Settings
		want string
	}{
		{"default host", Settings{Driver: "mysql"}, sock},
		{"localhost", Settings{Driver: "mysql", Host: "localhost"}, sock},
		{"a port keeps TCP", Settings{Driver: "mysql", Host: "localhost", Port: "3306"}, ""},
		{"TLS keeps TCP", Settings{Driver: "mysql", SSL: "on"}, ""},
		{"an address", Settings{Driver: "mysql", Host: "127.0.0.1"}, ""},
		{"PostgreSQL", Settings{Driver: "pgsql"}, ""},
	} {
		cfg, _, err := Parse(c.s, Flags, env(vars))
		if err != nil || cfg.Socket != c.want {
			t.Errorf("%s: socket %q (%v), want %q", c.name, cfg.Socket, err, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		name    string
		s       Settings
		env     map[string]string
		want    driver.Config
		ignore  string
		wantKey Key       // the setting at fault, "" for none
		wantMsg [2]string // the message's words with Flags and with Plan
	}{
		{name: "nothing: the embedded database", s: Settings{},
			want: driver.Config{Kind: driver.KindSQLite, Prepared: true, Path: DefaultSQLitePath}},
		{name: "sqlite file and codes", s: Settings{Driver: "sqlite", SQLiteDB: "x.db", IgnoreErrors: "SQLITE_BUSY", PSMode: "disable"},
			want: driver.Config{Kind: driver.KindSQLite, Path: "x.db"}, ignore: "SQLITE_BUSY"},
		{name: "mysql defaults", s: Settings{Driver: "mysql"}, env: map[string]string{"MYSQL_PWD": "pw"},
			want: driver.Config{Kind: driver.KindMySQL, Prepared: true, Hosts: []string{"localhost"}, Ports: []int{3306}, User: "sbtest", Database: "sbtest", Password: "pw", SSL: driver.SSLOff}},
		{name: "pg alias, hosts with one port", s: Settings{Driver: "pg", Host: "a, b", Port: "6432", User: "u", DB: "d", SSL: "required"},
			want: driver.Config{Kind: driver.KindPgSQL, Prepared: true, Hosts: []string{"a", "b"}, Ports: []int{6432}, User: "u", Database: "d", SSL: driver.SSLRequired}},
		{name: "mariadb alias, a port per host", s: Settings{Driver: "mariadb", Host: "a,b", Port: "1,2", Socket: "/s", SSL: "verify-ca", SSLCA: "ca.pem"},
			want: driver.Config{Kind: driver.KindMySQL, Prepared: true, Hosts: []string{"a", "b"}, Ports: []int{1, 2}, Socket: "/s", User: "sbtest", Database: "sbtest", SSL: driver.SSLVerifyCA, SSLCA: "ca.pem"}},
		{name: "pg socket directory as its host, as libpq and sysbench take it", s: Settings{Driver: "pgsql", Host: "/var/run/postgresql", Port: "5433"},
			want: driver.Config{Kind: driver.KindPgSQL, Prepared: true, Hosts: []string{"localhost"}, Ports: []int{5433}, Socket: "/var/run/postgresql", User: "sbtest", Database: "sbtest", SSL: driver.SSLOff}},
		{name: "pg socket given wins over a directory host", s: Settings{Driver: "pgsql", Host: "/tmp", Socket: "/run/postgresql"},
			want: driver.Config{Kind: driver.KindPgSQL, Prepared: true, Hosts: []string{"/tmp"}, Ports: []int{5432}, Socket: "/run/postgresql", User: "sbtest", Database: "sbtest", SSL: driver.SSLOff}},
		{name: "password given wins over the environment", s: Settings{Driver: "mysql", Password: "given"}, env: map[string]string{"MYSQL_PWD": "env"},
			want: driver.Config{Kind: driver.KindMySQL, Prepared: true, Hosts: []string{"localhost"}, Ports: []int{3306}, User: "sbtest", Database: "sbtest", Password: "given", SSL: driver.SSLOff}},
		{name: "named password variable", s: Settings{Driver: "pgsql", PasswordEnv: "PW"}, env: map[string]string{"PW": "s", "PGPASSWORD": "other"},
			want: driver.Config{Kind: driver.KindPgSQL, Prepared: true, Hosts: []string{"localhost"}, Ports: []int{5432}, User: "sbtest", Database: "sbtest", Password: "s", SSL: driver.SSLOff}},
		{name: "a dry run", s: Settings{Driver: "mysql", Host: "127.0.0.1", DryRun: "on"},
			want: driver.Config{Kind: driver.KindMySQL, Prepared: true, Hosts: []string{"127.0.0.1"}, Ports: []int{3306}, User: "sbtest", Database: "sbtest", SSL: driver.SSLOff, DryRun: true}},

		{name: "unknown driver", s: Settings{Driver: "oracle"}, wantKey: Driver,
			wantMsg: [2]string{`unknown --db-driver "oracle"`, `unknown driver "oracle"`}},
		{name: "unknown ps mode", s: Settings{PSMode: "maybe"}, wantKey: PSMode,
			wantMsg: [2]string{`unknown --db-ps-mode "maybe"`, `unknown ps_mode "maybe"`}},
		{name: "empty sqlite file", s: Settings{SQLiteDB: " "}, wantKey: SQLiteDB,
			wantMsg: [2]string{"--sqlite-db must name a file", "sqlite_db must name a file"}},
		{name: "host without a driver", s: Settings{Host: "db1"}, wantKey: Host,
			wantMsg: [2]string{"--db-driver=mysql or --db-driver=pgsql", "driver: mysql or driver: pgsql"}},
		{name: "empty host entry", s: Settings{Driver: "mysql", Host: "a,,b"}, wantKey: Host,
			wantMsg: [2]string{`--mysql-host has an empty entry in "a,,b"`, `host has an empty entry in "a,,b"`}},
		{name: "bad port", s: Settings{Driver: "pgsql", Port: "70000"}, wantKey: Port,
			wantMsg: [2]string{`--pgsql-port "70000": give a port number from 1 to 65535`, `port "70000": give a port number from 1 to 65535`}},
		{name: "ports do not match hosts", s: Settings{Driver: "mysql", Host: "a,b,c", Port: "1,2"}, wantKey: Port,
			wantMsg: [2]string{"--mysql-port lists 2 ports for 3 hosts", "port lists 2 ports for 3 hosts"}},
		{name: "bad ssl", s: Settings{Driver: "mysql", SSL: "maybe"}, wantKey: SSL,
			wantMsg: [2]string{`--mysql-ssl: unknown ssl mode "maybe"`, `ssl: unknown ssl mode "maybe"`}},
		{name: "verify without a CA", s: Settings{Driver: "pgsql", SSL: "verify-full"}, wantKey: SSL,
			wantMsg: [2]string{"--pgsql-ssl=verify-full needs --pgsql-ssl-ca=FILE", `ssl "verify-full" needs ssl_ca: FILE`}},
		{name: "empty password variable", s: Settings{Driver: "mysql", PasswordEnv: "NOPE"}, wantKey: PasswordEnv,
			wantMsg: [2]string{"NOPE holds no password", "NOPE holds no password"}},
		{name: "dry run neither on nor off", s: Settings{Driver: "mysql", DryRun: "maybe"}, wantKey: DryRun,
			wantMsg: [2]string{"--mysql-dry-run=maybe: use on or off", `dry_run "maybe": use on or off`}},
		{name: "dry run of PostgreSQL", s: Settings{Driver: "pgsql", DryRun: "on"}, wantKey: DryRun,
			wantMsg: [2]string{"--mysql-dry-run is for MySQL only", "dry_run is for MySQL only"}},
		{name: "another driver's error code", s: Settings{Driver: "mysql", IgnoreErrors: "1213,40P01"}, wantKey: IgnoreErrors,
			wantMsg: [2]string{`--mysql-ignore-errors=1213,40P01: "40P01" is not a MySQL error number`, `ignore_errors "1213,40P01": "40P01" is not a MySQL error number`}},
	}
	for _, c := range cases {
		for i, sp := range []Spelling{Flags, Plan} {
			cfg, ignore, err := Parse(c.s, sp, env(c.env))
			if c.wantKey == "" {
				if err != nil {
					t.Errorf("%s (spelling %d): %v", c.name, sp, err)
					continue
				}
				if !reflect.DeepEqual(cfg, c.want) || ignore != c.ignore {
					t.Errorf("%s (spelling %d):\n got %+v %q\nwant %+v %q", c.name, sp, cfg, ignore, c.want, c.ignore)
				}
				continue
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%s (spelling %d): error %v, want an *Error", c.name, sp, err)
				continue
			}
			if e.Key != c.wantKey || !strings.Contains(e.Msg, c.wantMsg[i]) {
				t.Errorf("%s (spelling %d): error at %s %q, want at %s with %q", c.name, sp, e.Key, e.Msg, c.wantKey, c.wantMsg[i])
			}
		}
	}
}

func TestParseDriver(t *testing.T) {
	for name, want := range map[string]string{
		"mysql": driver.KindMySQL, "mariadb": driver.KindMySQL, "tidb": driver.KindMySQL, "percona": driver.KindMySQL,
		"pgsql": driver.KindPgSQL, "postgres": driver.KindPgSQL, "postgresql": driver.KindPgSQL, "pg": driver.KindPgSQL,
		"sqlite": driver.KindSQLite, "oracle": "", "": "", "MySQL": "",
	} {
		got, ok := ParseDriver(name)
		if got != want || ok != (want != "") {
			t.Errorf("ParseDriver(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

// FuzzParse checks that any settings either parse into a configuration the
// drivers can use or are refused with an *Error naming a setting given.
func FuzzParse(f *testing.F) {
	f.Add("mysql", "a,b", "1,2", "", "verify-ca", "ca.pem", "auto", "1213", "")
	f.Add("pg", "localhost", "5432", "/run/pg", "off", "", "disable", "40P01", "")
	f.Add("", "", "", "", "", "", "", "SQLITE_BUSY", "x.db")
	f.Add("sqlite", "h", "", "", "", "", "on", "all", " ")
	f.Add("tidb", ",", "0", "", "maybe", "", "x", "none", "")
	f.Fuzz(func(t *testing.T, drv, host, port, socket, ssl, ca, ps, ignore, path string) {
		s := Settings{}
		for key, v := range map[Key]string{Driver: drv, Host: host, Port: port, Socket: socket, SSL: ssl, SSLCA: ca, PSMode: ps, IgnoreErrors: ignore, SQLiteDB: path} {
			if v != "" {
				s[key] = v
			}
		}
		for _, sp := range []Spelling{Flags, Plan} {
			cfg, _, err := Parse(s, sp, env(nil))
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Msg == "" {
					t.Fatalf("error %v is not an *Error with a message", err)
				}
				if _, given := s[e.Key]; !given && e.Key != SQLiteDB {
					t.Fatalf("error at %s, which was not given: %v", e.Key, err)
				}
				continue
			}
			switch cfg.Kind {
			case driver.KindSQLite:
				if strings.TrimSpace(cfg.Path) == "" {
					t.Fatalf("sqlite without a file: %+v", cfg)
				}
			case driver.KindMySQL, driver.KindPgSQL:
				if len(cfg.Hosts) == 0 || len(cfg.Ports) == 0 {
					t.Fatalf("no host or port: %+v", cfg)
				}
				if len(cfg.Ports) > 1 && len(cfg.Hosts) > 1 && len(cfg.Ports) != len(cfg.Hosts) {
					t.Fatalf("ports %v do not match hosts %v", cfg.Ports, cfg.Hosts)
				}
				for _, p := range cfg.Ports {
					if p < 1 || p > 65535 {
						t.Fatalf("port %d", p)
					}
				}
			default:
				t.Fatalf("kind %q", cfg.Kind)
			}
		}
	})
}
