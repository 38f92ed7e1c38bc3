package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/run/suite"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSuiteCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.SQLite(t)
	plan := writeFile(t, "tiny.yaml", fmt.Sprintf(`name: tiny
target: {sqlite_db: %s}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1, 2]}
run: {time: 1}
steps: {checksum_warmup: true}
`, db.Path))
	dir := filepath.Join(t.TempDir(), "out")

	dry := runCLI(ctx, nil, "suite", "run", plan, "--dry-run")
	if dry.code != ExitOK || !strings.Contains(dry.stdout, "2 cells × (0s warm-up + 1s measured)") {
		t.Fatalf("dry run: %d\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("--dry-run created the suite directory")
	}

	run := runCLI(ctx, nil, "suite", "run", plan, "--out", dir)
	if run.code != ExitOK || !strings.Contains(run.stdout, "Suite complete: 2 cells") || !strings.Contains(run.stdout, "oltp_point_select (tps)") {
		t.Fatalf("suite run: %d\n%s%s", run.code, run.stdout, run.stderr)
	}
	again := runCLI(ctx, nil, "suite", "run", plan, "--out", dir)
	if again.code != ExitUsage || !strings.Contains(again.stderr, "--resume") {
		t.Errorf("second run into the same directory: %d %s", again.code, again.stderr)
	}
	resume := runCLI(ctx, nil, "suite", "run", plan, "--out", dir, "--resume")
	if resume.code != ExitOK || !strings.Contains(resume.stdout, "0 to run") {
		t.Errorf("resume of a complete suite: %d\n%s%s", resume.code, resume.stdout, resume.stderr)
	}
	status := runCLI(ctx, nil, "suite", "status", dir)
	if status.code != ExitOK || !strings.Contains(status.stdout, "Cells: 2 complete, 0 failed") || !strings.Contains(status.stdout, "(2 sessions") {
		t.Errorf("status: %d\n%s%s", status.code, status.stdout, status.stderr)
	}
	js := runCLI(ctx, nil, "suite", "status", dir, "--format", "json")
	var doc struct {
		Status string         `json:"status"`
		Counts map[string]int `json:"counts"`
		Cells  []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &doc); js.code != ExitOK || err != nil {
		t.Fatalf("status --format json: %d %v\n%s%s", js.code, err, js.stdout, js.stderr)
	}
	if doc.Counts["complete"] != 2 || len(doc.Cells) != 2 || doc.Cells[0].Status != "complete" || doc.Status == "" {
		t.Errorf("status --format json: %+v", doc)
	}
}

