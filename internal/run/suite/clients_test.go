package suite

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// clientsPlan is a small plan of n coordinated clients on a MariaDB database.
func clientsPlan(cfg driver.Config, n int, wait, matrix string) string {
	return targetYAML(cfg) + `
name: trio
data: {tables: 1, table_size: 500}
` + matrix + `
run: {time: 1}
steps: {checksum_warmup: true}
clients:
  count: ` + string(rune('0'+n)) + `
  wait: ` + wait + "\n"
}

func newRunID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "test-" + hex.EncodeToString(b)
}

// clientRun is one client's outcome.
type clientRun struct {
	m   *suitedir.Manifest
	out string
	err error
}

// runClients runs the given client ids of the plan at path in-process, each
// launched stagger after the previous one, into dirs[id]; resume[id] resumes.
func runClients(t *testing.T, path, runID string, ids []int, dirs []string, resume map[int]bool, stagger time.Duration) map[int]clientRun {
	t.Helper()
	return runClientsCtx(t, path, runID, ids, dirs, resume, stagger, nil)
}

// runClientsCtx is runClients with a context per client (Background when
// ctxs has none).
func runClientsCtx(t *testing.T, path, runID string, ids []int, dirs []string, resume map[int]bool, stagger time.Duration, ctxs map[int]context.Context) map[int]clientRun {
	t.Helper()
	plans := map[int]*Plan{}
	for _, id := range ids {
		plans[id] = loadPlan(t, path) // Validate fills in defaults: one plan per client
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out = map[int]clientRun{}
	)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * stagger)
			var buf bytes.Buffer
			ctx := ctxs[id]
			if ctx == nil {
				ctx = context.Background()
			}
			m, err := Run(ctx, plans[id], testEnv(), Options{
				Dir: dirs[id], Resume: resume[id], Out: &buf, Tool: result.Tool{Name: "fairbench", Version: "test"},
				Client: &ClientOptions{ID: id, RunID: runID, lead: 600 * time.Millisecond, poll: 50 * time.Millisecond},
			})
			mu.Lock()
			out[id] = clientRun{m: m, out: buf.String(), err: err}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func clientDirs(t *testing.T, n int) []string {
	base := t.TempDir()
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = filepath.Join(base, "c"+string(rune('0'+i)))
	}
	return dirs
}

// syncTableThere reports whether the sync table exists in cfg's database.
func syncTableThere(t *testing.T, cfg driver.Config) bool {
	t.Helper()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	conn, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q := "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?"
	if cfg.Kind == driver.KindPgSQL {
		q = "SELECT COUNT(*) FROM information_schema.tables WHERE table_catalog = ? AND table_name = ?"
	}
	rows, err := conn.QueryStrings(context.Background(), q, cfg.Database, syncTable)
	if err != nil {
		t.Fatal(err)
	}
	return rows[0][0] != "0"
}

