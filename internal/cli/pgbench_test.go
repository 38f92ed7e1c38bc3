package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload/pgbench/script"
)

// withConn runs fn on a connection to cfg's database.
func withConn(t *testing.T, cfg driver.Config, fn func(ctx context.Context, conn driver.Conn)) {
	t.Helper()
	d, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	conn, err := d.Connect(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fn(ctx, conn)
}

// queryInts runs q on cfg's database and returns its first row as integers.
func queryInts(t *testing.T, cfg driver.Config, q string) []int64 {
	t.Helper()
	var rows [][]string
	withConn(t, cfg, func(ctx context.Context, conn driver.Conn) {
		var err error
		if rows, err = conn.QueryStrings(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	})
	if len(rows) == 0 {
		t.Fatalf("%s: no row", q)
	}
	out := make([]int64, len(rows[0]))
	for i, v := range rows[0] {
		if v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: column %d is %q", q, i, v)
		}
		out[i] = int64(f)
	}
	return out
}

// execSQL runs statements on cfg's database.
func execSQL(t *testing.T, cfg driver.Config, stmts ...string) {
	t.Helper()
	withConn(t, cfg, func(ctx context.Context, conn driver.Conn) {
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	})
}

// TestPgbenchBuiltinsOnEveryTarget: pgbench's tables load and its three
// built-in scripts run on PostgreSQL, MariaDB and SQLite; the result records
// the script with its hash and every command's figures, and tpcb-like keeps
// the balances consistent (every delta in pgbench_history is in the
// accounts', tellers' and branches' balances). The runs are bounded by
// --events alone (--time=0): under the default --time of 10 s a loaded
// machine ended the 300 events at 170.
func TestPgbenchBuiltinsOnEveryTarget(t *testing.T) {
	t.Parallel()
	for name, cfg := range testdb.All(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			target := targetArgs(cfg)
			if r := runCLI(ctx, nil, join([]string{"prepare", "pgbench-tpcb-like", "--scale=1"}, target)...); r.code != 0 {
				t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			out := filepath.Join(t.TempDir(), "tpcb.json")
			r := runCLI(ctx, nil, join([]string{"run", "pgbench-tpcb-like", "--threads=2", "--events=300", "--time=0", "--report-per-command", "--output=" + out}, target)...)
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			if res.Totals.Counts.Events != 300 || res.Options["scale"] != "1" {
				t.Errorf("%d events at scale %q, want 300 at 1", res.Totals.Counts.Events, res.Options["scale"])
			}
			builtin, err := script.Builtin("tpcb-like")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Scripts) != 1 || res.Scripts[0].SHA256 != builtin.Hash || res.Scripts[0].Text != builtin.Text || !res.Scripts[0].Builtin {
				t.Fatalf("scripts %+v, want tpcb-like with its hash", res.Scripts)
			}
			sts := res.Scripts[0].Statements
			if len(sts) != len(builtin.Commands) {
				t.Fatalf("%d statements recorded, the script has %d commands", len(sts), len(builtin.Commands))
			}
			for _, st := range sts {
				if strings.HasPrefix(st.Text, "UPDATE pgbench_accounts") && (st.Count < 300 || st.AvgMs <= 0) {
					t.Errorf("%q ran %d times (mean %.3f ms), want at least once per event", st.Text, st.Count, st.AvgMs)
				}
			}
			sums := queryInts(t, cfg, "SELECT (SELECT SUM(abalance) FROM pgbench_accounts), (SELECT SUM(tbalance) FROM pgbench_tellers), (SELECT SUM(bbalance) FROM pgbench_branches), (SELECT SUM(delta) FROM pgbench_history), (SELECT COUNT(*) FROM pgbench_history)")
			if sums[0] != sums[3] || sums[1] != sums[3] || sums[2] != sums[3] || sums[4] < 300 {
				t.Errorf("balances %v: accounts, tellers and branches must each equal the history's deltas, from ≥ 300 rows", sums)
			}
			for _, wl := range []string{"pgbench-select-only", "pgbench-simple-update"} {
				r := runCLI(ctx, nil, join([]string{"run", wl, "--threads=2", "--events=100", "--time=0"}, target)...)
				if r.code != 0 || !strings.Contains(r.stdout, "total number of events:              100") {
					t.Errorf("%s: exit %d\n%s%s", wl, r.code, r.stdout, r.stderr)
				}
			}
			if r := runCLI(ctx, nil, join([]string{"cleanup", "pgbench-tpcb-like"}, target)...); r.code != 0 {
				t.Errorf("cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// userScript is a script of one's own: random numbers, a branch, a value
// read back with \gset, a -D variable and the client's id, into a table of
// its own.
const userScript = `-- my own transaction
\set k random(1, 1000)
\if :k > 500
  \set big 1
\else
  \set big 0
\endif
SELECT :k * 2 AS doubled \gset
INSERT INTO fb_mine (k, doubled, big, tag, client)
  VALUES (:k, :doubled, :big, :tag, :client_id);
\sleep 0 ms
`

// TestPgbenchUserScriptOnEveryTarget: a user's script file runs on
// PostgreSQL, MariaDB and SQLite with the whole language: every event
// inserts the row its variables say.
func TestPgbenchUserScriptOnEveryTarget(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mine.sql")
	if err := os.WriteFile(file, []byte(userScript), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range testdb.All(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			execSQL(t, cfg, "CREATE TABLE fb_mine (k INTEGER, doubled INTEGER, big INTEGER, tag INTEGER, client INTEGER)")
			out := filepath.Join(t.TempDir(), "mine.json")
			r := runCLI(context.Background(), nil, join([]string{"run", "pgbench", "--script=" + file + "@3", "--define=tag=7",
				"--threads=2", "--events=200", "--time=0", "--output=" + out}, targetArgs(cfg))...)
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			if len(res.Scripts) != 1 || res.Scripts[0].Name != file || res.Scripts[0].Weight != 3 || res.Scripts[0].Text != userScript || res.Scripts[0].Builtin {
				t.Fatalf("scripts %+v, want %s@3 with its text", res.Scripts, file)
			}
			got := queryInts(t, cfg, "SELECT COUNT(*), SUM(CASE WHEN doubled = 2 * k THEN 1 ELSE 0 END), SUM(CASE WHEN (k > 500) = (big = 1) THEN 1 ELSE 0 END), MIN(tag), MAX(tag), MIN(client), MAX(client), MIN(k), MAX(k) FROM fb_mine")
			if got[0] != 200 || got[1] != 200 || got[2] != 200 || got[3] != 7 || got[4] != 7 || got[5] != 0 || got[6] != 1 || got[7] < 1 || got[8] > 1000 {
				t.Errorf("rows: count, doubled right, big right, tag min/max, client min/max, k min/max = %v; want 200 rows all right, tag 7, clients 0 and 1, k in 1..1000", got)
			}
		})
	}
}

// TestPgbenchRetriesSerializationFailures: two transactions that each read
// what the other writes (write skew, held open by \sleep) cannot both commit
// at SERIALIZABLE; with --max-tries the one PostgreSQL rolls back is run
// again and completes, and the result counts the retries (one, or two when
// the first retry began before the other committed and met the same
// conflict).
func TestPgbenchRetriesSerializationFailures(t *testing.T) {
	t.Parallel()
	cfg := testdb.PgSQL(t)
	execSQL(t, cfg, "CREATE TABLE fb_ser (id INTEGER PRIMARY KEY, v INTEGER)", "INSERT INTO fb_ser VALUES (1, 0), (2, 0)")
	file := filepath.Join(t.TempDir(), "skew.sql")
	skew := "BEGIN ISOLATION LEVEL SERIALIZABLE;\nSELECT SUM(v) FROM fb_ser;\n\\sleep 500 ms\nUPDATE fb_ser SET v = v + 1 WHERE id = :client_id + 1;\nEND;\n"
	if err := os.WriteFile(file, []byte(skew), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "skew.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "pgbench", "--script=" + file, "--max-tries=5", "--report-per-command",
		"--threads=2", "--events=2", "--output=" + out}, targetArgs(cfg))...)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	c := res.Totals.Counts
	if c.Events != 2 || c.Retried != 1 || c.Retries < 1 || c.Retries > 2 || c.ErrorCount() != 0 {
		t.Errorf("events %d, retried %d, retries %d, failed %d: want both transactions done, one of them after one or two retries", c.Events, c.Retried, c.Retries, c.ErrorCount())
	}
	var retries int64
	for _, st := range res.Scripts[0].Statements {
		retries += st.Retries
	}
	if retries != c.Retries {
		t.Errorf("the statements count %d retries, the run %d: %+v", retries, c.Retries, res.Scripts[0].Statements)
	}
	if v := queryInts(t, cfg, "SELECT SUM(v) FROM fb_ser"); v[0] != 2 {
		t.Errorf("sum %d after two transactions, want 2", v[0])
	}
	// With one try the failure is counted and the run goes on.
	execSQL(t, cfg, "UPDATE fb_ser SET v = 0")
	r = runCLI(context.Background(), nil, join([]string{"run", "pgbench", "--script=" + file, "--threads=2", "--events=2", "--output=" + out}, targetArgs(cfg))...)
	if r.code != 0 {
		t.Fatalf("run with one try: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res = readResult(t, out)
	if c := res.Totals.Counts; c.Errors["40001"] < 1 || c.Retries != 0 || res.Status != "complete" {
		t.Errorf("one try: errors %v, retries %d, status %s; want a counted 40001 failure and a complete run", c.Errors, c.Retries, res.Status)
	}
}

// TestPgbenchScriptErrorsBeforeConnecting: a bad script is refused with its
// file, line and column, exit 2, before anything connects (the target does
// not exist).
func TestPgbenchScriptErrorsBeforeConnecting(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ text, want string }{
		{"\\set x 1 +\nSELECT 1;\n", "bad.sql:1:"},
		{"SELECT 1;\n\\frobnicate\n", "bad.sql:2:1:"},
		{"SELECT :nope;\n", "bad.sql:1:8:"},
		{"\\if 1\nSELECT 1;\n", "bad.sql:"},
		{"\\shell ls\n", "bad.sql:1:1:"},
		{"\\set x 1 / 0\nSELECT :x;\n", "bad.sql:1:1: \\set x 1 / 0: division by zero"},
	}
	for _, tc := range cases {
		file := filepath.Join(dir, "bad.sql")
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(context.Background(), nil, "run", "pgbench", "--script="+file, "--db-driver=pgsql", "--pgsql-host=/nonexistent", "--time=1")
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "nonexistent") {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming %s, before connecting", tc.text, r.code, r.stderr, ExitUsage, tc.want)
		}
	}
	for _, arg := range []string{"--builtin=tpcb-like@0", "--builtin=tpcb-like@-1", "--builtin=nosuch", "--script=" + filepath.Join(dir, "missing.sql")} {
		r := runCLI(context.Background(), nil, "run", "pgbench", arg, "--db-driver=pgsql", "--pgsql-host=/nonexistent", "--time=1")
		if r.code != ExitUsage || strings.Contains(r.stderr, "nonexistent") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d before connecting", arg, r.code, r.stderr, ExitUsage)
		}
	}
}

// TestPgbenchQueryModeSetsTheStatementMode: --query-mode decides
// --db-ps-mode (simple: text statements; extended, prepared: bound
// parameters), recorded as such; the two at odds are refused.
func TestPgbenchQueryModeSetsTheStatementMode(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	target := targetArgs(cfg)
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "pgbench-select-only", "--scale=1"}, target)...); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for mode, want := range map[string]string{"simple": "disable", "extended": "auto", "prepared": "auto"} {
		out := filepath.Join(t.TempDir(), mode+".json")
		r := runCLI(context.Background(), nil, join([]string{"run", "pgbench-select-only", "--query-mode=" + mode, "--events=20", "--output=" + out}, target)...)
		if r.code != 0 {
			t.Fatalf("--query-mode=%s: exit %d\n%s%s", mode, r.code, r.stdout, r.stderr)
		}
		if res := readResult(t, out); res.Options["db-ps-mode"] != want || res.Options["query-mode"] != mode {
			t.Errorf("--query-mode=%s recorded db-ps-mode %q, query-mode %q; want %q", mode, res.Options["db-ps-mode"], res.Options["query-mode"], want)
		}
	}
	r := runCLI(context.Background(), nil, join([]string{"run", "pgbench-select-only", "--query-mode=simple", "--db-ps-mode=auto", "--events=20"}, target)...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--query-mode=simple needs --db-ps-mode=disable") {
		t.Errorf("simple with auto: exit %d, stderr %q; want exit %d naming both", r.code, r.stderr, ExitUsage)
	}
}

