package pgbenchcli

import (
	"strings"
	"testing"
)

// TestTranslate: pgbench command lines become fairbench's, with the
// connection libpq would make (socket directory by default, TLS as
// PGSSLMODE says over TCP) and one note line for what differs.
func TestTranslate(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	cases := []struct {
		line string
		env  map[string]string
		args string
		note string
	}{
		{"-i -s 10 bench", nil,
			"prepare pgbench-tpcb-like --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --scale=10 --init-steps=dtgvp", ""},
		{"-i -I dtGvp --partitions=4 --partition-method=hash -F 90 -q --foreign-keys bench", nil,
			"prepare pgbench-tpcb-like --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --scale=1 --init-steps=dtGvpf --fillfactor=90 --partitions=4 --partition-method=hash --init-quiet", ""},
		{"-c 8 -j 2 -T 30 -P 5 -M prepared -h db -p 5433 -U app bench", nil,
			"run pgbench-tpcb-like --db-driver=pgsql --pgsql-host=db --pgsql-port=5433 --pgsql-user=app --pgsql-db=bench --pgsql-ssl=on --threads=8 --time=30 --report-interval=5 --interval-histograms --db-ps-mode=auto --query-mode=prepared --jobs=2 --vacuum-first=tables --output-style=pgbench",
			""},
		{"-S -n -c 4 -t 100", map[string]string{"PGHOST": "127.0.0.1", "PGSSLMODE": "disable", "PGDATABASE": "b"},
			"run pgbench-select-only --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=u --pgsql-db=b --pgsql-ssl=off --threads=4 --time=0 --events-per-thread=100 --db-ps-mode=disable --query-mode=simple --output-style=pgbench",
			""},
		{"-b simple-update@2 -f my.sql@3 -D n=5 -R 100 -L 20 -r --max-tries=5 --random-seed=7 -T 10 -v bench", nil,
			"run pgbench --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --builtin=simple-update@2 --script=my.sql@3 --threads=1 --time=10 --db-ps-mode=disable --query-mode=simple --define=n=5 --rate=100 --latency-limit=20 --report-per-command --max-tries=5 --rand-seed=7 --vacuum-first=all --output-style=pgbench", ""},
		// -l: files named after the process (PID 4242 here), split as -j splits the clients.
		{"-c 3 -j 2 -T 10 -l bench", nil,
			"run pgbench-tpcb-like --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=3 --time=10 --db-ps-mode=disable --query-mode=simple --jobs=2 --event-log=pgbench_log.4242 --event-log-files=2 --vacuum-first=tables --output-style=pgbench",
			"-l: "},
		{"-T 10 -l --log-prefix=/tmp/x/run1 --aggregate-interval=5 bench", nil,
			"run pgbench-tpcb-like --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=1 --time=10 --db-ps-mode=disable --query-mode=simple --event-log=/tmp/x/run1.4242 --event-log-aggregate=5 --vacuum-first=tables --output-style=pgbench",
			"-l: "},
		// -j: the clients of a thread share its poll (--jobs); with -C each connection waits alone.
		{"-c 8 -j 8 -S -T 10 bench", nil,
			"run pgbench-select-only --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=8 --time=10 --db-ps-mode=disable --query-mode=simple --vacuum-first=tables --output-style=pgbench", ""},
		{"-C -S -c 4 -j 2 -T 10 bench", nil,
			"run pgbench-select-only --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=4 --time=10 --db-ps-mode=disable --query-mode=simple --connect-per-event --vacuum-first=tables --output-style=pgbench",
			"-j: the connection each event opens"},
		{"-C -S -c 2 -T 10 bench", nil,
			"run pgbench-select-only --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=2 --time=10 --db-ps-mode=disable --query-mode=simple --connect-per-event --vacuum-first=tables --output-style=pgbench",
			""},
		{"-d -S -t 2 bench", nil,
			"run pgbench-select-only --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=1 --time=0 --events-per-thread=2 --db-ps-mode=disable --query-mode=simple --db-debug --vacuum-first=tables --output-style=pgbench",
			"-d: every statement is printed"},
		{"-T 10 -l --sampling-rate=0.01 bench", nil,
			"run pgbench-tpcb-like --db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-user=u --pgsql-db=bench --threads=1 --time=10 --db-ps-mode=disable --query-mode=simple --event-log=pgbench_log.4242 --event-log-sample=0.01 --vacuum-first=tables --output-style=pgbench",
			"-l: "},
	}
	saved := currentUser
	currentUser = func() string { return "u" }
	defer func() { currentUser = saved }()
	for _, tc := range cases {
		c, err := Parse(strings.Fields(tc.line), env(tc.env))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		c.PID = 4242
		tr := Translate(c)
		if got := strings.Join(tr.Args, " "); got != tc.args {
			t.Errorf("%s:\n got %s\nwant %s", tc.line, got, tc.args)
		}
		if (tc.note == "") != (tr.Note == "") || !strings.Contains(tr.Note, tc.note) {
			t.Errorf("%s: note %q, want one with %q", tc.line, tr.Note, tc.note)
		}
	}
}
