package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/compat/importer"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestRunTimeTakesADuration: --time and --warmup-time take a duration as
// plans do ("1500ms", "1s") beside plain seconds, and the result records
// them in seconds.
func TestRunTimeTakesADuration(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=100",
		"--time=1500ms", "--warmup-time=0.5", "--output=" + out}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Options["time"] != "1.5" || res.Options["warmup-time"] != "0.5" {
		t.Fatalf("options time=%q warmup-time=%q, want 1.5 and 0.5", res.Options["time"], res.Options["warmup-time"])
	}
	if res.Totals.Seconds < 1.4 || res.Warmup == nil {
		t.Fatalf("measured %.3fs (want about 1.5), warm-up %v", res.Totals.Seconds, res.Warmup)
	}
}

// goTPCLines are real go-tpc command lines, as typed in go-tpc's README,
// TiDB's documentation (`tiup bench tpcc …`) and public scripts, with the
// shell's variables and templates given values; each is paired with the
// same command in fairbench's own form. In the go-tpc form a run prints
// go-tpc's lines every 10 s, as go-tpc does.
var goTPCLines = []struct{ line, modern string }{
	// go-tpc README and TiDB's tiup-bench page.
	{"go-tpc tpcc --warehouses 4 --parts 4 prepare", "prepare tpcc --warehouses=4 --parts=4"},
	{"go-tpc tpcc --warehouses 4 run", "run tpcc --warehouses=4 --report-interval=10 --output-style=go-tpc"},
	{"go-tpc tpcc --warehouses 4 cleanup", "cleanup tpcc --warehouses=4"},
	{"go-tpc tpcc --warehouses 4 check", "check tpcc --warehouses=4"},
	{"go-tpc tpcc --warehouses 4 prepare -T 4", "prepare tpcc --warehouses=4 --threads=4"},
	{"go-tpc tpcc --warehouses 4 run -T 4", "run tpcc --warehouses=4 --threads=4 --report-interval=10 --output-style=go-tpc"},
	{"go-tpc tpcc --warehouses 4 run -T 4 --wait", "run tpcc --warehouses=4 --threads=4 --wait --report-interval=10 --output-style=go-tpc"},
	{"go-tpc -H 127.0.0.1 -P 3306 -D tpcc tpcc --warehouses 4 run",
		"run tpcc --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-db=tpcc --warehouses=4 --report-interval=10 --output-style=go-tpc"},
	{"tiup bench tpcc --warehouses 4 prepare --output-dir data --output-type=csv", "prepare tpcc --warehouses=4 --output-dir=data"},
	{"go-tpc tpcc prepare -d postgres -U myuser -p '12345678' -D test -H 127.0.0.1 -P 5432 --conn-params sslmode=disable",
		"prepare tpcc --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=myuser --pgsql-password=12345678 --pgsql-db=test --pgsql-ssl=off"},
	// TiDB's "How to Run TPC-C Test on TiDB" and its benchmark reports.
	{"tiup bench tpcc -H 172.16.5.140,172.16.5.141 -P 4000 -D tpcc --warehouses 1000 --threads 20 prepare",
		"prepare tpcc --db-driver=mysql --mysql-host=172.16.5.140,172.16.5.141 --mysql-port=4000 --mysql-db=tpcc --warehouses=1000 --threads=20"},
	{"tiup bench tpcc prepare --warehouses 5000 --db tpcc -H 127.0.0.1 -P 4000",
		"prepare tpcc --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-db=tpcc --warehouses=5000"},
	{"tiup bench tpcc run -U root --db tpcc --host 127.0.0.1 --port 4000 --time 1800s --warehouses 5000 --threads 64",
		"run tpcc --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-db=tpcc --time=30m --warehouses=5000 --threads=64 --report-interval=10 --output-style=go-tpc"},
	// Public scripts.
	{"go-tpc tpcc prepare --warehouses 300 -D test -H 172.16.5.177 -P 4000 -T 8 -U root",
		"prepare tpcc --db-driver=mysql --mysql-host=172.16.5.177 --mysql-port=4000 --mysql-user=root --mysql-db=test --warehouses=300 --threads=8"},
	{"go-tpc tpcc --warehouses 300 run -D test -H 172.16.5.177 -P 4000 -T 8 -U root",
		"run tpcc --db-driver=mysql --mysql-host=172.16.5.177 --mysql-port=4000 --mysql-user=root --mysql-db=test --warehouses=300 --threads=8 --report-interval=10 --output-style=go-tpc"},
	{"go-tpc tpcc -T 16 -P 4000 -H 127.0.0.1 -U root --dropdata --warehouses 10 --time 102400h prepare",
		"prepare tpcc --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --warehouses=10 --threads=16 --replace"},
	{"go-tpc tpcc prepare --no-check true --warehouses 1 -T 4 -H mysql -U root -p '123456' -D test -P 3306",
		"prepare tpcc --db-driver=mysql --mysql-host=mysql --mysql-port=3306 --mysql-user=root --mysql-password=123456 --mysql-db=test --warehouses=1 --threads=4 --no-check"},
	{"go-tpc tpcc --warehouses 8 run -d postgres -U ubuntu -p '5432' -D postgres -H 127.0.0.1 -P 5432 --conn-params sslmode=disable -T 16 --time 100s",
		"run tpcc --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=ubuntu --pgsql-password=5432 --pgsql-db=postgres --pgsql-ssl=off --warehouses=8 --threads=16 --time=100 --report-interval=10 --output-style=go-tpc"},
	{"go-tpc tpcc --warehouses 128 prepare -d postgres -U tpcc -p secret -D tpcc -H 172.24.40.32 -P 26257 --conn-params sslmode=disable -T 32 --ignore-error --no-check",
		"prepare tpcc --db-driver=pgsql --pgsql-host=172.24.40.32 --pgsql-port=26257 --pgsql-user=tpcc --pgsql-password=secret --pgsql-db=tpcc --pgsql-ssl=off --warehouses=128 --threads=32 --no-check"},
	// go-tpc's --isolation (database/sql's numbers) and --conn-params (its DSN's query: session variables).
	{"tiup bench tpcc -H 127.0.0.1 -P 4000 -D tpcc --warehouses 4 --isolation 2 --conn-params tidb_isolation_read_engines=%27tikv%27 run",
		"run tpcc --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-db=tpcc --warehouses=4 --isolation-level=read-committed --session-var=tidb_isolation_read_engines='tikv' --report-interval=10 --output-style=go-tpc"},
	{"go-tpc tpcc -d postgres -H 127.0.0.1 -P 5432 -D tpcc --warehouses 4 --isolation 6 --conn-params sslmode=disable&options=-c%20statement_timeout%3D0 run",
		"run tpcc --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-db=tpcc --warehouses=4 --isolation-level=serializable --pgsql-ssl=off --session-var=statement_timeout=0 --report-interval=10 --output-style=go-tpc"},
}

