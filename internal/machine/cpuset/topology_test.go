package cpuset

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fairbench/fairbench/internal/machine/cpuset/cpusettest"
)

// The machines of the tests (cpusettest generates their sysfs trees).
var (
	intel2S = cpusettest.Intel2S
	arm80   = cpusettest.ARM80
	epyc    = cpusettest.EPYC
)

func readMachine(t *testing.T, fsys fs.FS) Topology {
	t.Helper()
	topo, err := ReadTopology(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func TestReadTopology(t *testing.T) {
	tests := []struct {
		name string
		topo Topology
		want string
		smt  bool
	}{
		{"intel2S", readMachine(t, intel2S.Tree()), "64 CPUs, 32 cores, 2 sockets, 2 NUMA nodes", true},
		{"arm80", readMachine(t, arm80.Tree()), "80 CPUs, 80 cores, 1 socket, 1 NUMA node", false},
		{"epyc", readMachine(t, epyc.Tree()), "128 CPUs, 64 cores, 1 socket, 4 NUMA nodes", true},
		{"two-cpu-vm", readMachine(t, os.DirFS("testdata/two-cpu-vm")), "2 CPUs, 2 cores, 1 socket, 1 NUMA node", false},
	}
	for _, tt := range tests {
		if got := tt.topo.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if tt.topo.HasSMT() != tt.smt {
			t.Errorf("%s: HasSMT = %v", tt.name, !tt.smt)
		}
	}
	intel := tests[0].topo
	if c := intel.CPUs[33]; c.Package != 0 || c.Core != 1 || c.Node != 0 || c.Siblings.String() != "1,33" {
		t.Errorf("intel cpu33 = %+v", c)
	}
	if c := intel.CPUs[48]; c.Package != 1 || c.Node != 1 || c.Siblings.String() != "16,48" {
		t.Errorf("intel cpu48 = %+v", c)
	}
	if c := tests[2].topo.CPUs[100]; c.Node != 2 || c.Siblings.String() != "36,100" {
		t.Errorf("epyc cpu100 = %+v", c)
	}

	// An offline CPU is left out and drops out of its sibling's list.
	off := intel2S
	off.Offline = []int{33}
	topo := readMachine(t, off.Tree())
	if len(topo.CPUs) != 63 || topo.CPUs[1].Siblings.String() != "1" {
		t.Errorf("with cpu33 offline: %d CPUs, cpu1 siblings %q", len(topo.CPUs), topo.CPUs[1].Siblings)
	}
	// Within narrows to the CPUs a process may use.
	w := intel.Within(MustParse("0-3,32-33"))
	if w.String() != "6 CPUs, 4 cores, 1 socket, 1 NUMA node" || w.CPUs[2].Siblings.String() != "2" {
		t.Errorf("Within = %s, cpu2 siblings %q", w, w.CPUs[2].Siblings)
	}
	// CoresIn counts the cores a set touches: siblings share one.
	if n := intel.CoresIn(MustParse("0-1,32")); n != 2 {
		t.Errorf("CoresIn(0-1,32) = %d, want 2", n)
	}
	// Without node and topology files every CPU is its own core.
	bare := readMachine(t, fstest.MapFS{"sys/devices/system/cpu/online": {Data: []byte("0-3\n")}})
	if bare.String() != "4 CPUs, 4 cores, 1 socket" || bare.CPUs[0].Node != -1 {
		t.Errorf("bare = %s", bare)
	}
	if _, err := ReadTopology(fstest.MapFS{"sys/devices/system/cpu/online": {Data: []byte("\n")}}); err == nil {
		t.Error("no online CPUs: no error")
	}
}

func TestSelect(t *testing.T) {
	intel, arm, amd := readMachine(t, intel2S.Tree()), readMachine(t, arm80.Tree()), readMachine(t, epyc.Tree())
	vm := readMachine(t, os.DirFS("testdata/two-cpu-vm"))
	tests := []struct {
		name      string
		topo      Topology
		n         int
		smt       SMT
		placement Placement
		want      string // the set, or the error's text
	}{
		{"intel", intel, 1, SMTAll, Packed, "0"},
		{"intel", intel, 4, SMTAll, Packed, "0-1,32-33"},
		{"intel", intel, 3, SMTAll, Packed, "0-1,32"},
		{"intel", intel, 4, SMTOnePerCore, Packed, "0-3"},
		{"intel", intel, 4, SMTAll, Spread, "0,16,32,48"},
		{"intel", intel, 4, SMTOnePerCore, Spread, "0-1,16-17"},
		{"intel", intel, 20, SMTAll, Packed, "0-9,32-41"},
		{"intel", intel, 36, SMTAll, Packed, "0-17,32-49"},
		{"intel", intel, 32, SMTOnePerCore, Packed, "0-31"},
		{"intel", intel, 32, SMTOnePerCore, Spread, "0-31"},
		{"intel", intel, 64, SMTAll, Spread, "0-63"},
		{"intel", intel, 33, SMTOnePerCore, Packed, "33 cores (smt: one-per-core) asked for, but this machine has 32 (64 CPUs, 32 cores, 2 sockets, 2 NUMA nodes)"},
		{"intel", intel, 65, SMTAll, Packed, "65 CPUs asked for, but this machine has 64"},
		{"intel", intel, 0, SMTAll, Packed, "give at least 1"},
		{"intel", intel, 2, SMTBoth, Packed, "two selections"},
		{"intel", intel, 2, SMTAll, "close", `placement "close"`},
		{"arm", arm, 8, SMTAll, Packed, "0-7"},
		{"arm", arm, 8, SMTAll, Spread, "0-7"},
		{"arm", arm, 8, SMTOnePerCore, Packed, "0-7"},
		{"arm", arm, 80, SMTOnePerCore, Spread, "0-79"},
		{"arm", arm, 81, SMTAll, Packed, "81 CPUs asked for, but this machine has 80"},
		{"epyc", amd, 4, SMTAll, Packed, "0-1,64-65"},
		{"epyc", amd, 4, SMTOnePerCore, Spread, "0,16,32,48"},
		{"epyc", amd, 8, SMTAll, Spread, "0,16,32,48,64,80,96,112"},
		{"epyc", amd, 6, SMTOnePerCore, Spread, "0-1,16-17,32,48"},
		{"epyc", amd, 20, SMTOnePerCore, Packed, "0-19"},
		{"epyc", amd, 34, SMTAll, Packed, "0-16,64-80"},
		{"epyc", amd, 128, SMTAll, Packed, "0-127"},
		{"epyc", amd, 65, SMTOnePerCore, Packed, "65 cores (smt: one-per-core) asked for, but this machine has 64"},
		{"vm", vm, 1, SMTAll, Packed, "0"},
		{"vm", vm, 2, SMTAll, Spread, "0-1"},
		{"vm", vm, 2, SMTOnePerCore, Packed, "0-1"},
		{"vm", vm, 3, SMTAll, Packed, "3 CPUs asked for, but this machine has 2 (2 CPUs, 2 cores, 1 socket, 1 NUMA node)"},
	}
	for _, tt := range tests {
		got, err := Select(tt.topo, tt.n, tt.smt, tt.placement)
		desc := tt.name + " " + strconv.Itoa(tt.n) + " " + string(tt.smt) + " " + string(tt.placement)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: %v, want %q", desc, err, tt.want)
			}
		case got.String() != tt.want:
			t.Errorf("%s = %q, want %q", desc, got, tt.want)
		case got.Len() != tt.n:
			t.Errorf("%s: %d CPUs, want %d", desc, got.Len(), tt.n)
		}
	}
}

