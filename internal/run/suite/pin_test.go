package suite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/machine/procfs"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestSuitePinsItsServer: a plan's server.cpus reaches the server's start
// and is recorded in the manifest and every cell's managed_server.cpu_list.
func TestSuitePinsItsServer(t *testing.T) {
	testdb.SkipShort(t, "a private MariaDB")
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
		}
	}
	dir := t.TempDir()
	serverDir := filepath.Join(dir, "server")
	plan := fmt.Sprintf(`name: pinned
server: {flavor: mariadb, dir: %s, cpus: 0}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1]}
run: {time: 1}
`, serverDir)
	t.Cleanup(func() { _ = localserverStop(serverDir) })
	m, out, err := runPlan(context.Background(), t, writePlan(t, plan), filepath.Join(dir, "suite"), false)
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	if len(m.Servers) != 1 || m.Servers[0].Managed == nil || m.Servers[0].Managed.CPUList != "0" {
		t.Fatalf("servers in the manifest: %+v", m.Servers)
	}
	if len(m.Cells) != 1 {
		t.Fatalf("%d cells", len(m.Cells))
	}
	res, err := result.Read(filepath.Join(dir, "suite", m.Cells[0].File))
	if err != nil {
		t.Fatal(err)
	}
	if res.ManagedServer == nil || res.ManagedServer.CPUList != "0" {
		t.Errorf("cell's managed server: %+v", res.ManagedServer)
	}
}

// sweepWatch records, when each cell's measured phase begins, the CPUs every
// thread of the plan's server may run on.
type sweepWatch struct {
	noWatch
	t         *testing.T
	serverDir string
	mu        sync.Mutex
	cell      string
	tasks     map[string]map[string]string // cell id → /proc/PID/task/TID → Cpus_allowed_list
	pids      map[string]int
}

func (w *sweepWatch) Cell(_, _ int, id, _ string, _ int, _ []string) {
	w.mu.Lock()
	w.cell = id
	w.mu.Unlock()
}

