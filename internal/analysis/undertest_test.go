package analysis

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// remote is a target on another host: the client machine is not the server's.
var remote = &result.Target{Driver: "mysql", Hosts: []string{"10.0.0.7"}, Ports: []int{3306}, PSMode: "prepared"}

// TestCompareScalesByServerMachine: a result's server_machines, whatever
// their source (agent, file, flags), are the machine under test: frequency
// scaling and per-vCPU figures use the server's GHz and vCPUs, not the
// client's, and the output says where each came from.
func TestCompareScalesByServerMachine(t *testing.T) {
	server := result.Machine{Arch: "arm64", CPUModel: "Neoverse-N1", Core: "Neoverse-N1", LogicalCPUs: 8, MaxMHz: 2500, Hostname: "db1"}
	for _, tt := range []struct {
		source  string
		machine result.Machine
		ghzFrom string
	}{
		{result.ServerSourceAgent, server, "server_machines (agent): cpufreq max"},
		{result.ServerSourceFile, server, "server_machines (file): cpufreq max"},
		{result.ServerSourceFlags, result.Machine{Arch: "arm64", LogicalCPUs: 8, GivenGHz: 2.5}, "server_machines (flags): --server-ghz"},
	} {
		t.Run(tt.source, func(t *testing.T) {
			sm := []result.ServerMachine{{Machine: tt.machine, Role: result.RoleServer, Source: tt.source}}
			// The client is an x86 box of 24 vCPUs at 3 GHz: were it judged,
			// the figures below would differ.
			arm := mustSystem(t, "arm", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000, target: remote, serverMachines: sm})
			x86 := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1200})
			if arm.GHz != 2.5 || arm.GHzSource != tt.ghzFrom || arm.VCPUs != 8 || arm.VCPUsSource != "server_machines ("+tt.source+")" {
				t.Fatalf("arm: %v GHz (%s), %d vCPUs (%s); want 2.5 (%s), 8", arm.GHz, arm.GHzSource, arm.VCPUs, arm.VCPUsSource, tt.ghzFrom)
			}
			c, err := Compare([]*System{x86, arm}, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cell := c.Rows[0].Cells[1]
			if !c.Scaled || !c.PerCompute || !near(cell.FScaled, 1000*3/2.5) || !near(cell.PerVCPU, 125) || !near(cell.PerGHzVCPU, 50) {
				t.Fatalf("scaled %v per compute %v: fscaled %v per vCPU %v per GHz·vCPU %v; want 1200, 125, 50", c.Scaled, c.PerCompute, cell.FScaled, cell.PerVCPU, cell.PerGHzVCPU)
			}
			var b bytes.Buffer
			if err := WriteText(&b, c); err != nil {
				t.Fatal(err)
			}
			want := "arm: server machine " + DescribeMachine(tt.machine) + " from server_machines (" + tt.source + ")"
			if !strings.Contains(b.String(), want) {
				t.Errorf("text lacks %q:\n%s", want, b.String())
			}
		})
	}
}

// TestUnknownServerMachine: a result of schema ≤ 1.3 (no server_machines)
// against a remote host judges no machine: no scaling, no per-vCPU figures,
// and a note that says why and how to fix it; --ghz and --vcpus then give
// the figures.
func TestUnknownServerMachine(t *testing.T) {
	x86 := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1200})
	far := mustSystem(t, "far", fakeRun{machine: n1Machine, server: mysql8, threads: 8, tps: 1000, target: remote})
	if far.UnderTest.Known || far.GHz != 0 || far.VCPUs != 0 {
		t.Fatalf("remote result: under test %+v, GHz %v, vCPUs %d; want unknown, 0, 0", far.UnderTest, far.GHz, far.VCPUs)
	}
	c, err := Compare([]*System{x86, far}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Scaled || c.PerCompute || !math.IsNaN(c.Rows[0].Cells[1].FScaled) {
		t.Fatalf("scaled %v per compute %v: want neither", c.Scaled, c.PerCompute)
	}
	note := "far: the database server's machine is unknown (the result ran against 10.0.0.7, and records no server_machines)"
	fix := "--ghz LABEL=GHz --vcpus LABEL=N, or record the server's machine with run --server-agent or --server-machine"
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, note) && strings.Contains(n, fix) }) {
		t.Errorf("notes %q lack %q … %q", c.Notes, note, fix)
	}
	if err := ApplyGHz([]*System{x86, far}, map[string]float64{"far": 2.5}); err != nil {
		t.Fatal(err)
	}
	if err := ApplyVCPUs([]*System{x86, far}, map[string]int{"far": 4}); err != nil {
		t.Fatal(err)
	}
	c, err = Compare([]*System{x86, far}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Scaled || !c.PerCompute || slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "unknown") }) {
		t.Errorf("with --ghz and --vcpus: scaled %v per compute %v, notes %q", c.Scaled, c.PerCompute, c.Notes)
	}
}

