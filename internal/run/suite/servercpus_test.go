package suite

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis/usl"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/cpuset/cpusettest"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// The sysfs trees of the fixture machines (internal/machine/cpuset): the committed
// development VM and generated larger ones.
var (
	vmSys     = os.DirFS("../../machine/cpuset/testdata/two-cpu-vm")
	intelSys  = cpusettest.Intel2S.Tree()
	armSys    = cpusettest.ARM80.Tree()
	epycSys   = cpusettest.EPYC.Tree()
	ht28Sys   = cpusettest.HT28.Tree()
	fixtureOK = "data: {tables: 1, table_size: 1000}\nmatrix:\n  workloads: [oltp_point_select, oltp_read_only]\n  threads: [1, 4]\n"
)

// fixtureMemory is the memory of the fixture machines: room for the
// example plans' cpu-bound profiles, whatever this machine has (the fixtures
// are about CPUs).
const fixtureMemory = 1 << 40

// fixtureEnv is a test Env on the machine whose sysfs is fsys: its topology,
// and its online CPUs as the ones this process may use (usable narrows them
// when given), with fixtureMemory.
func fixtureEnv(fsys fs.FS, usable string) Env {
	env := testEnv()
	env.MemoryBytes = fixtureMemory
	env.Getenv = func(string) string { return "" }
	env.Topology = func() (cpuset.Topology, error) { return cpuset.ReadTopology(fsys) }
	env.UsableCPUs = func() (cpuset.Set, error) {
		if usable != "" {
			return cpuset.Parse(usable)
		}
		return cpuset.Online(fsys)
	}
	return env
}

// validOn parses and validates a plan on a fixture machine.
func validOn(text string, env Env) (*Plan, error) {
	p, err := ParsePlan("plan.yaml", []byte(text))
	if err != nil {
		return nil, err
	}
	return p, p.Validate(env)
}

// TestServerCPUSweepExpands: each value of server_cpus gets its set from the
// machine's topology, the cells of a set run together (one restart per set)
// and carry it in their ids and fields.
func TestServerCPUSweepExpands(t *testing.T) {
	tests := []struct {
		name    string
		sys     fs.FS
		usable  string
		matrix  string
		ids     []string // the sets' labels in run order
		sets    []string // their CPU lists
		cores   []int
		workers int // cells per set
	}{
		{"intel both packed", intelSys, "", "  server_cpus: [1, 2, 4]\n  smt: both\n",
			[]string{"c1", "c2", "c4", "c1-1pc", "c2-1pc", "c4-1pc"}, []string{"0", "0,32", "0-1,32-33", "0", "0-1", "0-3"}, []int{1, 1, 2, 1, 2, 4}, 4},
		{"intel spread", intelSys, "", "  server_cpus: [4, 32]\n  smt: one-per-core\n  placement: spread\n",
			[]string{"c4-1pc", "c32-1pc"}, []string{"0-1,16-17", "0-31"}, []int{4, 32}, 4},
		{"epyc spread all", epycSys, "", "  server_cpus: [8]\n  placement: spread\n",
			[]string{"c8"}, []string{"0,16,32,48,64,80,96,112"}, []int{4}, 4},
		{"arm one per core", armSys, "", "  server_cpus: [8, 56]\n  smt: one-per-core\n",
			[]string{"c8-1pc", "c56-1pc"}, []string{"0-7", "0-55"}, []int{8, 56}, 4},
		{"vm", vmSys, "", "  server_cpus: [1, 2]\n", []string{"c1", "c2"}, []string{"0", "0-1"}, []int{1, 2}, 4},
		// Only the CPUs this process may use are chosen from.
		{"intel narrowed", intelSys, "8-11,40-43", "  server_cpus: [2, 8]\n", []string{"c2", "c8"}, []string{"8,40", "8-11,40-43"}, []int{1, 4}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := validOn("server: {flavor: mariadb}\n"+fixtureOK+tt.matrix+"run: {time: 1}\n", fixtureEnv(tt.sys, tt.usable))
			if err != nil {
				t.Fatal(err)
			}
			cells := p.Expand()
			if len(cells) != len(tt.ids)*tt.workers {
				t.Fatalf("%d cells, want %d", len(cells), len(tt.ids)*tt.workers)
			}
			gs := groups(cells)
			if len(gs) != len(tt.ids) {
				t.Fatalf("%d groups (server restarts), want one per set: %d", len(gs), len(tt.ids))
			}
			for i, g := range gs {
				for _, c := range g.Cells {
					ss := p.setOf(c)
					if ss.label() != tt.ids[i] || ss.cpus.String() != tt.sets[i] || ss.cores != tt.cores[i] {
						t.Errorf("cell %s: set %s = %s (%d cores), want %s = %s (%d cores)", c.ID, ss.label(), ss.cpus, ss.cores, tt.ids[i], tt.sets[i], tt.cores[i])
					}
					if !strings.HasPrefix(c.ID, "cpu-bound/"+tt.ids[i]+"/uniform/") {
						t.Errorf("cell id %q lacks its set %s", c.ID, tt.ids[i])
					}
					if got := p.serverCPUs(c).String(); got != tt.sets[i] {
						t.Errorf("cell %s: server started on %s, want %s", c.ID, got, tt.sets[i])
					}
					rec := p.cellServerCPUs(c)
					if rec == nil || rec.CPUList != tt.sets[i] || rec.Count != c.ServerCPUs || rec.SMT != c.SMT || rec.CPUs != ss.cpus.Len() || rec.Cores != tt.cores[i] || rec.Placement == "" {
						t.Errorf("cell %s records %+v", c.ID, rec)
					}
				}
			}
			var ids []string
			for _, c := range cells {
				ids = append(ids, c.ID)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
				t.Errorf("cell ids repeat: %v", ids)
			}
		})
	}
}