func TestSMTModes(t *testing.T) {
	intel, arm := readMachine(t, intel2S.Tree()), readMachine(t, arm80.Tree())
	if m, err := intel.SMTModes(SMTBoth); err != nil || len(m) != 2 || m[0] != SMTAll || m[1] != SMTOnePerCore {
		t.Errorf("intel both = %v, %v", m, err)
	}
	if _, err := arm.SMTModes(SMTBoth); err == nil || !strings.Contains(err.Error(), "one thread per core") {
		t.Errorf("arm both: %v", err)
	}
	if m, err := arm.SMTModes(SMTOnePerCore); err != nil || len(m) != 1 {
		t.Errorf("arm one-per-core = %v, %v", m, err)
	}
	for _, s := range []string{"all", " One-Per-Core", "both"} {
		if _, err := ParseSMT(s); err != nil {
			t.Errorf("ParseSMT(%q): %v", s, err)
		}
	}
	if _, err := ParseSMT("off"); err == nil {
		t.Error("ParseSMT(off): no error")
	}
	if _, err := ParsePlacement("Spread"); err != nil {
		t.Error(err)
	}
}

func TestFraction(t *testing.T) {
	intel, arm := readMachine(t, intel2S.Tree()), readMachine(t, arm80.Tree())
	vm := readMachine(t, os.DirFS("testdata/two-cpu-vm"))
	tests := []struct {
		topo Topology
		f    float64
		smt  SMT
		want int
		err  string
	}{
		{intel, 0.8, SMTAll, 51, ""},        // 51.2 of 64 CPUs
		{intel, 0.8, SMTOnePerCore, 26, ""}, // 25.6 of 32 cores
		{intel, 1, SMTAll, 64, ""},
		{arm, 0.875, SMTAll, 70, ""},
		{vm, 0.5, SMTAll, 1, ""},
		{vm, 0.75, SMTAll, 2, ""}, // 1.5 rounds up
		{vm, 0.2, SMTAll, 0, "less than one"},
		{vm, 0, SMTAll, 0, "above 0 and at most 1"},
		{vm, 1.5, SMTAll, 0, "above 0 and at most 1"},
	}
	for _, tt := range tests {
		n, err := tt.topo.Fraction(tt.f, tt.smt)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Fraction(%v, %s) = %d, %v; want %q", tt.f, tt.smt, n, err, tt.err)
			}
			continue
		}
		if err != nil || n != tt.want {
			t.Errorf("Fraction(%v, %s) = %d, %v; want %d", tt.f, tt.smt, n, err, tt.want)
		}
	}
	// Seed 001's split on a 28-thread machine: 22 server + 6 client.
	ht28 := readMachine(t, cpusettest.HT28.Tree())
	n, err := ht28.Fraction(0.8, SMTAll)
	if err != nil || n != 22 {
		t.Fatalf("0.8 of 28 = %d, %v", n, err)
	}
	server, err := Select(ht28, n, SMTAll, Packed)
	if err != nil {
		t.Fatal(err)
	}
	client := ht28.All().Minus(server)
	if server.String() != "0-10,14-24" || client.String() != "11-13,25-27" || server.Overlaps(client) {
		t.Errorf("split: server %s, client %s", server, client)
	}
}