// TestMachineUnderTestRule: which machine a result judges, and where from.
func TestMachineUnderTestRule(t *testing.T) {
	imported := n1Machine
	imported.Source = result.SourceImport
	for _, tt := range []struct {
		name    string
		target  result.Target
		client  result.Machine
		options map[string]string
		from    string // "" = unknown
		why     string // the reason contains it
	}{
		{"loopback", result.Target{Driver: "mysql", Hosts: []string{"127.0.0.1"}}, n1Machine, nil, fromLoopback, ""},
		{"localhost", result.Target{Driver: "pgsql", Hosts: []string{"localhost"}}, n1Machine, nil, fromLoopback, ""},
		{"ipv6 loopback", result.Target{Driver: "pgsql", Hosts: []string{"::1"}}, n1Machine, nil, fromLoopback, ""},
		{"socket", result.Target{Driver: "mysql", Hosts: []string{"10.0.0.7"}, Socket: "/run/mysqld/mysqld.sock"}, n1Machine, nil, fromSocket, ""},
		{"sqlite", result.Target{Driver: "sqlite", Path: "x.db"}, n1Machine, nil, fromSQLite, ""},
		{"imported", result.Target{}, imported, nil, fromImport, ""},
		{"imported before 1.3", result.Target{}, n1Machine, map[string]string{"imported-format": "sysbench"}, fromImport, ""},
		{"imported without a machine", result.Target{}, result.Machine{}, map[string]string{"imported-format": "sysbench"}, "", "import it again with --arch"},
		{"remote", result.Target{Driver: "mysql", Hosts: []string{"db.example"}}, n1Machine, nil, "", "ran against db.example"},
		{"one remote of two", result.Target{Driver: "mysql", Hosts: []string{"127.0.0.1", "10.0.0.8"}}, n1Machine, nil, "", "ran against 127.0.0.1, 10.0.0.8"},
		{"no host", result.Target{Driver: "mysql"}, n1Machine, nil, "", "records no target host"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := MachineUnderTest(&result.Result{Target: tt.target, Machine: tt.client, Options: tt.options})
			if u.From != tt.from || u.Known != (tt.from != "") {
				t.Fatalf("from %q known %v, want %q", u.From, u.Known, tt.from)
			}
			if u.Known && (u.GHz != 2.5 || u.VCPUs != 4 || u.Label != "arm64 Neoverse-N1 ×4") {
				t.Errorf("%+v: want the client machine's 2.5 GHz, 4 vCPUs", u)
			}
			if !u.Known && (!strings.Contains(u.Why, tt.why) || u.GHz != 0 || u.VCPUs != 0) {
				t.Errorf("%+v: want no figures and a reason with %q", u, tt.why)
			}
		})
	}
}

// TestServerMachinesCluster: vCPUs are summed over the machines (each one's
// CPU list when known); a frequency only when every machine has the same,
// else a note and no scaling.
func TestServerMachinesCluster(t *testing.T) {
	m := func(role string, cpus int, mhz float64, list string) result.ServerMachine {
		return result.ServerMachine{Machine: result.Machine{Arch: "amd64", LogicalCPUs: cpus, MaxMHz: mhz, CPUList: list}, Role: role, Source: result.ServerSourceAgent}
	}
	u := MachineUnderTest(&result.Result{ServerMachines: []result.ServerMachine{m("tidb", 16, 3000, ""), m("tikv", 16, 3000, "0-7"), m("tikv", 16, 3000, "")}})
	if u.VCPUs != 40 || u.GHz != 3 || u.VCPUsSource != "server_machines (agent): cpu_list, summed over 3 machines" {
		t.Errorf("same frequency: %d vCPUs (%s), %v GHz; want 40, 3", u.VCPUs, u.VCPUsSource, u.GHz)
	}
	if !strings.Contains(u.Label, "tikv#2: amd64") {
		t.Errorf("label %q names no tikv#2", u.Label)
	}
	u = MachineUnderTest(&result.Result{ServerMachines: []result.ServerMachine{m("tidb", 16, 3000, ""), m("tikv", 8, 2500, "")}})
	if u.GHz != 0 || u.VCPUs != 24 || len(u.Notes) != 1 || !strings.Contains(u.Notes[0], "tidb 3 GHz, tikv 2.5 GHz") {
		t.Errorf("different frequencies: %v GHz, %d vCPUs, notes %q; want 0, 24 and a note", u.GHz, u.VCPUs, u.Notes)
	}
}