func TestCoordinatedClientsRunPlanTogether(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	path := writePlan(t, clientsPlan(cfg, 3, "30s", "matrix: {workloads: [oltp_point_select, oltp_read_write], threads: [1, 2]}"))
	dirs, runID := clientDirs(t, 3), newRunID(t)
	runs := runClients(t, path, runID, []int{0, 1, 2}, dirs, nil, 500*time.Millisecond)
	for id, r := range runs {
		if r.err != nil {
			t.Fatalf("client %d: %v\n%s", id, r.err, r.out)
		}
	}
	manifests := make([]*suitedir.Manifest, 3)
	for id, dir := range dirs {
		m := checkComplete(t, dir)
		manifests[id] = m
		if c := m.Client; c == nil || c.ID != id || c.Of != 3 || c.RunID != runID || c.ClockRTTMs <= 0 {
			t.Errorf("client %d's manifest records %+v", id, m.Client)
		}
		var steps []string
		for _, s := range m.Steps {
			steps = append(steps, s.Name)
		}
		// The leader alone prepares and warms the data; the others wait for it.
		want := "leader's steps"
		if id == 0 {
			want = "prepare,checksum warm-up"
		}
		if got := strings.Join(steps, ","); got != want {
			t.Errorf("client %d's steps: %s, want %s", id, got, want)
		}
		if id > 0 && !strings.Contains(m.Steps[0].Detail, "client 0 ran them: prepare: loaded") {
			t.Errorf("client %d's record of the leader's steps: %q", id, m.Steps[0].Detail)
		}
	}

	// Every cell started at one moment on all clients, recorded in their results.
	var prev time.Time
	for i := range manifests[0].Cells {
		at := manifests[0].Cells[i].StartAt
		if at.IsZero() || !at.After(prev) {
			t.Fatalf("cell %d: start %v after %v", i+1, at, prev)
		}
		prev = at
		for id, m := range manifests {
			c := m.Cells[i]
			res, err := result.Read(filepath.Join(dirs[id], c.File))
			if err != nil {
				t.Fatal(err)
			}
			if res.Client == nil || res.Client.ID != id || res.Client.Of != 3 || !res.Client.StartAt.Equal(at) || !c.StartAt.Equal(at) {
				t.Errorf("client %d cell %s: client %+v, manifest start %v, want start %v", id, c.ID, res.Client, c.StartAt, at)
			}
			// Measuring began at the start, not before (a generous bound for the clock offset).
			if res.Start.Before(at.Add(-100 * time.Millisecond)) {
				t.Errorf("client %d cell %s measured from %v, before the start %v", id, c.ID, res.Start, at)
			}
		}
	}
	if syncTableThere(t, cfg) {
		t.Errorf("the leader left %s behind", syncTable)
	}

	// The directories merge cell by cell into one that reads like any suite.
	out := filepath.Join(t.TempDir(), "merged")
	var warnings []string
	m, err := MergeDirs([]string{dirs[2], dirs[0], dirs[1]}, out, MergeOptions{Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != suitedir.StatusComplete || m.Merged == nil || m.Merged.Clients != 3 || m.Merged.RunID != runID || m.Merged.From[0].Dir != dirs[0] {
		t.Fatalf("merged manifest: status %s, %+v", m.Status, m.Merged)
	}
	again, err := suitedir.ReadManifest(out)
	if err != nil || len(again.Cells) != 4 {
		t.Fatalf("merged manifest on disk: %v", err)
	}
	for i, c := range again.Cells {
		merged, err := result.Read(filepath.Join(out, c.File))
		if err != nil {
			t.Fatalf("cell %s: %v", c.ID, err)
		}
		var events, queries int64
		threads := 0
		for id := range dirs {
			part, err := result.Read(filepath.Join(dirs[id], manifests[id].Cells[i].File))
			if err != nil {
				t.Fatal(err)
			}
			events += part.Totals.Counts.Events
			queries += part.Totals.Counts.Queries
			threads += part.Threads
		}
		if merged.Totals.Counts.Events != events || merged.Totals.Counts.Queries != queries || merged.Threads != threads || c.Threads != threads || threads != 3*manifests[0].Cells[i].Threads {
			t.Errorf("cell %s: merged %d events, %d queries, %d threads (manifest %d), want %d, %d, %d",
				c.ID, merged.Totals.Counts.Events, merged.Totals.Counts.Queries, merged.Threads, c.Threads, events, queries, threads)
		}
		if c.Status != suitedir.StatusComplete || c.Summary == nil || c.Summary.TPS <= 0 || len(merged.MergedFrom) != 3 || merged.Suite == nil || merged.Suite.Cell != c.ID {
			t.Errorf("merged cell %s: %s %+v, merged from %d, suite %+v", c.ID, c.Status, c.Summary, len(merged.MergedFrom), merged.Suite)
		}
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	var status bytes.Buffer
	WriteStatus(&status, again)
	if !strings.Contains(status.String(), "Merged from 3 clients of run "+runID) || !strings.Contains(status.String(), "Cells: 4 complete") {
		t.Errorf("status of the merged suite:\n%s", status.String())
	}

	WriteStatus(&status, manifests[1])
	if !strings.Contains(status.String(), "Client 1 of 3, run "+runID) {
		t.Errorf("status of client 1:\n%s", status.String())
	}

	t.Run("refusals", func(t *testing.T) { checkMergeRefusals(t, dirs, out) })
	t.Run("cell not complete everywhere", func(t *testing.T) {
		// Client 2's second cell failed: the other cells merge, it does not.
		failed := copyDir(t, dirs[2])
		m2, err := suitedir.ReadManifest(failed)
		if err != nil {
			t.Fatal(err)
		}
		m2.Cells[1].Status, m2.Cells[1].Error = suitedir.StatusFailed, "boom"
		if err := m2.Write(failed); err != nil {
			t.Fatal(err)
		}
		m, err := MergeDirs([]string{dirs[0], dirs[1], failed}, filepath.Join(t.TempDir(), "m"), MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := m.Cells[1]
		if m.Status != suitedir.StatusFailed || m.Counts()[suitedir.StatusComplete] != 3 || c.Status != suitedir.StatusFailed || c.File != "" || c.Error != "not merged: client 2: failed (boom)" {
			t.Errorf("merged: %s %v; cell 2: %s %q %q", m.Status, m.Counts(), c.Status, c.File, c.Error)
		}
	})
}

// copyDir copies the files of dir into a new directory.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(to, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return to
}

// checkMergeRefusals gives MergeDirs directories that do not belong together.
func checkMergeRefusals(t *testing.T, dirs []string, merged string) {
	// altered copies client 2's manifest into a directory of its own, changed.
	altered := func(change func(*suitedir.Manifest)) string {
		m, err := suitedir.ReadManifest(dirs[2])
		if err != nil {
			t.Fatal(err)
		}
		change(m)
		dir := filepath.Join(t.TempDir(), "altered")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, suitedir.ManifestName), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name string
		dirs []string
		out  string
		want []string
	}{
		{"other run", []string{dirs[0], dirs[1], altered(func(m *suitedir.Manifest) { m.Client.RunID = "other" })}, "", []string{"the run (--run-id) differs", "other"}},
		{"other plan", []string{dirs[0], dirs[1], altered(func(m *suitedir.Manifest) { m.Plan.Hash = "abcdef0123456789"; m.Plan.Name = "else" })}, "", []string{"the plan differs", "else"}},
		{"other scale", []string{dirs[0], dirs[1], altered(func(m *suitedir.Manifest) { m.Plan.Scale = 0.5 })}, "", []string{"--scale differs"}},
		{"client missing", dirs[:2], "", []string{"had 3 clients", "2 directories were given"}},
		{"client twice", []string{dirs[0], dirs[1], dirs[1]}, "", []string{"client 2 of run", "missing", "client 1 is both"}},
		{"not a client", []string{dirs[0], dirs[1], altered(func(m *suitedir.Manifest) { m.Client = nil })}, "", []string{"not the directory of a coordinated client"}},
		{"merged again", []string{merged, dirs[1], dirs[2]}, "", []string{"is a merged suite already"}},
		{"into a client", dirs, dirs[1], []string{"is one of the client directories"}},
		{"into a full directory", dirs, merged, []string{"is not empty"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "m")
			}
			_, err := MergeDirs(tc.dirs, out, MergeOptions{})
			if err == nil {
				t.Fatal("merged")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.out == "" {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a refused merge wrote %s", out)
				}
			}
		})
	}
}

