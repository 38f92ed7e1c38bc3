package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/run/suite"
)

// TestTargetFlagsAndPlanAgree gives the same target as run flags and as a
// plan's target: keys: both must give the same configuration, or both refuse
// it naming the same mistake (targetspec is their one parser).
func TestTargetFlagsAndPlanAgree(t *testing.T) {
	env := map[string]string{"MYSQL_PWD": "my", "PGPASSWORD": "pg", "OTHER_PW": "other"}
	cases := []struct {
		name  string
		flags []string
		plan  string   // the target: mapping's keys
		want  string   // the kind wanted, "" for a refusal
		err   []string // words of the refusal with flags, then with the plan
	}{
		{"embedded default", nil, "", driver.KindSQLite, nil},
		{"sqlite file", []string{"--db-driver=sqlite", "--sqlite-db=x.db", "--db-ps-mode=disable"}, "driver: sqlite\n  sqlite_db: x.db\n  ps_mode: disable", driver.KindSQLite, nil},
		{"mysql defaults", []string{"--db-driver=mysql"}, "driver: mysql", driver.KindMySQL, nil},
		{"pg alias", []string{"--db-driver=pg", "--pgsql-host=a,b", "--pgsql-port=6432"}, "driver: pg\n  host: a,b\n  port: \"6432\"", driver.KindPgSQL, nil},
		{"postgres alias with TLS", []string{"--db-driver=postgres", "--pgsql-ssl=verify-full", "--pgsql-ssl-ca=ca.pem", "--pgsql-user=u", "--pgsql-db=d"},
			"driver: postgres\n  ssl: verify-full\n  ssl_ca: ca.pem\n  user: u\n  db: d", driver.KindPgSQL, nil},
		{"mariadb, a port per host, codes", []string{"--db-driver=mariadb", "--mysql-host=a,b", "--mysql-port=1,2", "--mysql-socket=/s", "--mysql-ignore-errors=1213"},
			"driver: mariadb\n  host: a,b\n  port: 1,2\n  socket: /s\n  ignore_errors: \"1213\"", driver.KindMySQL, nil},

		{"unknown driver", []string{"--db-driver=oracle"}, "driver: oracle", "", []string{`unknown --db-driver "oracle"`, `unknown driver "oracle"`}},
		{"ports do not match hosts", []string{"--db-driver=mysql", "--mysql-host=a,b,c", "--mysql-port=1,2"}, "driver: mysql\n  host: a,b,c\n  port: 1,2", "",
			[]string{"--mysql-port lists 2 ports for 3 hosts", "target.port: port lists 2 ports for 3 hosts"}},
		{"bad port", []string{"--db-driver=pgsql", "--pgsql-port=0"}, "driver: pgsql\n  port: \"0\"", "",
			[]string{`--pgsql-port "0": give a port number`, `target.port: port "0": give a port number`}},
		{"empty host entry", []string{"--db-driver=mysql", "--mysql-host=a,"}, "driver: mysql\n  host: \"a,\"", "",
			[]string{`--mysql-host has an empty entry`, `target.host: host has an empty entry`}},
		{"verify without a CA", []string{"--db-driver=mysql", "--mysql-ssl=verify-ca"}, "driver: mysql\n  ssl: verify-ca", "",
			[]string{"--mysql-ssl=verify-ca needs --mysql-ssl-ca=FILE", `ssl "verify-ca" needs ssl_ca: FILE`}},
		{"bad ps mode", []string{"--db-ps-mode=sometimes"}, "ps_mode: sometimes", "",
			[]string{`unknown --db-ps-mode "sometimes"`, `unknown ps_mode "sometimes"`}},
		{"another driver's codes", []string{"--db-driver=pgsql", "--pgsql-ignore-errors=1213"}, "driver: pgsql\n  ignore_errors: \"1213\"", "",
			[]string{`--pgsql-ignore-errors=1213: "1213" is not a PostgreSQL SQLSTATE`, `ignore_errors "1213": "1213" is not a PostgreSQL SQLSTATE`}},
	}
	getenv := func(k string) string { return env[k] }
	for _, c := range cases {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		tf := newTargetFlags(fs)
		if err := fs.Parse(c.flags); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fcfg, fign, ferr := tf.config(fs, getenv)
		text := "name: t\n"
		if c.plan != "" {
			text += "target:\n  " + c.plan + "\n"
		}
		p, err := suite.ParsePlan("plan.yaml", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		pcfg, pign, perr := p.TargetConfig(getenv)
		if c.want == "" {
			for i, err := range []error{ferr, perr} {
				if err == nil || !strings.Contains(err.Error(), c.err[i]) {
					t.Errorf("%s: error %v, want one with %q", c.name, err, c.err[i])
				}
			}
			continue
		}
		if ferr != nil || perr != nil {
			t.Errorf("%s: errors %v (flags), %v (plan)", c.name, ferr, perr)
			continue
		}
		if fcfg.Kind != c.want {
			t.Errorf("%s: kind %q, want %q", c.name, fcfg.Kind, c.want)
		}
		if !reflect.DeepEqual(fcfg, pcfg) || fign != pign {
			t.Errorf("%s: flags and plan differ:\nflags %+v %q\nplan  %+v %q", c.name, fcfg, fign, pcfg, pign)
		}
	}
}