func TestSuiteCommandBadInput(t *testing.T) {
	ctx := context.Background()
	good := "data: {tables: 1, table_size: 1000}\nmatrix: {workloads: [oltp_point_select], threads: [1]}\nrun: {time: 1}\n"
	tests := []struct {
		name string
		args func(t *testing.T) []string
		code int
		want []string
	}{
		{"no plan", func(*testing.T) []string { return []string{"suite", "run"} }, ExitUsage, []string{"needs one plan file"}},
		{"missing file", func(*testing.T) []string { return []string{"suite", "run", "/nonexistent/plan.yaml"} }, ExitUsage, []string{"reading plan", "no such file"}},
		{"unknown key", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", good+"stpes: {}\n")}
		}, ExitUsage, []string{"p.yaml:4:", `unknown key "stpes"`}},
		{"bad scale", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", good), "--scale", "0"}
		}, ExitUsage, []string{"--scale 0"}},
		{"unreachable target", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", "target: {driver: mysql, host: 127.0.0.1, port: 1}\n"+good), "--out", filepath.Join(t.TempDir(), "o")}
		}, ExitTarget, []string{"p.yaml", "does not accept a connection", "target section"}},
		{"status of no suite", func(t *testing.T) []string { return []string{"suite", "status", t.TempDir()} }, ExitUsage, []string{"is not a suite directory"}},
		{"--client-id without clients", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", good), "--client-id", "0", "--run-id", "r1"}
		}, ExitUsage, []string{"p.yaml has no clients: section", "clients: {count: N}"}},
		{"clients without --client-id", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", "target: {driver: mysql, host: 127.0.0.1, port: 1}\nclients: {count: 3}\n"+good)}
		}, ExitUsage, []string{"names 3 coordinated clients", "--client-id (0 to 2)", "--run-id"}},
		{"clients without --run-id", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", "target: {driver: mysql, host: 127.0.0.1, port: 1}\nclients: {count: 3}\n"+good), "--client-id", "1"}
		}, ExitUsage, []string{"--run-id is missing"}},
		{"clients on sqlite", func(t *testing.T) []string {
			return []string{"suite", "run", writeFile(t, "p.yaml", "clients: {count: 3}\n"+good), "--client-id", "1", "--run-id", "r1"}
		}, ExitUsage, []string{"p.yaml:1:", "embedded SQLite"}},
		{"suite alone", func(*testing.T) []string { return []string{"suite"} }, ExitUsage, []string{"suite needs a subcommand"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(ctx, nil, tc.args(t)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func TestWarmupCommand(t *testing.T) {
	ctx := context.Background()
	for name, cfg := range map[string]driver.Config{"sqlite": testdb.SQLite(t), "mariadb": testdb.MySQL(t), "postgres": testdb.PgSQL(t)} {
		t.Run(name, func(t *testing.T) {
			data := []string{"--tables=2", "--table-size=300"}
			missing := runCLI(ctx, nil, join([]string{"warmup", "oltp_read_write"}, data, targetArgs(cfg))...)
			if missing.code != ExitTarget || !strings.Contains(missing.stderr, "prepare") {
				t.Errorf("warm-up before prepare: %d %s", missing.code, missing.stderr)
			}
			if r := runCLI(ctx, nil, join([]string{"prepare", "oltp_read_write"}, data, targetArgs(cfg))...); r.code != ExitOK {
				t.Fatalf("prepare: %d %s", r.code, r.stderr)
			}
			r := runCLI(ctx, nil, join([]string{"warmup", "oltp_read_write", "--threads=2"}, data, targetArgs(cfg))...)
			if r.code != ExitOK || !strings.Contains(r.stdout, "2 tables, 600 rows") {
				t.Errorf("warm-up: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestSuiteDirDefaults(t *testing.T) {
	at := time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC)
	if got, _ := suiteDir(suiteFlags{out: "x"}, "quick", nil, at); got != "x" {
		t.Errorf("--out x → %s", got)
	}
	if got, _ := suiteDir(suiteFlags{}, "quick", nil, at); got != filepath.Join("fairbench-results", "quick-20261122-030405") {
		t.Errorf("default → %s", got)
	}
	t.Chdir(t.TempDir())
	if _, err := suiteDir(suiteFlags{resume: true}, "quick", nil, at); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("--resume without any suite: %v", err)
	}
	for _, d := range []string{"quick-20261121-230000", "quick-20261122-010000", "other-20261123-000000"} {
		if err := os.MkdirAll(filepath.Join("fairbench-results", d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("fairbench-results", d, "manifest.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := suiteDir(suiteFlags{resume: true}, "quick", nil, at); got != filepath.Join("fairbench-results", "quick-20261122-010000") {
		t.Errorf("--resume → %s, want the latest of the plan", got)
	}

	// A coordinated client's directory is named after the run and the client;
	// resuming takes this client's latest.
	client := &suite.ClientOptions{ID: 2, RunID: "2026-11-22T05:00:00Z"}
	if got, _ := suiteDir(suiteFlags{}, "quick", client, at); got != filepath.Join("fairbench-results", "quick-2026-11-22T05_00_00Z-c2") {
		t.Errorf("client default → %s", got)
	}
	if _, err := suiteDir(suiteFlags{resume: true}, "quick", client, at); err == nil || !strings.Contains(err.Error(), "client 2") {
		t.Errorf("--resume of a client without any suite: %v", err)
	}
	for i, d := range []string{"quick-1795323600-c2", "quick-1700000000-c2", "quick-1795323600-c1"} {
		if err := os.MkdirAll(filepath.Join("fairbench-results", d), 0o755); err != nil {
			t.Fatal(err)
		}
		m := filepath.Join("fairbench-results", d, "manifest.json")
		if err := os.WriteFile(m, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(m, at, at.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := suiteDir(suiteFlags{resume: true}, "quick", client, at); got != filepath.Join("fairbench-results", "quick-1700000000-c2") {
		t.Errorf("--resume of client 2 → %s, want its latest updated", got)
	}
}

// TestSuiteClientsCommand runs three coordinated clients of one plan through
// the CLI, launched half a second apart, merges their suite directories and
// reads the merged one as a suite.
func TestSuiteClientsCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := testdb.MySQL(t)
	plan := writeFile(t, "trio.yaml", fmt.Sprintf(`name: trio
target: {driver: mysql, host: %s, port: %d, user: %s, db: %s}
data: {tables: 1, table_size: 500}
matrix: {workloads: [oltp_point_select], threads: [1, 2]}
run: {time: 1}
clients: {count: 3, wait: 1m}
`, cfg.Hosts[0], cfg.Ports[0], cfg.User, cfg.Database))
	env := map[string]string{"MYSQL_PWD": cfg.Password}
	base := t.TempDir()
	runID := strconv.FormatInt(time.Now().UnixNano(), 10)
	dirs := make([]string, 3)
	runs := make([]cliRun, 3)
	var wg sync.WaitGroup
	for i := range dirs {
		dirs[i] = filepath.Join(base, "c"+strconv.Itoa(i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 500 * time.Millisecond)
			runs[i] = runCLI(ctx, env, "suite", "run", plan, "--client-id", strconv.Itoa(i), "--run-id", runID, "--out", dirs[i])
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if r.code != ExitOK || !strings.Contains(r.stdout, fmt.Sprintf("Client %d of 3", i)) || !strings.Contains(r.stdout, "Suite complete: 2 cells") {
			t.Fatalf("client %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}

	merged := filepath.Join(base, "merged")
	r := runCLI(ctx, nil, "merge", dirs[1], dirs[0], dirs[2], "-o", merged)
	if r.code != ExitOK || !strings.Contains(r.stdout, "run "+runID+", 3 clients: 2 of 2 cells merged") || !strings.Contains(r.stdout, "merged: 6 threads") {
		t.Fatalf("merge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	st := runCLI(ctx, nil, "suite", "status", merged)
	if st.code != ExitOK || !strings.Contains(st.stdout, "Merged from 3 clients") || !strings.Contains(st.stdout, "Cells: 2 complete") {
		t.Errorf("status of the merged suite: %d\n%s%s", st.code, st.stdout, st.stderr)
	}
	rep := runCLI(ctx, nil, "report", merged)
	if rep.code != ExitOK || !strings.Contains(rep.stdout, "oltp_point_select") {
		t.Errorf("report of the merged suite: %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", dirs[0], filepath.Join(dirs[0], "manifest.json")}, "either result files or suite directories"},
		{[]string{"merge", dirs[0], dirs[1], dirs[2]}, "needs -o DIR"},
		{[]string{"merge", dirs[0], dirs[1], "-o", filepath.Join(base, "two")}, "2 directories were given"},
		{[]string{"merge", dirs[0], dirs[1], dirs[2], "-o", filepath.Join(base, "j"), "--format", "json"}, "applies to result files"},
	} {
		if r := runCLI(ctx, nil, bad.args...); r.code != ExitUsage || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%v: exit %d %s, want %q", bad.args, r.code, r.stderr, bad.want)
		}
	}
}

func TestSuiteServesLiveMetrics(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	plan := writeFile(t, "m.yaml", fmt.Sprintf(`target: {sqlite_db: %s}
data: {tables: 1, table_size: 500}
matrix: {workloads: [oltp_point_select], threads: [1, 2]}
run: {time: 2}
`, db.Path))
	last := scrapeDuring(t, "suite", "run", plan, "--out", filepath.Join(t.TempDir(), "s"), "--metrics-addr", "127.0.0.1:0")
	if !strings.Contains(last, "fairbench_suite_cells{") {
		t.Errorf("no suite progress in the last scrape:\n%s", last)
	}
	// The last scrape is from the linger after the suite: phase done, and the
	// latency histogram fed from the cells' interval histograms.
	if !regexp.MustCompile(`fairbench_phase\{phase="done"[^}]*\} 1`).MatchString(last) {
		t.Errorf("the last scrape (after the suite) is not in phase done:\n%s", last)
	}
	count := regexp.MustCompile(`fairbench_event_latency_seconds_count\{[^}]*\} ([0-9]+)`).FindStringSubmatch(last)
	if count == nil || count[1] == "0" {
		t.Errorf("the suite fed no latency histogram (fairbench_event_latency_seconds_count %v):\n%s", count, last)
	}
}

func TestRunServesLiveMetrics(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	// A second of linger (the default is 5 s) is 20 scrapes of the final figures.
	last := scrapeDuring(t, "run", "oltp_point_select", "--sqlite-db", db.Path, "--table-size=500", "--time=3", "--metrics-addr", "127.0.0.1:0",
		"--metrics-linger=1")
	if !strings.Contains(last, `fairbench_queries_total{type="read",workload="oltp_point_select"}`) {
		t.Errorf("no read queries in the last scrape:\n%s", last)
	}
}

// scrapeDuring runs the command in-process and scrapes the live metrics it
// announces until it ends: some scrape must see the measure phase and events.
// It returns the last scrape.
func scrapeDuring(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	done := make(chan int)
	go func() { done <- app.Execute(context.Background(), args) }()
	addrRe := regexp.MustCompile(`Live metrics on (http://\S+/metrics)`)
	measuring := regexp.MustCompile(`fairbench_phase\{phase="measure"[^}]*\} 1`)
	var url, last string
	sawMeasure, sawEvents, finished := false, false, false
	code := 0
	for !finished {
		select {
		case code = <-done:
			finished = true
		case <-time.After(50 * time.Millisecond):
		}
		if m := addrRe.FindStringSubmatch(out.String() + errb.String()); m != nil {
			url = m[1]
		}
		if url == "" || finished {
			continue
		}
		if resp, err := http.Get(url); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = string(b)
			sawMeasure = sawMeasure || measuring.MatchString(last)
			sawEvents = sawEvents || strings.Contains(last, "fairbench_events_total{")
		}
	}
	if code != ExitOK {
		t.Fatalf("%v: exit %d %s", args, code, errb.String())
	}
	if !sawMeasure || !sawEvents {
		t.Errorf("scrapes during %v: measure phase seen %v, events seen %v; last scrape:\n%s", args, sawMeasure, sawEvents, last)
	}
	return last
}