// words splits a command line as the shell would (single quotes only), and
// drops the program (go-tpc, ./bin/go-tpc, tiup bench) that fairbench replaces.
func words(line string) []string {
	var out []string
	for _, w := range strings.Fields(line) {
		out = append(out, strings.Trim(w, "'"))
	}
	if out[0] == "tiup" {
		return out[2:]
	}
	return out[1:]
}

// resolve parses args as Execute would, up to the command's flags: the
// command's path and every option's resolved value, with the notes of the
// go-tpc form.
func resolveGoTPC(t *testing.T, args []string) (string, map[string]string, []string) {
	t.Helper()
	var errb bytes.Buffer
	a := &App{Stdout: &errb, Stderr: &errb, Getenv: func(string) string { return "" }, Workloads: DefaultWorkloads()}
	args, code, done := a.fromGoTPC(args)
	if done {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	cmd, rest, err := a.rootCommand().Find(args)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return cmd.CommandPath(), resolvedOptions(cmd.Flags()), a.formNotes
}

// TestGoTPCCommandLines: each real go-tpc command line resolves to the same
// command and the same value of every option as its fairbench form, and
// passes every check a command makes before it connects.
func TestGoTPCCommandLines(t *testing.T) {
	if len(goTPCLines) < 10 {
		t.Fatalf("%d go-tpc command lines, want at least 10", len(goTPCLines))
	}
	for _, c := range goTPCLines {
		t.Run(c.line, func(t *testing.T) {
			args := words(c.line)
			path, opts, notes := resolveGoTPC(t, args)
			wantPath, want, _ := resolveGoTPC(t, strings.Fields(c.modern))
			if path != wantPath {
				t.Fatalf("command %q, want %q", path, wantPath)
			}
			for k, v := range want {
				if opts[k] != v {
					t.Errorf("--%s=%q, want %q (as %s)", k, opts[k], v, c.modern)
				}
			}
			for _, n := range notes {
				if strings.Contains(n, "12345678") || strings.Contains(n, "123456") {
					t.Errorf("a note shows the password: %s", n)
				}
			}
			dir := t.TempDir() // prepare --output-dir=data, the embedded database
			t.Chdir(dir)
			var errb bytes.Buffer
			a := &App{Stdout: &errb, Stderr: &errb, Getenv: func(string) string { return "" }}
			if code := a.CheckCommandLine(context.Background(), args); code != ExitOK {
				t.Errorf("exit %d before connecting:\n%s", code, errb.String())
			}
		})
	}
}

// goTPCSummary reads the counts of the [Summary] lines and the tpmC line of
// go-tpc's plain output.
func goTPCSummary(t *testing.T, out string) (counts map[string]int64, tpmC string, firstNewOrder int64) {
	t.Helper()
	counts = map[string]int64{}
	firstNewOrder = -1
	for _, l := range strings.Split(out, "\n") {
		name, rest, ok := strings.Cut(l, " - ")
		switch {
		case strings.HasPrefix(l, "tpmC: "):
			tpmC, _, _ = strings.Cut(strings.TrimPrefix(l, "tpmC: "), ",")
		case !ok:
		case strings.HasPrefix(name, "[Summary] "), strings.HasPrefix(name, "[Current] "):
			var n int64
			for _, f := range strings.Split(rest, ", ") {
				if v, found := strings.CutPrefix(f, "Count: "); found {
					n, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			op := strings.TrimSpace(name[len("[Summary] "):])
			if strings.HasPrefix(name, "[Summary] ") {
				counts[op] = n
			} else if op == "NEW_ORDER" && firstNewOrder < 0 {
				firstNewOrder = n
			}
		}
	}
	return counts, tpmC, firstNewOrder
}

// checkGoTPCRun holds a run's go-tpc lines against the result it wrote: the
// [Summary] counts are the result's per-transaction events, the tpmC line is
// its tpmC figure, the first [Current] block is its first interval, and
// fairbench's importer of go-tpc logs reads the output back to the same
// figures.
func checkGoTPCRun(t *testing.T, r cliRun, res *result.Result, threads int) {
	t.Helper()
	counts, tpmC, first := goTPCSummary(t, r.stdout)
	for _, k := range res.Totals.Kinds {
		if got := counts[strings.ToUpper(k.Name)]; got != k.Events {
			t.Errorf("[Summary] %s Count %d, the result has %d events", strings.ToUpper(k.Name), got, k.Events)
		}
	}
	if want := strconv.FormatFloat(res.Figures[0].Value, 'f', 1, 64); res.Figures[0].Name != "tpmC" || tpmC != want {
		t.Errorf("tpmC line %q, the result's %s is %s", tpmC, res.Figures[0].Name, want)
	}
	if len(res.Intervals) == 0 || first != res.Intervals[0].KindEvents[0] {
		t.Errorf("first [Current] NEW_ORDER Count %d, the result's first interval has %v", first, res.Intervals)
	}
	if !strings.Contains(r.stdout, "\nFinished\n") || strings.Contains(r.stdout, "SQL statistics") {
		t.Errorf("stdout is not go-tpc's layout alone:\n%s", r.stdout)
	}
	imported, err := importer.Parse(strings.NewReader(r.stdout), "stdout", importer.Options{Threads: []int{threads}})
	if err != nil || len(imported) != 1 {
		t.Fatalf("fairbench import reads the go-tpc output as %d runs: %v\n%s", len(imported), err, r.stdout)
	}
	for _, k := range imported[0].Totals.Kinds {
		if counts[strings.ToUpper(k.Name)] != k.Events {
			t.Errorf("imported %s: %d events, the output says %d", k.Name, k.Events, counts[strings.ToUpper(k.Name)])
		}
	}
}

// TestGoTPCCommandLinesRun runs go-tpc command lines from the table above
// (TiDB's documentation) for real against MariaDB, at 1 warehouse with the
// host, port, user and database substituted: prepare, run, check, cleanup.
func TestGoTPCCommandLinesRun(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	host, port := cfg.Hosts[0], strconv.Itoa(cfg.Ports[0])
	out := filepath.Join(t.TempDir(), "r.json")
	ctx := context.Background()
	steps := [][]string{
		{"tpcc", "-H", host, "-P", port, "-U", cfg.User, "-D", cfg.Database, "--warehouses", "1", "--threads", "2", "prepare"},
		{"tpcc", "run", "-U", cfg.User, "--db", cfg.Database, "--host", host, "--port", port, "--time", "3s", "--warehouses", "1", "--threads", "2", "--interval", "1s", "-o", out,
			"--isolation", "2", "--conn-params", "lock_wait_timeout=321&sql_mode=%27STRICT_ALL_TABLES%27"},
		{"tpcc", "-H", host, "-P", port, "-U", cfg.User, "-D", cfg.Database, "--warehouses", "1", "check"},
		{"tpcc", "-H", host, "-P", port, "-U", cfg.User, "-D", cfg.Database, "--warehouses", "1", "cleanup"},
	}
	for i, args := range steps {
		r := runCLI(ctx, nil, args...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "go-tpc's defaults differ") {
			t.Errorf("%v: a note on defaults though every connection flag is given:\n%s", args, r.stderr)
		}
		if i != 1 {
			continue
		}
		res := readResult(t, out)
		if res.Workload != "tpcc" || res.Threads != 2 || res.Target.Driver != "mysql" || res.Options["output-style"] != "go-tpc" {
			t.Fatalf("result: workload %s threads %d driver %s style %q", res.Workload, res.Threads, res.Target.Driver, res.Options["output-style"])
		}
		if got := strings.Join(res.CommandLine, " "); got != "fairbench "+strings.Join(args, " ") {
			t.Errorf("command line %q, want the go-tpc form as given", got)
		}
		checkGoTPCRun(t, r, res, 2)
		// --isolation 2 and --conn-params, read back from the server.
		if ss := res.Target.Session; ss == nil || ss.Isolation != "READ-COMMITTED" || ss.Variables["lock_wait_timeout"] != "321" ||
			ss.Variables["sql_mode"] != "STRICT_ALL_TABLES" || res.Options["isolation-level"] != "read-committed" {
			t.Errorf("session %+v, isolation-level option %q; want READ-COMMITTED, lock_wait_timeout 321, sql_mode STRICT_ALL_TABLES",
				res.Target.Session, res.Options["isolation-level"])
		}
	}
}

// TestGoTPCFormOnEmbeddedSQLite runs `go-tpc tpcc --warehouses 4 run -T 4`
// from go-tpc's README on the embedded database at 1 warehouse, with go-tpc's
// json style: fairbench's own options pass through (--sqlite-db,
// --warmup-time), and every report is a JSON array.
func TestGoTPCFormOnEmbeddedSQLite(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, "tpcc", "--warehouses", "1", "run", "-T", "2", "--output", "json", "--interval", "1s",
		"--time", "2s", "--result", out, "--sqlite-db="+cfg.Path, "--warmup-time=1")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Warmup == nil || res.Options["output-style"] != "go-tpc-json" {
		t.Fatalf("warm-up %v (--warmup-time passes through), style %q", res.Warmup, res.Options["output-style"])
	}
	var summary int64
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if l == "Finished" {
			continue
		}
		var rows []map[string]string
		if err := json.Unmarshal([]byte(l), &rows); err != nil || len(rows) == 0 {
			t.Fatalf("stdout line is not a JSON array: %q (%v)", l, err)
		}
		for _, row := range rows {
			if row["Prefix"] == "[Summary] " && row["Operation"] == "NEW_ORDER" {
				summary, _ = strconv.ParseInt(row["Count"], 10, 64)
			}
		}
	}
	if summary == 0 || summary != res.Totals.Kinds[0].Events {
		t.Errorf("[Summary] NEW_ORDER Count %d, the result has %d", summary, res.Totals.Kinds[0].Events)
	}
}
