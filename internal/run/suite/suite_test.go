package suite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/pgbench"
	"github.com/fairbench/fairbench/internal/workload/tpcc"
)

func registry() *workload.Registry {
	return workload.NewRegistry(slices.Concat(oltp.Specs(), tpcc.Specs(), pgbench.Specs())...)
}

func testEnv() Env {
	return Env{Registry: registry(), Getenv: os.Getenv, CPUs: 2}
}

// targetYAML renders a test database as a plan's target section.
func targetYAML(cfg driver.Config) string {
	switch cfg.Kind {
	case driver.KindSQLite:
		return fmt.Sprintf("target:\n  sqlite_db: %s\n", cfg.Path)
	case driver.KindMySQL:
		s := fmt.Sprintf("target:\n  driver: mysql\n  host: %s\n  port: %d\n  user: %s\n  db: %s\n", cfg.Hosts[0], cfg.Ports[0], cfg.User, cfg.Database)
		if cfg.Password != "" {
			s += "  password_env: FAIRBENCH_TEST_MYSQL_PASSWORD\n"
		}
		return s
	case driver.KindPgSQL:
		s := fmt.Sprintf("target:\n  driver: pgsql\n  host: %s\n  port: %d\n  user: %s\n  db: %s\n", cfg.Hosts[0], cfg.Ports[0], cfg.User, cfg.Database)
		if cfg.Password != "" {
			s += "  password_env: FAIRBENCH_TEST_PGSQL_PASSWORD\n"
		}
		return s
	}
	panic("no target for " + cfg.Kind)
}

// smallPlan is the test plan: 2 workloads × 2 thread counts × 2 rounds
// of 1-second cells, at --rate 400, not flat out: the tests check what the
// suite does, not how fast, and an unthrottled embedded SQLite would take a
// whole CPU for each thread of every cell from the tests beside them.
func smallPlan(target, extraSteps string) string {
	return target + `
name: small
data:
  tables: 2
  table_size: 500
matrix:
  workloads: [oltp_point_select, oltp_read_write]
  threads: [1, 2]
  rounds: 2
run:
  time: 1
  rate: 400
steps:
  checksum_warmup: true
  query_warmup: {workload: oltp_read_only, threads: 1, time: 1}
` + extraSteps
}