// TestMixedFrequencySources: frequencies read in different ways are noted.
func TestMixedFrequencySources(t *testing.T) {
	x86 := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1200}) // cpu model
	n1 := mustSystem(t, "n1", fakeRun{machine: n1Machine, server: mysql8, threads: 8, tps: 1000})    // cpufreq max
	c, err := Compare([]*System{x86, n1}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "the frequencies were found in different ways (cpu model for x86; cpufreq max for n1)"
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q lack %q", c.Notes, want)
	}
}

// TestDifferences: two MariaDB configurations that differ in one variable
// are told apart — what differs names it, and their derived labels carry it;
// a variable one system lacks shows "—", one that differs between a
// system's own results "varies".
func TestDifferences(t *testing.T) {
	run := func(flush, extra string, tps float64, threads int) fakeRun {
		v := map[string]string{"innodb_flush_log_at_trx_commit": flush, "innodb_buffer_pool_size": "128M"}
		if extra != "" {
			v["innodb_doublewrite"] = extra
		}
		return fakeRun{machine: n1Machine, server: mariadb, threads: threads, tps: tps, variables: v}
	}
	a := mustSystem(t, "", run("1", "", 1000, 1), run("1", "", 1900, 2))
	b := mustSystem(t, "", run("2", "ON", 1100, 1), run("2", "OFF", 2000, 2))
	systems := []*System{a, b}
	DisambiguateLabels(systems)
	if a.Label != "arm64 Neoverse-N1 ×4 (innodb_flush_log_at_trx_commit=1)" || b.Label != "arm64 Neoverse-N1 ×4 (innodb_flush_log_at_trx_commit=2)" {
		t.Errorf("labels %q, %q", a.Label, b.Label)
	}
	c, err := Compare(systems, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []DiffRow{
		{What: "variable innodb_doublewrite", Values: []string{Absent, Varies}},
		{What: "variable innodb_flush_log_at_trx_commit", Values: []string{"1", "2"}},
	}
	if !slices.EqualFunc(c.Differences.Rows, want, func(x, y DiffRow) bool { return x.What == y.What && slices.Equal(x.Values, y.Values) }) {
		t.Errorf("differences %+v, want %+v", c.Differences.Rows, want)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer, *Comparison) error
	}{
		{"differences.txt", func(b *bytes.Buffer, c *Comparison) error { return WriteText(b, c) }},
		{"differences.md", func(b *bytes.Buffer, c *Comparison) error { return WriteMarkdown(b, c) }},
		{"differences.json", func(b *bytes.Buffer, c *Comparison) error { return WriteJSON(b, c) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b, c); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, f.name, b.Bytes())
	}
}

// TestDisambiguateByServer: two remote results of unknown machines are
// labelled by their server; the one variable that differs tells them apart.
func TestDisambiguateByServer(t *testing.T) {
	run := func(flush string) fakeRun {
		return fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: 1000, target: remote,
			variables: map[string]string{"innodb_flush_log_at_trx_commit": flush}}
	}
	a, b := mustSystem(t, "", run("1")), mustSystem(t, "", run("2"))
	if a.Label != "MariaDB 10.11" {
		t.Fatalf("label %q, want MariaDB 10.11", a.Label)
	}
	DisambiguateLabels([]*System{a, b})
	if a.Label != "MariaDB 10.11 (innodb_flush_log_at_trx_commit=1)" || b.Label != "MariaDB 10.11 (innodb_flush_log_at_trx_commit=2)" {
		t.Errorf("labels %q, %q", a.Label, b.Label)
	}
}

// TestCombineSettingsVary: operands pooled under one label whose settings
// differ show "varies" in what differs.
func TestCombineSettingsVary(t *testing.T) {
	run := func(flush string, tps float64) fakeRun {
		return fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: tps, variables: map[string]string{"innodb_flush_log_at_trx_commit": flush, "sync_binlog": "1"}}
	}
	day1, day2 := mustSystem(t, "a", run("1", 1000)), mustSystem(t, "a", run("2", 1010))
	a, err := Combine("a", []*System{day1, day2})
	if err != nil {
		t.Fatal(err)
	}
	b := mustSystem(t, "b", run("1", 900))
	d := FindDifferences([]*System{a, b})
	want := []DiffRow{{What: "variable innodb_flush_log_at_trx_commit", Values: []string{Varies, "1"}}}
	if !slices.EqualFunc(d.Rows, want, func(x, y DiffRow) bool { return x.What == y.What && slices.Equal(x.Values, y.Values) }) {
		t.Errorf("differences %+v, want %+v", d.Rows, want)
	}
}
