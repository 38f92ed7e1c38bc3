package rerun

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/targetspec"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/suite"
)

const sqlitePlan = `name: small
data: {tables: 1, table_size: 1000}
matrix:
  workloads: [oltp_point_select, oltp_read_only]
  threads: [1, 2, 4]
  rounds: 2
run: {time: 5}
`

const mysqlPlan = `name: remote
target:
  driver: mysql
  host: host-1
  user: user-1
  password_env: MYSQL_PWD
  ignore_errors: "1213"
  isolation: read-committed
data: {tables: 1, table_size: 1000}
matrix:
  workloads: [oltp_point_select]
  threads: auto
run: {time: 5}
`

const managedPlan = `name: managed
server:
  flavor: mariadb
  profiles: [cpu-bound]
data: {tables: 1, table_size: 1000}
matrix:
  workloads: [oltp_point_select]
  threads: [1]
  server_cpus: [1, 2]
run: {time: 5}
`

func mariadb() []suitedir.ServerRecord {
	return []suitedir.ServerRecord{{Server: result.Server{Flavor: "MariaDB", Version: "10.11.6"}}}
}

func TestPrepare(t *testing.T) {
	pg := targetspec.Settings{targetspec.Driver: "pgsql", targetspec.Host: "127.0.0.1", targetspec.User: "postgres"}
	tests := []struct {
		name    string
		rec     Recorded
		opts    Options
		want    []string // in the plan's text
		notWant []string
		notes   []string // in the notes
		err     string
	}{
		{name: "embedded database kept", rec: Recorded{Plan: []byte(sqlitePlan)},
			notWant: []string{"target:"}},
		{name: "the author's database file is not written", rec: Recorded{Plan: []byte("target: {sqlite_db: /home/user-1/b.db}\n" + sqlitePlan)},
			notWant: []string{"/home/user-1"}, notes: []string{"kept its database in /home/user-1/b.db"}},
		{name: "the author's server directory is not written", rec: Recorded{Plan: []byte(strings.Replace(managedPlan, "flavor: mariadb", "flavor: mariadb\n  dir: /srv/x", 1)), Servers: mariadb()},
			notWant: []string{"/srv/x"}, notes: []string{"started its server in /srv/x"}},
		{name: "a remote server needs yours", rec: Recorded{Plan: []byte(mysqlPlan), Servers: mariadb(), Threads: []int{1, 8}},
			err: "ran against a mysql server (MariaDB 10.11.6)"},
		{name: "your server, method kept, other driver's codes dropped", rec: Recorded{Plan: []byte(mysqlPlan), Servers: mariadb(), Threads: []int{1, 8}},
			opts:    Options{Target: pg},
			want:    []string{`driver: "pgsql"`, `host: "127.0.0.1"`, "isolation: read-committed", "threads: [1, 8]"},
			notWant: []string{"host-1", "user-1", "ignore_errors"},
			notes:   []string{"target.ignore_errors", "this re-run against a pgsql server", "not this machine's auto"}},
		{name: "managed for a plan without a server: its rows would be mixed", rec: Recorded{Plan: []byte(mysqlPlan), Servers: mariadb(), Threads: []int{2}},
			opts: Options{Managed: true}, err: "no row would be compared"},
		{name: "managed from a recorded MariaDB", rec: Recorded{Plan: []byte(mysqlPlan), Servers: mariadb(), Threads: []int{2}},
			opts:    Options{Managed: true, AllowMixed: true},
			want:    []string{"flavor: \"mariadb\"", "isolation: read-committed", "ignore_errors"},
			notWant: []string{"host-1", "user-1", "password_env"},
			notes:   []string{"cpu-bound profile"}},
		{name: "managed TiDB refused", rec: Recorded{Plan: []byte(mysqlPlan), Servers: []suitedir.ServerRecord{{Server: result.Server{Flavor: "TiDB"}}}, Threads: []int{2}},
			opts: Options{Managed: true, AllowMixed: true}, err: "a flavour fairbench cannot start"},
		{name: "managed on the embedded database refused", rec: Recorded{Plan: []byte(sqlitePlan)},
			opts: Options{Managed: true}, err: "no server to start"},
		{name: "both refused", rec: Recorded{Plan: []byte(sqlitePlan)},
			opts: Options{Managed: true, Target: pg}, err: "not both"},
		{name: "the plan's own server kept", rec: Recorded{Plan: []byte(managedPlan), Servers: mariadb()},
			opts: Options{Managed: true}, want: []string{"flavor: mariadb", "server_cpus: [1, 2]"}},
		{name: "a CPU sweep cannot go to your server", rec: Recorded{Plan: []byte(managedPlan), Servers: mariadb()},
			opts: Options{Target: pg}, err: "re-run with --managed"},
		{name: "only some values", rec: Recorded{Plan: []byte(sqlitePlan)},
			opts:    Options{Only: []string{"threads=1,4", "workloads=oltp_read_only"}},
			want:    []string{"threads: [1, 4]", "workloads: [oltp_read_only]"},
			notWant: []string{"oltp_point_select"}},
		{name: "only a value the plan lacks", rec: Recorded{Plan: []byte(sqlitePlan)},
			opts: Options{Only: []string{"threads=3"}}, err: `"3" is not among the plan's matrix.threads (1, 2, 4)`},
		{name: "only an unknown key", rec: Recorded{Plan: []byte(sqlitePlan)},
			opts: Options{Only: []string{"treads=1"}}, err: "KEY one of workloads"},
		{name: "only a list the plan lacks", rec: Recorded{Plan: []byte(sqlitePlan)},
			opts: Options{Only: []string{"profiles=io-bound"}}, err: "has no server.profiles list"},
		{name: "not YAML", rec: Recorded{Plan: []byte("a: [")}, err: "not YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rec.Name = "b.fbz"
			p, err := Prepare(tt.rec, tt.opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := string(p.Text)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("plan lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("plan has %q:\n%s", w, text)
				}
			}
			notes := strings.Join(p.Notes, "\n")
			for _, w := range tt.notes {
				if !strings.Contains(notes, w) {
					t.Errorf("notes lack %q:\n%s", w, notes)
				}
			}
			if _, err := suite.ParsePlan("rerun.yaml", p.Text); err != nil {
				t.Errorf("the re-run's plan does not parse: %v\n%s", err, text)
			}
		})
	}
}