func writePlan(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadPlan(t *testing.T, path string) *Plan {
	t.Helper()
	p, err := ReadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(testEnv()); err != nil {
		t.Fatal(err)
	}
	return p
}

func runPlan(ctx context.Context, t *testing.T, path, dir string, resume bool) (*suitedir.Manifest, string, error) {
	t.Helper()
	var out bytes.Buffer
	m, err := Run(ctx, loadPlan(t, path), testEnv(), Options{Dir: dir, Resume: resume, Out: &out, Tool: result.Tool{Name: "fairbench", Version: "test"}})
	return m, out.String(), err
}

// checkComplete asserts that every cell of dir is complete with a readable
// result file that belongs to it.
func checkComplete(t *testing.T, dir string) *suitedir.Manifest {
	t.Helper()
	m, err := suitedir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != suitedir.StatusComplete {
		t.Errorf("suite status %q, want complete", m.Status)
	}
	for _, c := range m.Cells {
		if c.Status != suitedir.StatusComplete {
			t.Errorf("cell %s: status %q (%s)", c.ID, c.Status, c.Error)
			continue
		}
		res, err := result.Read(filepath.Join(dir, c.File))
		if err != nil {
			t.Errorf("cell %s: %v", c.ID, err)
			continue
		}
		if res.Suite == nil || res.Suite.Cell != c.ID || res.Threads != c.Threads || res.Workload != c.Workload || res.Status != result.StatusComplete {
			t.Errorf("cell %s: result file %s describes %+v, threads %d, %s, %s", c.ID, c.File, res.Suite, res.Threads, res.Workload, res.Status)
		}
		if res.Totals.Counts.Events == 0 || c.Summary == nil || c.Summary.TPS <= 0 {
			t.Errorf("cell %s measured nothing: %d events, summary %+v", c.ID, res.Totals.Counts.Events, c.Summary)
		}
		if res.Observed == nil {
			t.Errorf("cell %s: no observed figures", c.ID)
		}
	}
	return m
}

func TestSuiteRunsSmallPlan(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]driver.Config{"sqlite": testdb.SQLite(t), "mariadb": testdb.MySQL(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "suite")
			path := writePlan(t, smallPlan(targetYAML(cfg), "  changeover_sleep: 0.2\n"))
			m, out, err := runPlan(context.Background(), t, path, dir, false)
			if err != nil {
				t.Fatalf("suite: %v\n%s", err, out)
			}
			checkComplete(t, dir)
			if len(m.Cells) != 8 {
				t.Fatalf("%d cells, want 2 workloads × 2 threads × 2 rounds = 8", len(m.Cells))
			}
			var steps []string
			for _, s := range m.Steps {
				steps = append(steps, s.Name)
				if s.Error != "" {
					t.Errorf("step %s: %s", s.Name, s.Error)
				}
			}
			if got := strings.Join(steps, ","); got != "prepare,checksum warm-up,query warm-up" {
				t.Errorf("steps %s", got)
			}
			// The seed-style table for each round, and the median.
			for _, want := range []string{"uniform · round 1\n", "uniform · round 2\n", "mean of 2 rounds", "oltp_point_select (tps)", "oltp_read_write (tps)", "change-over sleep"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			// A second suite on the same data reuses it.
			short := strings.NewReplacer("rounds: 2", "rounds: 1", "threads: [1, 2]", "threads: [1]").Replace(smallPlan(targetYAML(cfg), ""))
			m2, out2, err := runPlan(context.Background(), t, writePlan(t, short), filepath.Join(t.TempDir(), "again"), false)
			if err != nil {
				t.Fatalf("second suite: %v\n%s", err, out2)
			}
			if d := m2.Steps[0].Detail; !strings.Contains(d, "reusing") {
				t.Errorf("second prepare: %q, want the data reused", d)
			}
		})
	}
}

// TestSuiteChildProcess is the suite a test runs in a child process to kill it.
func TestSuiteChildProcess(t *testing.T) {
	plan, dir := os.Getenv("FAIRBENCH_SUITE_CHILD_PLAN"), os.Getenv("FAIRBENCH_SUITE_CHILD_DIR")
	if plan == "" {
		t.Skip("runs only as the child of TestSuiteResumesAfterKill")
	}
	if _, _, err := runPlan(context.Background(), t, plan, dir, false); err != nil {
		t.Fatal(err)
	}
}