// TestCoordinatedClientsOnPostgres runs two clients of one cell on
// PostgreSQL: its clock, its sync table and its cleanup.
func TestCoordinatedClientsOnPostgres(t *testing.T) {
	t.Parallel()
	cfg := testdb.PgSQL(t)
	path := writePlan(t, clientsPlan(cfg, 2, "30s", "matrix: {workloads: [oltp_point_select], threads: [2]}"))
	dirs := clientDirs(t, 2)
	runs := runClients(t, path, newRunID(t), []int{0, 1}, dirs, nil, 300*time.Millisecond)
	var starts []time.Time
	for id, r := range runs {
		if r.err != nil {
			t.Fatalf("client %d: %v\n%s", id, r.err, r.out)
		}
		m := checkComplete(t, dirs[id])
		res, err := result.Read(filepath.Join(dirs[id], m.Cells[0].File))
		if err != nil || res.Client == nil {
			t.Fatalf("client %d's result: %v", id, err)
		}
		starts = append(starts, res.Client.StartAt)
	}
	if !starts[0].Equal(starts[1]) || starts[0].IsZero() {
		t.Errorf("starts %v", starts)
	}
	if syncTableThere(t, cfg) {
		t.Errorf("the leader left %s behind", syncTable)
	}
}

// TestCoordinatedClientMissing starts two of three clients: the leader gives
// up after clients.wait naming the missing one, the other client stops at
// once, the run id cannot be used again, and all three started again with a
// new run id (the two with --resume) complete the plan.
func TestCoordinatedClientMissing(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	path := writePlan(t, clientsPlan(cfg, 3, "2s", "matrix: {workloads: [oltp_point_select], threads: [1]}"))
	dirs, runID := clientDirs(t, 3), newRunID(t)
	runs := runClients(t, path, runID, []int{0, 1}, dirs, nil, 300*time.Millisecond)
	var coord *CoordinationError
	leader, follower := runs[0], runs[1]
	if !errors.As(leader.err, &coord) || !strings.Contains(leader.err.Error(), "client 2 did not reach the start of the run within 2s (clients.wait)") ||
		!strings.Contains(leader.err.Error(), "--run-id "+runID) {
		t.Errorf("leader: %v\n%s", leader.err, leader.out)
	}
	if !errors.As(follower.err, &coord) || !strings.Contains(follower.err.Error(), "client 0 stopped the run: client 2 did not reach") {
		t.Errorf("client 1: %v\n%s", follower.err, follower.out)
	}
	for id, r := range runs {
		if r.m == nil || r.m.Status != suitedir.StatusFailed || r.m.Counts()[suitedir.StatusPending] != 1 {
			t.Errorf("client %d's manifest: %+v", id, r.m)
		}
	}

	late := runClients(t, path, runID, []int{2}, dirs, nil, 0)[2]
	if !errors.As(late.err, &coord) || !strings.Contains(late.err.Error(), "was stopped earlier") || !strings.Contains(late.err.Error(), "new --run-id") {
		t.Errorf("a client arriving after the run stopped: %v\n%s", late.err, late.out)
	}

	// All three again with a new run id, resuming their directories (client
	// 2's refused start made one too).
	again := runClients(t, path, newRunID(t), []int{0, 1, 2}, dirs, map[int]bool{0: true, 1: true, 2: true}, 200*time.Millisecond)
	for id, r := range again {
		if r.err != nil {
			t.Fatalf("client %d: %v\n%s", id, r.err, r.out)
		}
		m := checkComplete(t, dirs[id])
		if id < 2 && (m.Sessions != 2 || len(m.Client.RunIDs) != 2) {
			t.Errorf("client %d: %d sessions, run ids %v", id, m.Sessions, m.Client.RunIDs)
		}
	}
	// The run that ended took the stopped run's rows with its own.
	if syncTableThere(t, cfg) {
		t.Errorf("%s is still there after a run ended", syncTable)
	}
}

