package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// The sweep fixtures (testdata/cpusweep, written by gen.py from a real run's
// result): x86 ran server_cpus 1, 2, 4 with smt both (siblings taken
// together and one per core) × threads 1, 2, 4 × 2 rounds; arm, without SMT,
// ran 1, 2, 4 × threads 1, 2, 4 × 3 rounds.
const (
	x86Sweep = "testdata/cpusweep/x86"
	armSweep = "testdata/cpusweep/arm"
)

func loadSweep(t *testing.T, dir, label string) *System {
	t.Helper()
	s, err := Load(dir, label)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSweepOfOneSystem: a sweep of one machine compares without
// --allow-mixed, each CPU set its own rows (never rounds of one figure: on a
// rule without CPU sets the 6 sets' 2 rounds would pool into 12), per-vCPU
// figures by the set's CPUs, and one by-CPUs section with both SMT modes.
func TestSweepOfOneSystem(t *testing.T) {
	c, err := Compare([]*System{loadSweep(t, x86Sweep, "x86")}, CompareOptions{})
	if err != nil {
		t.Fatalf("a sweep of one system is refused: %v", err)
	}
	if len(c.Rows) != 18 {
		t.Fatalf("%d rows, want 2 modes × 3 sets × 3 thread counts = 18", len(c.Rows))
	}
	for _, r := range c.Rows {
		if n := r.Cells[0].Stats.N; n != 2 {
			t.Errorf("%s: %d rounds, want 2 (rounds of other CPU sets pooled)", r.Key, n)
		}
		cpus, _ := parseCPUSet(r.Key.CPUs)
		if want := r.Cells[0].Value / float64(cpus); cpus == 0 || !near(r.Cells[0].PerVCPU, want) {
			t.Errorf("%s: per vCPU %v, want value / %d CPUs of the set = %v", r.Key, r.Cells[0].PerVCPU, cpus, want)
		}
	}
	if len(c.ByCPUs) != 1 || len(c.ByCPUs[0].Curves) != 2 {
		t.Fatalf("by CPUs: %+v; want one section with two curves", c.ByCPUs)
	}
	for _, tt := range []struct {
		mode       string
		speedUp    []float64
		efficiency []float64
	}{
		{"with SMT siblings", []float64{1, 1.3, 2.6}, []float64{1, 0.65, 0.65}},
		{"one per core", []float64{1, 2, 3.8}, []float64{1, 1, 0.95}},
	} {
		i := slices.IndexFunc(c.ByCPUs[0].Curves, func(cv CPUCurve) bool { return cv.Mode == tt.mode })
		if i < 0 {
			t.Fatalf("no curve %q", tt.mode)
		}
		cv := c.ByCPUs[0].Curves[i]
		for j, p := range cv.Points {
			if p.CPUs != []int{1, 2, 4}[j] || p.Threads != p.CPUs || !near(p.SpeedUp, tt.speedUp[j]) || !near(p.Efficiency, tt.efficiency[j]) || p.Caveat != "" {
				t.Errorf("%s point %d: %d CPUs at %d threads, speed-up %v, efficiency %v, caveat %q; want %d CPUs at as many threads, %v, %v",
					tt.mode, j, p.CPUs, p.Threads, p.SpeedUp, p.Efficiency, p.Caveat, []int{1, 2, 4}[j], tt.speedUp[j], tt.efficiency[j])
			}
		}
	}
	if c.Systems[0].VCPUs != 32 {
		t.Errorf("system vCPUs %d, want the machine's 32 (not the first set's)", c.Systems[0].VCPUs)
	}
}

// TestSweepsOfTwoSystems: two systems with sweeps compare CPU count by CPU
// count; arm's 107 % per CPU at 2 CPUs gets the noise caveat.
func TestSweepsOfTwoSystems(t *testing.T) {
	c := sweepComparison(t)
	row := c.Rows[slices.IndexFunc(c.Rows, func(r Row) bool { return r.Key.CPUs == "cpus=2" && r.Key.Threads == 2 })]
	if row.Cells[0].Stats.N != 2 || row.Cells[1].Stats.N != 3 || !near(row.Cells[1].Pct, (8560-6500)/6500.0*100) {
		t.Errorf("cpus=2 t2: rounds %d and %d, %% %v; want 2, 3 and arm vs x86 at the same set", row.Cells[0].Stats.N, row.Cells[1].Stats.N, row.Cells[1].Pct)
	}
	sec := c.ByCPUs[0]
	arm := sec.Curves[slices.IndexFunc(sec.Curves, func(cv CPUCurve) bool { return cv.System == "arm" })]
	if arm.Mode != "no SMT siblings" || arm.Points[1].Caveat != CaveatNoise || !near(arm.Points[1].Efficiency, 8560/4000.0/2) {
		t.Errorf("arm curve %+v; want mode 'no SMT siblings' and the noise caveat at 2 CPUs", arm)
	}
}

func sweepComparison(t *testing.T) *Comparison {
	t.Helper()
	c, err := Compare([]*System{loadSweep(t, x86Sweep, "x86"), loadSweep(t, armSweep, "arm")}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSweepGolden pins the four renderings of two systems' sweeps.
func TestSweepGolden(t *testing.T) {
	renderGoldens(t, "cpusweep", sweepComparison(t))
}

// TestCPUSetsAreNeverPooled: results that differ only in their server's CPUs
// are separate rows however the set is recorded (a sweep's cell, a managed
// server's cpu_list, a server_machines cpu_list alone), and a pinned server's
// per-vCPU figures count its set. Without Key.CPUs the three rounds of each
// case below pool into one row.
func TestCPUSetsAreNeverPooled(t *testing.T) {
	sm := func(list string) []result.ServerMachine {
		m := x86Machine
		m.CPUList = list
		return []result.ServerMachine{{Machine: m, Role: result.RoleServer, Source: result.ServerSourceLocal}}
	}
	sweep := func(count int, smt string) *result.SuiteCell {
		return &result.SuiteCell{Plan: "p", Round: 1, ServerCPUs: &result.ServerCPUs{Count: count, SMT: smt, Placement: "packed", CPUs: count, Cores: count}}
	}
	for _, tt := range []struct {
		name string
		runs []fakeRun
		want []string // Key.CPUs of the rows
	}{
		{"suite.server_cpus", []fakeRun{
			{suite: sweep(2, "all")}, {suite: sweep(4, "all")}, {suite: sweep(4, "one-per-core")},
		}, []string{"cpus=2", "cpus=4", "cpus=4:one-per-core"}},
		{"server_machines cpu_list", []fakeRun{
			{serverMachines: sm("0-1")}, {serverMachines: sm("0-3")}, {},
		}, []string{"", "cpus=2", "cpus=4"}},
		{"managed_server.cpu_list", []fakeRun{
			{managedCPUs: "0"}, {managedCPUs: "0-7"}, {managedCPUs: "8-15"},
		}, []string{"cpus=1", "cpus=8"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.runs {
				tt.runs[i].machine, tt.runs[i].server, tt.runs[i].threads, tt.runs[i].tps = x86Machine, mysql8, 4, float64(1000*(i+1))
			}
			c, err := Compare([]*System{mustSystem(t, "x86", tt.runs...)}, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range c.Rows {
				got = append(got, r.Key.CPUs)
				cpus, _ := parseCPUSet(r.Key.CPUs)
				if cpus == 0 {
					cpus = x86Machine.LogicalCPUs
				}
				if !near(r.Cells[0].PerVCPU, r.Cells[0].Value/float64(cpus)) {
					t.Errorf("%s: per vCPU %v, want value / %d", r.Key, r.Cells[0].PerVCPU, cpus)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows of CPU sets %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDifferentCPUSetsAreRefused: two systems that share no CPU set are
// refused with what differs, and a selector of one set each mixes them
// under --allow-mixed.
func TestDifferentCPUSetsAreRefused(t *testing.T) {
	pinned := func(label, list string) *System {
		return mustSystem(t, label, fakeRun{machine: x86Machine, server: mysql8, threads: 4, tps: 1000, managedCPUs: list})
	}
	systems := []*System{pinned("a", "0-3"), pinned("b", "0-7")}
	_, err := Compare(systems, CompareOptions{})
	var mix *MixError
	if !errors.As(err, &mix) || !strings.Contains(err.Error(), "server CPUs: a cpus=4, b cpus=8") {
		t.Fatalf("err %v; want a refusal naming the server CPUs", err)
	}
	c, err := Compare(systems, CompareOptions{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || MixedString(c.Rows[0].Mixed) != "server CPUs: a cpus=4, b cpus=8" || !near(c.Rows[0].Cells[1].PerVCPU, 125) {
		t.Errorf("mixed rows %+v; want one row marked with both sets, b per vCPU by its 8 CPUs", c.Rows)
	}
}

// TestSelectCPUSet: a row label with the CPU set chooses its rows.
func TestSelectCPUSet(t *testing.T) {
	sel, err := ParseSelector("oltp_point_select/cpus=4:one-per-core")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]*System{loadSweep(t, x86Sweep, "x86")}, CompareOptions{Select: []Selector{sel}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 3 || c.Rows[0].Key.CPUs != "cpus=4:one-per-core" || len(c.ByCPUs) != 0 {
		t.Errorf("rows %d of %q, %d by-CPUs sections; want the set's 3 rows and no by-CPUs table of one set", len(c.Rows), c.Rows[0].Key.CPUs, len(c.ByCPUs))
	}
}

// TestSuperlinearCaveat: an efficiency above 100 % says whether the rounds
// can tell it from noise.
func TestSuperlinearCaveat(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base, next []float64
		want       string
	}{
		{"linear", []float64{100, 101, 99}, []float64{200, 202, 198}, ""},
		{"one round", []float64{100}, []float64{230}, CaveatOneRound},
		{"noise", []float64{100, 120, 80}, []float64{230, 250, 210}, CaveatNoise},
		{"beyond", []float64{100, 101, 99}, []float64{260, 261, 259}, CaveatBeyond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cells := []cpuCell{
				{key: Key{Workload: "w", CPUs: "cpus=1", Threads: 1}, stats: Describe(tt.base)},
				{key: Key{Workload: "w", CPUs: "cpus=2", Threads: 2}, stats: Describe(tt.next)},
			}
			for i := range cells {
				cells[i].value = cells[i].stats.Mean
			}
			cv := cpuCurves("s", cells)
			if len(cv) != 1 || len(cv[0].Points) != 2 {
				t.Fatalf("curves %+v", cv)
			}
			if p := cv[0].Points[1]; p.Caveat != tt.want || (tt.want == "") != (p.Efficiency <= 1) {
				t.Errorf("efficiency %v caveat %q, want %q", p.Efficiency, p.Caveat, tt.want)
			}
		})
	}
}

// TestCPUSetLabels: labels of sets and their order.
func TestCPUSetLabels(t *testing.T) {
	for _, tt := range []struct {
		n              int
		smt, placement string
		want           string
	}{
		{4, "all", "packed", "cpus=4"},
		{4, "one-per-core", "packed", "cpus=4:one-per-core"},
		{8, "one-per-core", "spread", "cpus=8:one-per-core:spread"},
		{2, "", "", "cpus=2"},
		{0, "", "", "cpus=?"},
	} {
		got := cpuSetLabel(tt.n, tt.smt, tt.placement)
		if got != tt.want {
			t.Errorf("cpuSetLabel(%d, %q, %q) = %q, want %q", tt.n, tt.smt, tt.placement, got, tt.want)
		}
		if n, _ := parseCPUSet(got); n != tt.n {
			t.Errorf("parseCPUSet(%q) = %d, want %d", got, n, tt.n)
		}
	}
	sets := []string{"cpus=16", "cpus=2:one-per-core", "", "cpus=2", "cpus=4"}
	slices.SortFunc(sets, func(a, b string) int {
		switch {
		case cpuSetLess(a, b):
			return -1
		case cpuSetLess(b, a):
			return 1
		}
		return 0
	})
	if want := []string{"", "cpus=2", "cpus=2:one-per-core", "cpus=4", "cpus=16"}; !slices.Equal(sets, want) {
		t.Errorf("order %q, want %q", sets, want)
	}
}

// TestCPUSetName: a CPU set is named by its count, with its series when the
// section has several kinds — the SMT part left out where x86 (siblings) and
// arm (none) share the set — and a key of no set has no name.
func TestCPUSetName(t *testing.T) {
	two := sweepComparison(t)
	one, err := Compare([]*System{loadSweep(t, x86Sweep, "x86")}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    *Comparison
		set  string
		want string
	}{
		{"one CPU, x86 alone", one, "cpus=1", "1 CPU, with SMT siblings"},
		{"one per core, x86 alone", one, "cpus=4:one-per-core", "4 CPUs, one per core"},
		{"a set both systems ran", two, "cpus=2", "2 CPUs"},
		{"a set only x86 ran", two, "cpus=2:one-per-core", "2 CPUs, one per core"},
		{"no set", two, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := Key{Workload: "oltp_point_select", CPUs: tt.set, Threads: 2}
			for _, r := range tt.c.Rows {
				if r.Key.CPUs == tt.set {
					k = r.Key
				}
			}
			if got := tt.c.CPUSetName(k); got != tt.want {
				t.Errorf("CPUSetName(%s) = %q, want %q", k, got, tt.want)
			}
		})
	}
}

// TestSweepFixturesAreResults: the fixtures are result files as fairbench
// reads them, each a cell of a server_cpus sweep with its set recorded in
// the three places a result says it.
func TestSweepFixturesAreResults(t *testing.T) {
	for _, dir := range []string{x86Sweep, armSweep} {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v, %d files", dir, err, len(files))
		}
		for _, f := range files {
			res, err := result.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := res.Suite.ServerCPUs
			if sc == nil || res.ManagedServer.CPUList != sc.CPUList || res.ServerMachines[0].CPUList != sc.CPUList || countCPUList(sc.CPUList) != sc.CPUs {
				t.Errorf("%s: suite.server_cpus %+v, managed %q, server_machines %q", f, sc, res.ManagedServer.CPUList, res.ServerMachines[0].CPUList)
			}
		}
	}
	if _, err := os.Stat("testdata/cpusweep/template.json"); err != nil {
		t.Errorf("the fixtures' template (a real run's result) is missing: %v", err)
	}
}