// TestServerCPUSweepRefusals: what the machine cannot give, and keys that
// contradict each other, are refused when the plan is read, naming the key
// and (for the machine) its topology.
func TestServerCPUSweepRefusals(t *testing.T) {
	const run = "run: {time: 1}\n"
	srv := "server: {flavor: mariadb}\n"
	tests := []struct {
		name, text string
		sys        fs.FS
		usable     string
		want       []string
	}{
		{"more CPUs than the machine", srv + fixtureOK + "  server_cpus: [1, 2, 4]\n" + run, vmSys, "",
			[]string{"plan.yaml:6:", "matrix.server_cpus[2]", "4 CPUs asked for, but this machine has 2 (2 CPUs, 2 cores, 1 socket, 1 NUMA node)", "may use CPUs 0-1"}},
		{"more cores than the machine", srv + fixtureOK + "  server_cpus: [16, 33]\n  smt: one-per-core\n" + run, intelSys, "",
			[]string{"matrix.server_cpus[1]", "33 cores (smt: one-per-core) asked for, but this machine has 32 (64 CPUs, 32 cores, 2 sockets, 2 NUMA nodes)"}},
		{"more than this process may use", srv + fixtureOK + "  server_cpus: [4, 8]\n" + run, intelSys, "0-3",
			[]string{"matrix.server_cpus[1]", "8 CPUs asked for, but this machine has 4 (4 CPUs, 4 cores, 1 socket, 1 NUMA node)", "may use CPUs 0-3"}},
		{"smt both without siblings", srv + fixtureOK + "  server_cpus: [1, 2]\n  smt: both\n" + run, vmSys, "",
			[]string{"plan.yaml:7:", "matrix.smt", "one thread per core (2 CPUs, 2 cores, 1 socket, 1 NUMA node)", "use smt: all"}},
		{"smt both on the ARM", srv + fixtureOK + "  server_cpus: [8]\n  smt: both\n" + run, armSys, "",
			[]string{"matrix.smt", "80 CPUs, 80 cores, 1 socket, 1 NUMA node"}},
		{"duplicate", srv + fixtureOK + "  server_cpus: [2, 1, 2]\n" + run, intelSys, "", []string{"matrix.server_cpus[2]", "2 is listed twice"}},
		{"zero", srv + fixtureOK + "  server_cpus: [0, 1]\n" + run, intelSys, "", []string{"matrix.server_cpus[0]", "0 CPUs: give 1 or more"}},
		{"negative", srv + fixtureOK + "  server_cpus: [-2]\n" + run, intelSys, "", []string{"matrix.server_cpus[0]", "-2 CPUs"}},
		{"empty", srv + fixtureOK + "  server_cpus: []\n" + run, intelSys, "", []string{"matrix.server_cpus is empty"}},
		{"not a number", srv + fixtureOK + "  server_cpus: [1, all]\n" + run, intelSys, "", []string{"plan.yaml:6:", "matrix.server_cpus", `"all" is not`}},
		{"bad smt", srv + fixtureOK + "  server_cpus: [1]\n  smt: off\n" + run, intelSys, "", []string{"plan.yaml:7:", "matrix.smt", `smt "off": use all, one-per-core or both`}},
		{"bad placement", srv + fixtureOK + "  server_cpus: [1]\n  placement: numa\n" + run, intelSys, "", []string{"matrix.placement", `placement "numa"`}},
		{"no server", fixtureOK + "  server_cpus: [1, 2]\n" + run, intelSys, "", []string{"plan.yaml:5:", "no server: section", "server start --cpus"}},
		{"with server.cpus", "server: {flavor: mariadb, cpus: 0}\n" + fixtureOK + "  server_cpus: [1, 2]\n" + run, intelSys, "", []string{"plan.yaml:1:", "server.cpus", "keep one"}},
		{"with cpus_share", "server: {flavor: mariadb, cpus_share: 0.5}\n" + fixtureOK + "  server_cpus: [1, 2]\n" + run, intelSys, "", []string{"server.cpus_share", "keep one"}},
		{"smt without a sweep", srv + fixtureOK + "  smt: both\n" + run, intelSys, "", []string{"matrix.smt chooses the CPU sets of matrix.server_cpus"}},
		// server.cpus_share.
		{"share too small", "server: {flavor: mariadb, cpus_share: 0.2}\n" + fixtureOK + run, vmSys, "", []string{"server.cpus_share", "share 0.2 of 2 is less than one", "2 CPUs, 2 cores"}},
		{"share above 1", "server: {flavor: mariadb, cpus_share: 1.5}\n" + fixtureOK + run, vmSys, "", []string{"server.cpus_share", "at most 1"}},
		{"share zero", "server: {flavor: mariadb, cpus_share: 0}\n" + fixtureOK + run, vmSys, "", []string{"server.cpus_share", "above 0"}},
		{"share and cpus", "server: {flavor: mariadb, cpus: 0, cpus_share: 0.5}\n" + fixtureOK + run, intelSys, "", []string{"server.cpus and server.cpus_share", "keep one"}},
		{"share smt both", "server: {flavor: mariadb, cpus_share: 0.5, smt: both}\n" + fixtureOK + run, intelSys, "", []string{"server.smt", "only a sweep does"}},
		{"share placement alone", "server: {flavor: mariadb, placement: spread}\n" + fixtureOK + run, intelSys, "", []string{"server.placement chooses the CPUs of server.cpus_share"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := validOn(tt.text, fixtureEnv(tt.sys, tt.usable))
			if err == nil {
				t.Fatalf("no error for\n%s", tt.text)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestCPUsShare: server.cpus_share gives the server a share of any machine
// (seed 001's 22 of 28 and 56 of 64), the rest left to the client.
func TestCPUsShare(t *testing.T) {
	tests := []struct {
		sys          fs.FS
		server, want string
	}{
		{ht28Sys, "cpus_share: 0.78", "0-10,14-24"},              // 22 of 28 hardware threads, siblings together
		{ht28Sys, "cpus_share: 0.78, smt: one-per-core", "0-10"}, // 11 of 14 cores, one thread each
		{armSys, "cpus_share: 0.875", "0-69"},                    // 70 of 80
		{intelSys, "cpus_share: 0.5, placement: spread", "0-7,16-23,32-39,48-55"},
		{vmSys, "cpus_share: 0.78", "0-1"}, // 1.56 rounds to 2: the whole VM
		{vmSys, "cpus_share: 0.5", "0"},
	}
	for _, tt := range tests {
		p, err := validOn("server: {flavor: mariadb, "+tt.server+"}\n"+fixtureOK+"run: {time: 1}\n", fixtureEnv(tt.sys, ""))
		if err != nil {
			t.Errorf("%s: %v", tt.server, err)
			continue
		}
		if got := p.Server.CPUSet().String(); got != tt.want {
			t.Errorf("%s: server CPUs %s, want %s", tt.server, got, tt.want)
		}
		if p.sweep != nil || p.Expand()[0].ServerCPUs != 0 {
			t.Errorf("%s: a share is not a sweep", tt.server)
		}
	}
}

// TestServerCPUSweepDryRun: the dry run lists each value's set on the machine
// and the set of every cell.
func TestServerCPUSweepDryRun(t *testing.T) {
	p, err := validOn("server: {flavor: mariadb}\n"+fixtureOK+"  server_cpus: [2, 4]\n  smt: both\nrun: {time: 1}\n", fixtureEnv(intelSys, ""))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := DryRun(&out, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"restarted on each CPU set below",
		"Server CPU sets (matrix.server_cpus, placement packed) on this machine's usable CPUs (64 CPUs, 32 cores, 2 sockets, 2 NUMA nodes; CPUs 0-63)",
		"c2       2 CPUs (smt all): CPUs 0,32, 1 core\n",
		"c4       4 CPUs (smt all): CPUs 0-1,32-33, 2 cores\n",
		"c2-1pc   2 cores (smt one-per-core): CPUs 0-1, 2 cores\n",
		"c4-1pc   4 cores (smt one-per-core): CPUs 0-3, 4 cores\n",
		"server cpus",
		"c4-1pc (0-3)",
		"16 cells",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, out.String())
		}
	}
}

// TestExamplePlansChooseServerCPUs: seed 001's split gives the server its
// share of any machine; seed 002's sweep runs on a large machine and is
// refused on the 2-CPU VM, naming its topology.
func TestExamplePlansChooseServerCPUs(t *testing.T) {
	read := func(file string, env Env) (*Plan, error) {
		p, err := ReadPlan("../../../plans/" + file)
		if err != nil {
			t.Fatal(err)
		}
		return p, p.Validate(env)
	}
	for _, tt := range []struct {
		sys  fs.FS
		want string
		note string
	}{{ht28Sys, "0-10,14-24", ""}, {intelSys, "0-24,32-56", ""}, {vmSys, "0", "rounds to all 2, which leaves client_cpus: rest nothing: the server gets 1"}} {
		p, err := read("seed001-split.yaml", fixtureEnv(tt.sys, ""))
		if err != nil || p.Server.CPUSet().String() != tt.want || !strings.Contains(p.Server.shareNote, tt.note) || (tt.note == "") != (p.Server.shareNote == "") {
			t.Errorf("seed001 split: server CPUs %s (note %q), %v; want %s (note %q)", p.Server.CPUSet(), p.Server.shareNote, err, tt.want, tt.note)
		}
	}
	p, err := read("seed002-core-scaling.yaml", fixtureEnv(intelSys, ""))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(groups(p.Expand())); n != 8 {
		t.Errorf("seed002 on the Intel machine: %d server restarts, want 8", n)
	}
	_, err = read("seed002-core-scaling.yaml", fixtureEnv(vmSys, ""))
	if err == nil || !strings.Contains(err.Error(), "matrix.server_cpus[2]: 3 CPUs asked for, but this machine has 2 (2 CPUs, 2 cores, 1 socket, 1 NUMA node)") {
		t.Errorf("seed002 on the 2-CPU VM: %v", err)
	}
}

// TestResumeRefusesOtherSets: a sweep that ran on other CPU sets (another
// machine) is not resumed under the same cell ids.
func TestResumeRefusesOtherSets(t *testing.T) {
	text := "server: {flavor: mariadb}\n" + fixtureOK + "  server_cpus: [1, 2]\nrun: {time: 1}\n"
	dir := t.TempDir()
	p, err := validOn(text, fixtureEnv(intelSys, ""))
	if err != nil {
		t.Fatal(err)
	}
	m := &suitedir.Manifest{Schema: suitedir.ManifestSchema, Plan: suitedir.PlanRecord{Name: p.Name, Hash: p.Hash(), Scale: 1}}
	for _, c := range p.Expand() {
		m.Cells = append(m.Cells, suitedir.CellRecord{Cell: c, Status: suitedir.StatusPending})
	}
	m.Servers = []suitedir.ServerRecord{{Profile: "cpu-bound", Managed: &result.ManagedServer{CPUList: "0,32"}}}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(p, Options{Dir: dir, Resume: true}); err != nil {
		t.Errorf("same machine: %v", err)
	}
	// The same sweep on the 2-CPU VM chooses 0 and 0-1, not 0,32.
	p, err = validOn(text, fixtureEnv(vmSys, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(p, Options{Dir: dir, Resume: true}); err == nil || !strings.Contains(err.Error(), "its server ran on CPUs 0,32, which matrix.server_cpus does not choose here (it chooses 0 / 0-1") {
		t.Errorf("other machine: %v", err)
	}
}

// TestDryRunNotesShortSweeps: the dry run notes each workload whose thread
// counts or server CPU counts are too few for a scalability model
// (usl.MinPoints) but a sweep all the same (two or more); SMT modes of one
// count are one value.
func TestDryRunNotesShortSweeps(t *testing.T) {
	note := func(wl string, n int, what string) string {
		return fmt.Sprintf("note: %s sweeps %d %s; a scalability model needs at least %d — compare and report will tabulate it without a fitted model", wl, n, what, usl.MinPoints)
	}
	data := "data: {tables: 1, table_size: 1000}\n"
	for _, tt := range []struct {
		name, plan string
		want       []string
	}{
		{"short thread sweeps", data + "matrix:\n  workloads: [oltp_point_select, oltp_read_only]\n  threads: [1, 4, 16]\nrun: {time: 1}\n",
			[]string{note("oltp_point_select", 3, "thread counts"), note("oltp_read_only", 3, "thread counts")}},
		{"a thread sweep long enough", data + "matrix:\n  workloads: [oltp_read_only]\n  threads: [1, 2, 4, 8, 16, 32]\nrun: {time: 1}\n", nil},
		{"one thread count is no sweep", data + "matrix:\n  workloads: [oltp_read_only]\n  threads: [8]\nrun: {time: 1}\n", nil},
		{"a short core sweep, SMT both", "server: {flavor: mariadb}\n" + data + "matrix:\n  workloads: [oltp_read_only]\n  threads: [1, 2, 4, 8, 16, 32, 64]\n  server_cpus: [2, 4]\n  smt: both\nrun: {time: 1}\n",
			[]string{note("oltp_read_only", 2, "server CPU counts")}},
		{"a core sweep long enough, threads short", "server: {flavor: mariadb}\n" + data + "matrix:\n  workloads: [oltp_read_only]\n  threads: [8, 64]\n  server_cpus: [1, 2, 3, 4, 6, 8]\nrun: {time: 1}\n",
			[]string{note("oltp_read_only", 2, "thread counts")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := validOn(tt.plan, fixtureEnv(intelSys, ""))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := DryRun(&out, p); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "note: ") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("notes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