// TestCoordinatedClientInterrupted stops one of three clients after its
// first cell: the others stop at its word, long before clients.wait, and
// every client keeps the cell it completed.
func TestCoordinatedClientInterrupted(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	path := writePlan(t, clientsPlan(cfg, 3, "5m", "matrix: {workloads: [oltp_point_select], threads: [1, 2, 3]}"))
	dirs := clientDirs(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Ctrl-C on client 2 once its first cell is complete.
		for ctx.Err() == nil {
			if m, err := suitedir.ReadManifest(dirs[2]); err == nil && m.Cells[0].Status == suitedir.StatusComplete {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	began := time.Now()
	runs := runClientsCtx(t, path, newRunID(t), []int{0, 1, 2}, dirs, nil, 200*time.Millisecond, map[int]context.Context{2: ctx})
	if took := time.Since(began); took > 2*time.Minute {
		t.Errorf("the clients took %s to stop: they waited for clients.wait", took)
	}
	if !errors.Is(runs[2].err, ErrInterrupted) {
		t.Errorf("client 2: %v", runs[2].err)
	}
	var coord *CoordinationError
	for id := range 2 {
		r := runs[id]
		if !errors.As(r.err, &coord) || !strings.Contains(r.err.Error(), "client 2 stopped the run: it was interrupted") {
			t.Errorf("client %d: %v\n%s", id, r.err, r.out)
		}
	}
	for id, r := range runs {
		if r.m == nil || r.m.Cells[0].Status != suitedir.StatusComplete || r.m.Cells[2].Status != suitedir.StatusPending {
			t.Fatalf("client %d's cells: %+v", id, r.m)
		}
		if _, err := result.Read(filepath.Join(dirs[id], r.m.Cells[0].File)); err != nil {
			t.Errorf("client %d lost its completed cell: %v", id, err)
		}
	}
}

func TestCheckClient(t *testing.T) {
	const body = "data: {tables: 1, table_size: 1000}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n"
	trio := parseValid(t, "target: {driver: mysql}\nclients: {count: 3}\n"+body)
	solo := parseValid(t, "target: {driver: mysql}\nclients: {count: 1}\n"+body)
	none := parseValid(t, body)
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		plan *Plan
		c    *ClientOptions
		want string // "" = accepted
	}{
		{"client", trio, &ClientOptions{ID: 2, RunID: "1795323600"}, ""},
		{"rfc 3339 run id", trio, &ClientOptions{ID: 0, RunID: "2026-11-22T05:00:00Z"}, ""},
		{"no client id", trio, &ClientOptions{ID: NoClientID, RunID: "r"}, "give each its --client-id (0 to 2)"},
		{"id out of range", trio, &ClientOptions{ID: 3, RunID: "r"}, "--client-id 3 is outside 0..2"},
		{"no run id", trio, &ClientOptions{ID: 1}, "--run-id is missing"},
		{"bad run id", trio, &ClientOptions{ID: 1, RunID: "a/b"}, `has '/'`},
		{"long run id", trio, &ClientOptions{ID: 1, RunID: strings.Repeat("x", 101)}, "at most 100"},
		{"flags without clients", none, &ClientOptions{ID: 0, RunID: "r"}, "has no clients: section"},
		{"nothing without clients", none, &ClientOptions{ID: NoClientID}, ""},
		{"single client", solo, &ClientOptions{ID: NoClientID}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.plan.CheckClient(tc.c, now)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	if c := (&ClientOptions{ID: NoClientID}); solo.CheckClient(c, now) != nil || c.ID != 0 || c.RunID == "" {
		t.Errorf("a single client: %+v", c)
	}
}
