package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// rerunPlan is a small plan: two thread counts, two rounds, one second a cell
// at 400 events/s (what a re-run does, not how fast).
const rerunPlan = `name: %s
%s
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1, 2], rounds: 2}
run: {time: 1, rate: 400}
`

// suiteBundle runs plan into a suite directory and bundles it.
func suiteBundle(ctx context.Context, t *testing.T, plan string, createArgs ...string) (dir, fbz string) {
	t.Helper()
	tmp := t.TempDir()
	dir, fbz = filepath.Join(tmp, "suite"), filepath.Join(tmp, "theirs.fbz")
	if r := runCLI(ctx, nil, "suite", "run", writeFile(t, "plan.yaml", plan), "--out", dir); r.code != ExitOK {
		t.Fatalf("suite run: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(ctx, nil, append([]string{"bundle", "create", dir, "-o", fbz}, createArgs...)...); r.code != ExitOK {
		t.Fatalf("bundle create: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return dir, fbz
}

// checkRerunReport checks a re-run's output: the comparison of yours with
// the bundle's, row by row, and the HTML report with both.
func checkRerunReport(t *testing.T, r cliRun, out string) {
	t.Helper()
	if r.code != ExitOK {
		t.Fatalf("rerun: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"Re-running ", "Suite complete: 4 cells", "yours vs theirs", "oltp_point_select", "The report: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rerun output lacks %q:\n%s", want, r.stdout)
		}
	}
	// Two rounds a side can tell only large differences: the headline says
	// what it could tell, and never claims there is none.
	_, headline, _ := strings.Cut(r.stdout, "Headline:\n")
	headline, _, _ = strings.Cut(headline, "\n")
	if !strings.Contains(headline, "oltp_point_select") || strings.Contains(headline, "no difference") {
		t.Errorf("headline %q: want oltp_point_select's, without \"no difference\"", headline)
	}
	html, err := os.ReadFile(filepath.Join(out, "rerun-report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"yours vs theirs", ">yours<", ">theirs<"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

func TestRerunOnTheEmbeddedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	theirs, mine := testdb.SQLite(t), testdb.SQLite(t)
	_, fbz := suiteBundle(ctx, t, fmt.Sprintf(rerunPlan, "embedded", "target: {sqlite_db: "+theirs.Path+"}"),
		"--prices", filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml"))
	out := filepath.Join(t.TempDir(), "mine")

	dry := runCLI(ctx, nil, "rerun", fbz, "--sqlite-db", mine.Path, "--out", out, "--dry-run")
	if dry.code != ExitOK || !strings.Contains(dry.stdout, "4 cells") || !strings.Contains(dry.stdout, "note: the bundle's price sheet prices ") {
		t.Fatalf("rerun --dry-run: %d\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	r := runCLI(ctx, nil, "rerun", fbz, "--sqlite-db", mine.Path, "--out", out)
	checkRerunReport(t, r, out)
}

func TestRerunOnMariaDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	theirs, mine := testdb.MySQL(t), testdb.MySQL(t)
	target := fmt.Sprintf("target: {driver: mysql, host: %s, port: %d, user: %s, db: %s}", theirs.Hosts[0], theirs.Ports[0], theirs.User, theirs.Database)
	_, fbz := suiteBundle(ctx, t, fmt.Sprintf(rerunPlan, "mariadb", target))
	out := filepath.Join(t.TempDir(), "mine")

	// The bundle's server is redacted and not yours: refused before anything runs.
	r := runCLI(ctx, nil, "rerun", fbz, "--out", out)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "give the target options of yours") {
		t.Fatalf("rerun without a target: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused re-run created its directory")
	}
	// Over the socket, where the bundle went over TCP: no row would match.
	sock := runCLI(ctx, nil, "rerun", fbz, "--out", out, "--mysql-socket="+testdb.MySQLSocket(), "--mysql-user="+mine.User, "--mysql-db="+mine.Database)
	if sock.code != ExitUsage || !strings.Contains(sock.stderr, "the transport is part of every row's key") {
		t.Fatalf("rerun over the socket: %d\n%s%s", sock.code, sock.stdout, sock.stderr)
	}
	args := []string{"rerun", fbz, "--out", out, "--db-driver=mysql", "--mysql-host=" + mine.Hosts[0],
		"--mysql-port=" + strconv.Itoa(mine.Ports[0]), "--mysql-user=" + mine.User, "--mysql-db=" + mine.Database}
	checkRerunReport(t, runCLI(ctx, nil, args...), out)
}

func TestRerunBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.SQLite(t)
	// One cell is enough: every refusal comes before anything runs.
	plan := strings.Replace(fmt.Sprintf(rerunPlan, "bad", "target: {sqlite_db: "+db.Path+"}"), "threads: [1, 2], rounds: 2", "threads: [1]", 1)
	_, fbz := suiteBundle(ctx, t, plan)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"only a value the plan lacks", []string{fbz, "--only", "threads=8"}, `"8" is not among the plan's matrix.threads (1)`},
		{"managed on the embedded database", []string{fbz, "--managed"}, "no server to start"},
		{"managed and a target", []string{fbz, "--managed", "--db-driver=mysql"}, "not both"},
		{"not a bundle", []string{writeFile(t, "x.fbz", "hello")}, "x.fbz"},
		{"no such bundle", []string{filepath.Join(t.TempDir(), "none.fbz")}, "none.fbz"},
	}
	for _, tt := range tests {
		r := runCLI(ctx, nil, append([]string{"rerun"}, tt.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: %d, want exit 2 with %q\n%s%s", tt.name, r.code, tt.want, r.stdout, r.stderr)
		}
	}
}

func TestRerunOfSingleRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	theirs, mine := testdb.SQLite(t), testdb.SQLite(t)
	tmp := t.TempDir()
	common := []string{"--sqlite-db=" + theirs.Path, "--tables=1", "--table-size=1000"}
	if r := runCLI(ctx, nil, join([]string{"prepare", "oltp_point_select"}, common)...); r.code != ExitOK {
		t.Fatalf("prepare: %d\n%s", r.code, r.stderr)
	}
	var files []string
	for i, threads := range []string{"1", "1", "2", "2"} {
		out := filepath.Join(tmp, fmt.Sprintf("r%d.json", i))
		args := join([]string{"run", "oltp_point_select", "--time=1", "--rate=400", "--threads=" + threads, "--output=" + out}, common)
		if r := runCLI(ctx, nil, args...); r.code != ExitOK {
			t.Fatalf("run: %d\n%s", r.code, r.stderr)
		}
		files = append(files, out)
	}
	fbz := filepath.Join(tmp, "theirs.fbz")
	if r := runCLI(ctx, nil, append([]string{"bundle", "create", "-o", fbz}, files...)...); r.code != ExitOK {
		t.Fatalf("bundle create: %d\n%s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "mine")
	dry := runCLI(ctx, nil, "rerun", fbz, "--sqlite-db="+mine.Path, "--out", out, "--dry-run")
	if dry.code != ExitOK || strings.Count(dry.stdout, "fairbench run oltp_point_select") != 4 || strings.Contains(dry.stdout, theirs.Path) {
		t.Fatalf("rerun --dry-run: %d, want the 4 runs against the new database\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	if r := runCLI(ctx, nil, "rerun", fbz, "--sqlite-db="+mine.Path, "--out", out, "--only", "threads=1"); r.code != ExitUsage || !strings.Contains(r.stderr, "holds single runs") {
		t.Errorf("--only of single runs: %d %s", r.code, r.stderr)
	}
	r := runCLI(ctx, nil, "rerun", fbz, "--sqlite-db="+mine.Path, "--out", out)
	if r.code != ExitOK || strings.Count(r.stdout, "-- [") != 5 { // one prepare, four runs
		t.Fatalf("rerun: %d, want one prepare and four runs\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"yours vs theirs", "oltp_point_select", "The report: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rerun output lacks %q", want)
		}
	}
	// The time left falls from run to run (4 × 1 s planned).
	var left []float64
	for _, m := range regexp.MustCompile(`\(([0-9.]+)s left, ETA [0-9:]+\)`).FindAllStringSubmatch(r.stdout, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		left = append(left, v)
	}
	if len(left) != 4 || left[0] != 4 || !(left[3] < left[0]) {
		t.Errorf("time left per run %v, want 4 values falling from 4s", left)
	}
	results, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(results) != 4 {
		t.Errorf("%d results in %s, want 4", len(results), out)
	}
}

func TestReplayOf(t *testing.T) {
	app := &App{Workloads: DefaultWorkloads()}
	target := []string{"--mysql-host=db2"}
	tests := []struct {
		line      []string
		prep, run string // the arguments after the workload, "" when refused
		err       string
	}{
		{line: []string{"fairbench", "run", "oltp_read_only", "--threads=4", "--tables", "2", "--mysql-host=host-1", "--mysql-user=user-1", "--output=x.json", "--rand-type=zipfian", "--server-agent=http://host-1:9901", "--time=30"},
			prep: "--tables=2 --rand-type=zipfian --mysql-host=db2", run: "--tables=2 --threads=4 --time=30 --rand-type=zipfian --mysql-host=db2"},
		{line: []string{"fairbench", "run", "oltp_read_only", "--session-var=a=1", "--session-var=b=2", "--report-interval=1"},
			prep: "--session-var=a=1 --session-var=b=2 --mysql-host=db2", run: "--report-interval=1 --session-var=a=1 --session-var=b=2 --mysql-host=db2"},
		// Where the author's files went is not written here.
		{line: []string{"fairbench", "run", "oltp_read_only", "--event-log=/home/user-1/ev", "--event-log-files=2", "--event-log-aggregate=5", "--cpu-profile=p", "--connect-per-event", "--events-per-thread=9"},
			prep: "--mysql-host=db2", run: "--connect-per-event=true --events-per-thread=9 --mysql-host=db2"},
		{line: []string{"fairbench", "oltp_read_only", "--threads=4", "--tables=2", "--mysql-host=host-1", "run"},
			prep: "--tables=2 --mysql-host=db2", run: "--tables=2 --threads=4 --mysql-host=db2"},
		{line: []string{"fairbench", "oltp_read_only", "--threads=4", "prepare"}, err: "not as `fairbench run WORKLOAD …`"},
		{line: []string{"fairbench", "pgbench", "-c", "4", "-T", "10"}, err: "not as `fairbench run WORKLOAD …`"},
		{line: []string{"fairbench", "run", "oltp_read_only", "--clients=2", "--start-at=1"}, err: "coordinated"},
		{line: []string{"fairbench", "run", "no_such_workload"}, err: "no_such_workload"},
		{line: []string{"fairbench", "run", "oltp_read_only", "--no-such-flag"}, err: "no-such-flag"},
		{line: nil, err: "not as `fairbench run WORKLOAD …`"},
	}
	for _, tt := range tests {
		rp, err := app.replayOf(bundle.Run{File: "r.json", CommandLine: tt.line}, target)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one with %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if got := strings.Join(rp.prepare[2:], " "); got != tt.prep {
			t.Errorf("%q: prepare %q, want %q", tt.line, got, tt.prep)
		}
		if got := strings.Join(rp.run[2:], " "); got != tt.run {
			t.Errorf("%q: run %q, want %q", tt.line, got, tt.run)
		}
	}
}