func TestSuiteResumesAfterKill(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	path := writePlan(t, smallPlan(targetYAML(cfg), ""))
	dir := filepath.Join(t.TempDir(), "suite")
	child := exec.Command(os.Args[0], "-test.run=^TestSuiteChildProcess$", "-test.v")
	child.Env = append(os.Environ(), "FAIRBENCH_SUITE_CHILD_PLAN="+path, "FAIRBENCH_SUITE_CHILD_DIR="+dir)
	var childOut bytes.Buffer
	child.Stdout, child.Stderr = &childOut, &childOut
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it outright once three cells are complete and the fourth is running.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		m, err := suitedir.ReadManifest(dir)
		if err == nil && m.Counts()[suitedir.StatusComplete] >= 3 && m.Counts()[suitedir.StatusRunning] == 1 {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("the child suite did not reach its fourth cell:\n%s", childOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	before, err := suitedir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string][32]byte{}
	for _, c := range before.Cells {
		if c.Status == suitedir.StatusComplete {
			b, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			done[c.ID] = sha256.Sum256(b)
		}
	}
	if len(done) < 3 || len(done) == len(before.Cells) {
		t.Fatalf("%d cells complete when killed", len(done))
	}

	m, out, err := runPlan(context.Background(), t, path, dir, true)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	checkComplete(t, dir)
	if m.Sessions != 2 {
		t.Errorf("sessions %d, want 2", m.Sessions)
	}
	if want := fmt.Sprintf("%d to run", len(m.Cells)-len(done)); !strings.Contains(out, want) {
		t.Errorf("resume output lacks %q:\n%s", want, out)
	}
	for _, c := range m.Cells {
		sum, wasDone := done[c.ID]
		if !wasDone {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil || sha256.Sum256(b) != sum {
			t.Errorf("completed cell %s was re-run or its file changed (%v)", c.ID, err)
		}
		if strings.Contains(out, c.ID) {
			t.Errorf("resume ran completed cell %s again", c.ID)
		}
	}
}

func TestSuiteInterruptKeepsPartialCell(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	path := writePlan(t, strings.NewReplacer("time: 1\n", "time: 2\n", "rounds: 2", "rounds: 1").Replace(smallPlan(targetYAML(cfg), "")))
	dir := filepath.Join(t.TempDir(), "suite")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Ctrl-C in the middle of the second cell.
		for {
			if m, err := suitedir.ReadManifest(dir); err == nil && m.Counts()[suitedir.StatusComplete] == 1 && m.Counts()[suitedir.StatusRunning] == 1 {
				time.Sleep(time.Second)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	m, out, err := runPlan(ctx, t, path, dir, false)
	cancel()
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted\n%s", err, out)
	}
	if m.Status != suitedir.StatusInterrupted {
		t.Errorf("suite status %q", m.Status)
	}
	partial := m.Cells[1]
	if partial.Status != suitedir.StatusInterrupted {
		t.Fatalf("second cell %s: %s", partial.ID, partial.Status)
	}
	res, err := result.Read(filepath.Join(dir, partial.File))
	if err != nil {
		t.Fatalf("the partial cell's result is lost: %v", err)
	}
	if res.Status != result.StatusInterrupted || res.Totals.Counts.Events == 0 {
		t.Errorf("partial result: status %s, %d events", res.Status, res.Totals.Counts.Events)
	}

	m, out, err = runPlan(context.Background(), t, path, dir, true)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	checkComplete(t, dir)
	att := m.Cells[1].Attempts
	if len(att) != 1 || att[0].Status != suitedir.StatusInterrupted {
		t.Fatalf("attempts of the interrupted cell: %+v", att)
	}
	if old, err := result.Read(filepath.Join(dir, att[0].File)); err != nil || old.Status != result.StatusInterrupted {
		t.Errorf("the interrupted attempt's file %s: %v", att[0].File, err)
	}
}

func TestSuiteFailedCellsContinueOrStop(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	// Dropping a column between cells makes every later cell fail once it
	// runs (dropped tables would fail it before, when it reads its data).
	steps := "  between_cells:\n    - sql: ALTER TABLE sbtest1 DROP COLUMN IF EXISTS c\n    - sql: ALTER TABLE sbtest2 DROP COLUMN IF EXISTS c\n"
	for _, onFailure := range []string{"continue", "stop"} {
		t.Run(onFailure, func(t *testing.T) {
			text := smallPlan(targetYAML(cfg), steps+"  on_failure: "+onFailure+"\n  prepare: replace\n")
			dir := filepath.Join(t.TempDir(), "s")
			m, out, err := runPlan(context.Background(), t, writePlan(t, text), dir, false)
			var failed *CellsFailedError
			switch onFailure {
			case "continue":
				if !errors.As(err, &failed) {
					t.Fatalf("err = %v, want CellsFailedError\n%s", err, out)
				}
				if m.Cells[0].Status != suitedir.StatusComplete {
					t.Errorf("first cell: %s %s", m.Cells[0].Status, m.Cells[0].Error)
				}
				for _, c := range m.Cells[1:] {
					if c.Status != suitedir.StatusFailed || c.Error == "" {
						t.Errorf("cell %s: %s %q, want failed with the error", c.ID, c.Status, c.Error)
					}
				}
			case "stop":
				if err == nil || failed != nil {
					t.Fatalf("err = %v, want the suite to stop", err)
				}
				if c := m.Counts(); c[suitedir.StatusPending] != len(m.Cells)-2 {
					t.Errorf("counts %v: want the suite stopped after the second cell", c)
				}
			}
			if m.Status != suitedir.StatusFailed {
				t.Errorf("suite status %q, want failed", m.Status)
			}
			// The failed cell's result is kept, marked failed, with the error.
			res, err := result.Read(filepath.Join(dir, m.Cells[1].File))
			if err != nil || res.Status != result.StatusFailed || !strings.Contains(res.Error, "column") {
				t.Errorf("failed cell's result: %v, %+v", err, res)
			}
		})
	}
}

func TestSuiteOwnsItsServer(t *testing.T) {
	testdb.SkipShort(t, "a private MariaDB")
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
		}
	}
	dir := t.TempDir()
	serverDir := filepath.Join(dir, "server")
	plan := fmt.Sprintf(`name: owned
server:
  flavor: mariadb
  dir: %s
  profiles: [cpu-bound, io-bound]
data: [{tables: 1, table_size: 2000}, {tables: 1, table_size: 3000}]
matrix: {workloads: [oltp_read_only], threads: [2]}
run: {time: 1}
steps: {checksum_warmup: true}
`, serverDir)
	t.Cleanup(func() { _ = localserverStop(serverDir) })
	m, out, err := runPlan(context.Background(), t, writePlan(t, plan), filepath.Join(dir, "suite"), false)
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	checkComplete(t, filepath.Join(dir, "suite"))
	if len(m.Servers) != 2 || m.Servers[0].Managed == nil || m.Servers[1].Managed == nil {
		t.Fatalf("servers in the manifest: %+v", m.Servers)
	}
	pools := map[string]string{}
	for _, c := range m.Cells {
		res, err := result.Read(filepath.Join(dir, "suite", c.File))
		if err != nil {
			t.Fatal(err)
		}
		if res.ManagedServer == nil || res.ManagedServer.Profile != c.Profile {
			t.Fatalf("cell %s: managed server %+v", c.ID, res.ManagedServer)
		}
		// The server ran with the profile's buffer pool, as the server itself says.
		got, want := res.Server.Variables["innodb_buffer_pool_size"], res.ManagedServer.Settings["innodb_buffer_pool_size"]
		pools[c.Profile] = got
		if got == "" || want == "" {
			t.Errorf("cell %s: buffer pool %q, generated %q", c.ID, got, want)
		}
	}
	if pools["cpu-bound"] == pools["io-bound"] {
		t.Errorf("both profiles ran with a buffer pool of %s", pools["cpu-bound"])
	}
	var prepares []string
	for _, s := range m.Steps {
		if s.Name == "prepare" {
			prepares = append(prepares, s.Detail)
		}
	}
	// Per profile: load the first data set, then the second (replacing the
	// first); the io-bound profile finds the second and reloads the first.
	if len(prepares) != 4 || !strings.Contains(prepares[0], "loaded") || !strings.Contains(prepares[1], "did not match") {
		t.Errorf("prepare steps %q", prepares)
	}
	starts := 0
	for _, s := range m.Steps {
		if s.Name == "server start" {
			starts++
		}
	}
	if starts != 2 {
		t.Errorf("%d server starts, want one per profile", starts)
	}
	if st, err := localserverState(serverDir); err != nil || st {
		t.Errorf("the server is still running after the suite (%v)", err)
	}
}

func localserverStop(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return localserver.Stop(ctx, dir)
}

func localserverState(dir string) (running bool, err error) {
	st, err := localserver.Status(context.Background(), dir)
	return st.Running, err
}

func TestSuiteServerDiesDuringCell(t *testing.T) {
	// reconnect_timeout 1 s: the threads give up during the cell; 60 s: they
	// are still trying when its measured phase ends, which used to leave the
	// cell complete with the diluted figures of a dead server.
	for _, tc := range []struct {
		reconnect string
		why       string
	}{
		{"1", "could not reconnect"},
		{"60", "2 of 2 threads had no connection when the measured phase ended"},
	} {
		t.Run("reconnect_timeout "+tc.reconnect, func(t *testing.T) { serverDiesDuringCell(t, tc.reconnect, tc.why) })
	}
}

func serverDiesDuringCell(t *testing.T, reconnectTimeout, why string) {
	testdb.SkipShort(t, "a private MariaDB")
	if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
		t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
	}
	dir := t.TempDir()
	serverDir, suiteDir := filepath.Join(dir, "server"), filepath.Join(dir, "suite")
	plan := fmt.Sprintf(`server: {flavor: mariadb, dir: %s}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_read_only], threads: [2], rounds: 2}
run: {time: 5, reconnect_timeout: %s}
`, serverDir, reconnectTimeout)
	t.Cleanup(func() { _ = localserverStop(serverDir) })
	go func() {
		// Kill the server outright a second into the first cell.
		for {
			if m, err := suitedir.ReadManifest(suiteDir); err == nil && m.Cells[0].Status == suitedir.StatusRunning {
				time.Sleep(time.Second)
				if st, err := localserver.Status(context.Background(), serverDir); err == nil && st.PID > 0 {
					syscall.Kill(st.PID, syscall.SIGKILL)
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	m, out, err := runPlan(context.Background(), t, writePlan(t, plan), suiteDir, false)
	var failed *CellsFailedError
	if !errors.As(err, &failed) || failed.Failed != 2 {
		t.Fatalf("err = %v, want both cells failed\n%s", err, out)
	}
	first := m.Cells[0]
	if first.Status != suitedir.StatusFailed || !strings.Contains(first.Error, why) {
		t.Errorf("first cell: %s %q", first.Status, first.Error)
	}
	res, err := result.Read(filepath.Join(suiteDir, first.File))
	if err != nil {
		t.Fatalf("the measurements of the cell the server died in are lost: %v", err)
	}
	if res.Status != result.StatusFailed || res.Totals.Counts.Events == 0 {
		t.Errorf("first cell's result: %s with %d events, want failed with what it measured", res.Status, res.Totals.Counts.Events)
	}
	if len(res.Outages) != 1 || res.Outages[0].Unrecovered == 0 {
		t.Errorf("first cell's outages %+v, want the server's death recorded with threads unrecovered", res.Outages)
	}
	if first.Summary == nil || first.Summary.Outages != 1 || !strings.Contains(out, "server away") {
		t.Errorf("first cell's summary %+v: want the outage counted and shown on its line\n%s", first.Summary, out)
	}
	if m.Cells[1].Status != suitedir.StatusFailed {
		t.Errorf("second cell: %s, want failed (no server)", m.Cells[1].Status)
	}
	if again, err := suitedir.ReadManifest(suiteDir); err != nil || again.Status != suitedir.StatusFailed {
		t.Errorf("manifest on disk: %v %+v", err, again)
	}
}

// recorder is a Watcher that keeps what it was told.
type recorder struct {
	mu        sync.Mutex
	phases    []string
	cells     []string
	intervals int
	warm      int
}

func (r *recorder) Phase(name string) { r.mu.Lock(); r.phases = append(r.phases, name); r.mu.Unlock() }
func (r *recorder) Cell(i, n int, id, wl string, threads int, kinds []string) {
	r.mu.Lock()
	r.cells = append(r.cells, fmt.Sprintf("%d/%d %s", i, n, id))
	r.mu.Unlock()
}
func (r *recorder) Interval(iv result.Interval, _ *metrics.Latency) {
	r.mu.Lock()
	r.intervals++
	if iv.Warmup {
		r.warm++
	}
	r.mu.Unlock()
}

func TestSuiteTellsItsWatcher(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	path := writePlan(t, targetYAML(cfg)+"data: {tables: 1, table_size: 500}\nmatrix: {workloads: [oltp_point_select], threads: [1]}\nrun: {time: 2, warmup_time: 1}\n")
	w := &recorder{}
	_, err := Run(context.Background(), loadPlan(t, path), testEnv(), Options{Dir: filepath.Join(t.TempDir(), "s"), Watch: w})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.phases, ","); got != "prepare,warmup,measure,done" {
		t.Errorf("phases %s", got)
	}
	if len(w.cells) != 1 || w.cells[0] != "1/1 uniform/r1/oltp_point_select/t1" {
		t.Errorf("cells %v", w.cells)
	}
	if w.warm == 0 || w.intervals <= w.warm {
		t.Errorf("%d intervals, %d of them warm-up", w.intervals, w.warm)
	}
}

// TestSuiteCellsCarryWarnings runs a one-cell suite on the shared MariaDB with
// ssl: on and a rate no target sustains: the cell's result carries the same
// warnings as a run's (through the one measured-run path, runner.Outcome.Fill)
// and the suite prints them under the cell.
func TestSuiteCellsCarryWarnings(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	dir := filepath.Join(t.TempDir(), "suite")
	plan := targetYAML(cfg) + `  ssl: "on"
name: warnings
data:
  tables: 1
  table_size: 100
matrix:
  workloads: [oltp_point_select]
  threads: [1]
run:
  time: 1
  rate: 100000000
`
	m, out, err := runPlan(context.Background(), t, writePlan(t, plan), dir, false)
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	res, err := result.Read(filepath.Join(dir, m.Cells[0].File))
	if err != nil {
		t.Fatal(err)
	}
	tls := res.Target.TLS
	if tls == nil || tls.Note != "" {
		t.Fatalf("cell target.tls = %+v, want what the server said", tls)
	}
	want := []string{"open loop not sustained: --rate asked for 100000000 events/s"}
	if !tls.Used {
		want = append(want, "--mysql-ssl=on fell back to plain text")
	}
	if own := ownWarnings(res.Warnings); len(own) != len(want) {
		t.Fatalf("cell warnings %q, want %d saying %q", own, len(want), want)
	}
	for _, w := range want {
		found := false
		for _, got := range res.Warnings {
			if strings.Contains(got, w) {
				found = true
				if !strings.Contains(out, "WARNING: "+got) {
					t.Errorf("the suite output does not print %q:\n%s", got, out)
				}
			}
		}
		if !found {
			t.Errorf("cell warnings %q lack %q", res.Warnings, w)
		}
	}
}

// TestSuiteSessionSetUp: a plan's target.isolation, session_vars and
// compression set up every connection of its cells, as the run command's
// --isolation-level, --session-var and --mysql-compression do, and the
// results say so (read back from MariaDB).
func TestSuiteSessionSetUp(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	target := targetYAML(cfg) + "  isolation: read-committed\n  session_vars: [innodb_lock_wait_timeout=7]\n  compression: on\n"
	plan := strings.NewReplacer("rounds: 2", "rounds: 1", "threads: [1, 2]", "threads: [1]",
		"workloads: [oltp_point_select, oltp_read_write]", "workloads: [oltp_point_select]").Replace(smallPlan(target, ""))
	dir := filepath.Join(t.TempDir(), "suite")
	if _, out, err := runPlan(context.Background(), t, writePlan(t, plan), dir, false); err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	m := checkComplete(t, dir)
	res, err := result.Read(filepath.Join(dir, m.Cells[0].File))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Target.Session
	if s == nil || s.Isolation != "READ-COMMITTED" || s.Variables["innodb_lock_wait_timeout"] != "7" || !res.Target.Compression ||
		res.Options["isolation-level"] != "read-committed" || res.Options["session-var"] != "[innodb_lock_wait_timeout=7]" {
		t.Fatalf("target %+v, session %+v, options isolation-level %q session-var %q", res.Target, s, res.Options["isolation-level"], res.Options["session-var"])
	}
}

// ownWarnings are a cell's warnings but the busy machine's
// (observe.NoisyWarning), which any run may get on a shared test machine.
func ownWarnings(ws []string) []string {
	var own []string
	for _, w := range ws {
		if !strings.HasPrefix(w, "other processes used ") {
			own = append(own, w)
		}
	}
	return own
}

// TestSuiteRunsPgbenchWorkloads: a plan of pgbench's workloads on a scale
// factor loads pgbench's tables once, runs every cell and records each
// cell's script and scale.
func TestSuiteRunsPgbenchWorkloads(t *testing.T) {
	cfg := testdb.SQLite(t)
	plan := targetYAML(cfg) + `
name: pgbench
data:
  scale: 1
matrix:
  workloads: [pgbench-select-only, pgbench-tpcb-like]
  threads: [1, 2]
  rounds: 1
run:
  time: 1
`
	dir := filepath.Join(t.TempDir(), "out")
	if _, out, err := runPlan(context.Background(), t, writePlan(t, plan), dir, false); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := checkComplete(t, dir)
	if len(m.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(m.Cells))
	}
	for _, c := range m.Cells {
		res, err := result.Read(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Scripts) != 1 || "pgbench-"+res.Scripts[0].Name != res.Workload || res.Options["scale"] != "1" {
			t.Errorf("cell %s: scripts %+v, scale %q", c.ID, res.Scripts, res.Options["scale"])
		}
	}
}

// TestPgbenchDataSetLabels: pgbench's data sets are named by their scale
// factor, as warehouses and tables name theirs.
func TestPgbenchDataSetLabels(t *testing.T) {
	p := &Plan{Data: DataSets{{Scale: 1}, {Scale: 10}, {Warehouses: 2}, {Tables: 2, TableSize: 100}}}
	for i, want := range []string{"s1", "s10", "w2", "2x100"} {
		if got := p.datasetLabel(i); got != want {
			t.Errorf("data set %d: label %q, want %q", i, got, want)
		}
	}
	if workloadOptions(Data{Scale: 10})["scale"] != "10" {
		t.Error("a data set's scale is not the workloads' --scale")
	}
}

// TestSuiteConnectPerEvent: run.connect_per_event gives every event of a
// cell a connection of its own — counted in the cell's result, recorded in
// its options (so that compare keeps such cells apart) — and cells
// without it open none.
func TestSuiteConnectPerEvent(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	for _, perEvent := range []bool{true, false} {
		plan := targetYAML(cfg) + fmt.Sprintf(`
name: per-event
data: {tables: 1, table_size: 100}
matrix: {workloads: [oltp_point_select], threads: [2], rounds: 1}
run:
  time: 1
  connect_per_event: %v
`, perEvent)
		dir := filepath.Join(t.TempDir(), "suite")
		if _, out, err := runPlan(context.Background(), t, writePlan(t, plan), dir, false); err != nil {
			t.Fatalf("suite (per event %v): %v\n%s", perEvent, err, out)
		}
		m := checkComplete(t, dir)
		res, err := result.Read(filepath.Join(dir, m.Cells[0].File))
		if err != nil {
			t.Fatal(err)
		}
		c := res.Totals.Counts
		got := res.Options["connect-per-event"]
		switch {
		case perEvent && (c.Connects < c.Events-2 || c.Connects > c.Events+2 || c.ConnectMs <= 0 || got != "true"): // a thread's last may fall either side of the end
			t.Errorf("per event: %d connects for %d events in %v ms, option %q", c.Connects, c.Events, c.ConnectMs, got)
		case !perEvent && (c.Connects != 0 || got != "false"):
			t.Errorf("kept connections: %d connects, option %q", c.Connects, got)
		}
	}
}