// TestConnectPerEventOpensAConnectionPerTransaction: with
// --connect-per-event (pgbench's -C) every transaction runs on a server
// session of its own — the server sees as many sessions as transactions —
// and the result counts the connections and their time; without it the
// threads keep theirs.
func TestConnectPerEventOpensAConnectionPerTransaction(t *testing.T) {
	t.Parallel()
	sessionOf := map[string]string{"pgsql": "pg_backend_pid()", "mysql": "CONNECTION_ID()"}
	for name, cfg := range testdb.All(t) {
		session, ok := sessionOf[name]
		if !ok {
			continue // SQLite has no server sessions to count
		}
		t.Run(name, func(t *testing.T) {
			execSQL(t, cfg, "CREATE TABLE fb_sessions (id BIGINT)")
			file := filepath.Join(t.TempDir(), "session.sql")
			if err := os.WriteFile(file, []byte("INSERT INTO fb_sessions VALUES ("+session+");\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			for _, perEvent := range []bool{true, false} {
				execSQL(t, cfg, "DELETE FROM fb_sessions")
				args := []string{"run", "pgbench", "--script=" + file, "--threads=2", "--events=20", "--output=" + out}
				if perEvent {
					args = append(args, "--connect-per-event")
				}
				r := runCLI(context.Background(), nil, join(args, targetArgs(cfg))...)
				if r.code != 0 {
					t.Fatalf("run (per event %v): exit %d\n%s%s", perEvent, r.code, r.stdout, r.stderr)
				}
				c := readResult(t, out).Totals.Counts
				got := queryInts(t, cfg, "SELECT COUNT(*), COUNT(DISTINCT id) FROM fb_sessions")
				switch {
				case perEvent && (got[0] != 20 || got[1] != 20 || c.Connects != 20 || c.ConnectMs <= 0):
					t.Errorf("per event: %d transactions in %d sessions, result: %d connects in %v ms; want 20 in 20, 20 connects taking time", got[0], got[1], c.Connects, c.ConnectMs)
				case !perEvent && (got[0] != 20 || got[1] != 2 || c.Connects != 0 || c.ConnectMs != 0):
					t.Errorf("kept connections: %d transactions in %d sessions, result: %d connects in %v ms; want 20 in the threads' 2, none counted", got[0], got[1], c.Connects, c.ConnectMs)
				}
			}
		})
	}
}

// TestJobsShareOSThreads: --jobs (pgbench's -j) runs every event of threads
// that share OS threads, on every target — with a script that sleeps and on
// a --rate schedule — and keeps the setting in the result. A thread that
// sleeps leaves its group: client 0 sleeps 300 ms per transaction and the
// other clients of its group (1 and 2 of 5 with --jobs=2) still take
// milliseconds, not the sleeper's 300: 16 of the 20 transactions are quick,
// so the 75th percentile is (a client that holds its group up while it
// sleeps leaves only 8 to 13 quick). A negative count and --jobs with
// --connect-per-event are refused before connecting.
func TestJobsShareOSThreads(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sleepy.sql")
	script := "\\set n random(1, 100)\n\\if :client_id = 0\n\\sleep 300 ms\n\\endif\nSELECT :n;\n\\sleep 1 ms\nSELECT :n + 1;\n"
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range testdb.All(t) {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			for _, extra := range [][]string{{"--events-per-thread=4"}, {"--time=2", "--rate=200"}} {
				args := join([]string{"run", "pgbench", "--script=" + file, "--threads=5", "--jobs=2", "--percentile=75", "--output=" + out}, extra, targetArgs(cfg))
				r := runCLI(context.Background(), nil, args...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d\n%s%s", extra, r.code, r.stdout, r.stderr)
				}
				res := readResult(t, out)
				c := res.Totals.Counts
				if res.Status != "complete" || len(c.Errors) != 0 || res.Options["jobs"] != "2" {
					t.Fatalf("%v: status %s, errors %v, options jobs %q; want complete, none, 2", extra, res.Status, c.Errors, res.Options["jobs"])
				}
				if p75 := res.Totals.Latency.Percentiles["75"]; extra[0] == "--events-per-thread=4" && p75 >= 150 {
					t.Errorf("75th percentile latency %.1f ms: the sleeping client held up the others of its group", p75)
				}
				if extra[0] == "--events-per-thread=4" && c.Events != 20 {
					t.Errorf("%d events, want 5 threads x 4", c.Events)
				}
				if extra[0] == "--time=2" && c.Events < 150 {
					t.Errorf("%d events in 2 s at 200/s: the threads that share OS threads fell behind", c.Events)
				}
			}
		})
	}
	for _, bad := range [][]string{{"--jobs=-1"}, {"--jobs=2", "--connect-per-event"}} {
		r := runCLI(context.Background(), nil, join([]string{"run", "pgbench", "--script=" + file, "--threads=4", "--time=1", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=1"}, bad)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "--jobs") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming --jobs", bad, r.code, r.stderr, ExitUsage)
		}
	}
}