func (w *sweepWatch) Phase(name string) {
	if name != "measure" {
		return
	}
	st, err := localserver.Status(context.Background(), w.serverDir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || !st.Running {
		w.t.Errorf("cell %s: the server is not running: %v", w.cell, err)
		return
	}
	w.pids[w.cell] = st.PID
	w.tasks[w.cell] = taskCPUs(w.t, st.PID)
}

// taskCPUs reads Cpus_allowed_list of every thread of pid.
func taskCPUs(t *testing.T, pid int) map[string]string {
	statuses, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	out := map[string]string{}
	for _, f := range statuses {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		if list, ok := procfs.StatusField(data, "Cpus_allowed_list"); ok {
			out[filepath.Dir(f)] = list
		}
	}
	return out
}

// TestSuiteServerCPUSweep: a plan with server_cpus: [1, 2] on this machine
// restarts its MariaDB on each set, warms it again without reloading, and
// records each cell's set; every thread of the server is on the set while
// the cell is measured. A resumed cell is run on its own set again.
func TestSuiteServerCPUSweep(t *testing.T) {
	testdb.SkipShort(t, "a private MariaDB")
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
		}
	}
	sys := os.DirFS("/")
	usable, err := cpuset.Usable(sys, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if usable.Len() < 2 {
		t.Skipf("this process may use CPUs %s only: a sweep over 1 and 2 CPUs needs two", usable)
	}
	topo, err := cpuset.ReadTopology(sys)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]cpuset.Set{}
	for _, n := range []int{1, 2} {
		if want[n], err = cpuset.Select(topo.Within(usable), n, cpuset.SMTAll, cpuset.Packed); err != nil {
			t.Fatal(err)
		}
	}
	online, _ := cpuset.Online(sys)

	dir := t.TempDir()
	serverDir := filepath.Join(dir, "server")
	plan := fmt.Sprintf(`name: sweep
server: {flavor: mariadb, dir: %s}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1], server_cpus: [1, 2]}
run: {time: 1}
steps:
  checksum_warmup: true
  query_warmup: {workload: oltp_point_select, threads: 1, time: 1}
`, serverDir)
	t.Cleanup(func() { _ = localserverStop(serverDir) })
	path, suiteDir := writePlan(t, plan), filepath.Join(dir, "suite")
	env := testEnv()
	env.UsableCPUs = func() (cpuset.Set, error) { return cpuset.Usable(sys, os.Getpid()) }
	run := func(resume bool) (*suitedir.Manifest, *sweepWatch) {
		t.Helper()
		p, err := ReadPlan(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(env); err != nil {
			t.Fatal(err)
		}
		w := &sweepWatch{t: t, serverDir: serverDir, tasks: map[string]map[string]string{}, pids: map[string]int{}}
		var out bytes.Buffer
		m, err := Run(context.Background(), p, env, Options{Dir: suiteDir, Resume: resume, Out: &out, Watch: w, Tool: result.Tool{Name: "fairbench", Version: "test"}})
		if err != nil {
			t.Fatalf("suite: %v\n%s", err, out.String())
		}
		return m, w
	}
	// checkThreads asserts that the server's threads were on cell id's set.
	checkThreads := func(w *sweepWatch, id string, set cpuset.Set) {
		t.Helper()
		tasks := w.tasks[id]
		if len(tasks) < 2 {
			t.Fatalf("cell %s: %d server threads seen: the check would prove little", id, len(tasks))
		}
		for task, list := range tasks {
			if list != set.String() {
				t.Errorf("cell %s: %s Cpus_allowed_list = %q, want %s", id, task, list, set)
			}
		}
	}

	m, w := run(false)
	ids := []string{"cpu-bound/c1/uniform/r1/oltp_point_select/t1", "cpu-bound/c2/uniform/r1/oltp_point_select/t1"}
	if len(m.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(m.Cells))
	}
	for i, c := range m.Cells {
		n := i + 1
		if c.ID != ids[i] || c.ServerCPUs != n || c.SMT != "all" || c.Status != suitedir.StatusComplete {
			t.Errorf("cell %d: %s, server_cpus %d, smt %q, %s (%s)", i+1, c.ID, c.ServerCPUs, c.SMT, c.Status, c.Error)
		}
		res, err := result.Read(filepath.Join(suiteDir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		sc := res.Suite.ServerCPUs
		if sc == nil || sc.Count != n || sc.SMT != "all" || sc.Placement != "packed" || sc.CPUList != want[n].String() || sc.CPUs != n || sc.Cores != topo.CoresIn(want[n]) {
			t.Errorf("cell %s: suite.server_cpus %+v, want %s", c.ID, sc, want[n])
		}
		if res.ManagedServer == nil || res.ManagedServer.CPUList != want[n].String() {
			t.Errorf("cell %s: managed_server %+v, want cpu_list %s", c.ID, res.ManagedServer, want[n])
		}
		// The server's machine as read from /proc: its affinity, "" for
		// every online CPU.
		wantMachine := want[n].String()
		if want[n].Equal(online) {
			wantMachine = ""
		}
		if len(res.ServerMachines) != 1 || res.ServerMachines[0].CPUList != wantMachine || res.ServerMachines[0].PID != w.pids[c.ID] {
			t.Errorf("cell %s: server_machines %+v, want cpu_list %q and pid %d", c.ID, res.ServerMachines, wantMachine, w.pids[c.ID])
		}
		checkThreads(w, c.ID, want[n])
	}
	if w.pids[ids[0]] == w.pids[ids[1]] {
		t.Errorf("both cells ran on server pid %d: it was not restarted", w.pids[ids[0]])
	}
	steps := map[string]int{}
	for _, st := range m.Steps {
		steps[st.Name]++
	}
	if steps["server start"] != 2 || steps["prepare"] != 1 || steps["checksum warm-up"] != 2 || steps["query warm-up"] != 2 {
		t.Errorf("steps %v: want 2 server starts and warm-ups, 1 prepare", steps)
	}
	if len(m.Servers) != 2 || cpuList(m.Servers[0].Managed) != want[1].String() || cpuList(m.Servers[1].Managed) != want[2].String() {
		t.Errorf("manifest servers: %+v", m.Servers)
	}

	// The first cell again, as after a failure: the resumed suite starts the
	// server on that cell's set, not the last one.
	m.Cells[0].Status = suitedir.StatusFailed
	if err := m.Write(suiteDir); err != nil {
		t.Fatal(err)
	}
	m, w = run(true)
	if len(w.tasks) != 1 || m.Cells[0].Status != suitedir.StatusComplete || len(m.Cells[0].Attempts) != 1 {
		t.Fatalf("resume ran %d cells; first cell %s with %d earlier attempts", len(w.tasks), m.Cells[0].Status, len(m.Cells[0].Attempts))
	}
	checkThreads(w, ids[0], want[1])
}
