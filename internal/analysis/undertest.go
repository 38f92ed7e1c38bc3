package analysis

import (
	"fmt"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
)

// UnderTest is the machine under test of a result: the machine (or machines)
// the database server ran on, which compare, cost and report judge. Each
// figure says where it came from.
//
// The rule (MachineUnderTest): a result's server_machines when it has them;
// otherwise (schema ≤ 1.3) its client machine when the client and server
// shared it (a Unix socket or loopback target, embedded SQLite) or when a
// user described the machine to `fairbench import`; otherwise the server's
// machine is unknown, and nothing is scaled by it unless --ghz / --vcpus give
// its figures.
type UnderTest struct {
	// Known is false when the server's machine is unknown (a remote target
	// with no server_machines); Why then says why and how to record it.
	Known bool   `json:"known"`
	Why   string `json:"why,omitempty"`
	// From says where the description came from: "server_machines (agent)",
	// "server_machines (agent, file)", "machine (loopback target)",
	// "machine (socket target)", "machine (embedded SQLite)", "machine
	// (import)"; "" when unknown.
	From string `json:"from,omitempty"`
	// Machines are the descriptions: the result's server_machines, or its
	// client machine as one entry with role "server".
	Machines []result.ServerMachine `json:"machines,omitempty"`

	// Label names the machine for a system label ("arm64 Neoverse-N1 ×4";
	// "tidb: amd64 … + tikv: …" for several); "" when unknown.
	Label string `json:"label,omitempty"`
	// Arch and CPUModel are the machines' (distinct values joined by " + ").
	Arch     string `json:"arch,omitempty"`
	CPUModel string `json:"cpu_model,omitempty"`
	// VCPUs is the logical CPUs the server may use, summed over the machines
	// (each machine's CPU list when known, else the set fairbench pinned a
	// lone machine's server to: suite.server_cpus, managed_server.cpu_list),
	// 0 when unknown; VCPUsSource says where it came from.
	VCPUs       int    `json:"vcpus,omitempty"`
	VCPUsSource string `json:"vcpus_source,omitempty"`
	// setCounted says VCPUs counts the CPUs of a set the server was limited
	// to (a cpu_list, a pinned set), not its machines' whole.
	setCounted bool
	// GHz is the machines' CPU frequency when every one has the same, 0
	// otherwise; GHzSource says where it came from ("server_machines (agent):
	// cpufreq max") and GHzHow how it was read ("cpufreq max", "cpu model",
	// "--server-ghz"…), for telling unlike frequencies apart.
	GHz       float64 `json:"ghz,omitempty"`
	GHzSource string  `json:"ghz_source,omitempty"`
	GHzHow    string  `json:"-"`
	// InstanceTypes are the machines' cloud instance types (one per machine
	// that has one) and Region their region when they share one.
	InstanceTypes []string `json:"instance_types,omitempty"`
	Region        string   `json:"region,omitempty"`
	// Notes say what could not be decided (frequencies that differ between
	// the machines, a vCPU count missing for one).
	Notes []string `json:"notes,omitempty"`
}

// The places a machine under test is taken from (UnderTest.From).
const (
	fromLoopback = "machine (loopback target)"
	fromSocket   = "machine (socket target)"
	fromSQLite   = "machine (embedded SQLite)"
	fromImport   = "machine (import)"
	// fromDryRun: a dry run measured the client alone, on its machine.
	fromDryRun = "machine (dry run: the client alone)"
)

// MachineUnderTest returns the machine under test of res (see UnderTest for
// the rule). It is the one place compare, cost and report learn which machine
// a result judges.
func MachineUnderTest(res *result.Result) UnderTest {
	u := machineUnderTest(res)
	// A server fairbench pinned (a sweep's cell, server start --cpus) ran on
	// its set: when the machine's entry does not say the CPUs it could use,
	// the set is what it had.
	if n, field := pinnedCPUs(res); n > 0 && u.Known && len(u.Machines) == 1 && u.Machines[0].CPUList == "" {
		u.VCPUs, u.VCPUsSource, u.setCounted = n, u.From+": "+field, true
	}
	return u
}

// wholeVCPUs is the logical CPUs of the machines under test, whatever CPUs
// the server could use; 0 when one machine's count is unknown.
func wholeVCPUs(u UnderTest) int {
	n := 0
	for _, m := range u.Machines {
		if m.LogicalCPUs <= 0 {
			return 0
		}
		n += m.LogicalCPUs
	}
	return n
}

// machineUnderTest is MachineUnderTest before a pinned set is counted.
func machineUnderTest(res *result.Result) UnderTest {
	if len(res.ServerMachines) > 0 {
		return fromServerMachines(res.ServerMachines)
	}
	var from string
	switch {
	case res.Machine.Source == result.SourceImport || (importedResult(res) && !reflect.ValueOf(res.Machine).IsZero()):
		from = fromImport
	case res.Target.DryRun:
		from = fromDryRun
	case res.Target.Driver == "sqlite":
		from = fromSQLite
	case res.Target.Socket != "":
		from = fromSocket
	case loopbackTarget(res.Target):
		from = fromLoopback
	}
	if from == "" {
		why := unknownWhy(res.Target)
		if importedResult(res) {
			why = "the database server's machine is unknown (the log was imported without describing it: import it again with --arch, --cpu-model, --machine-vcpus, --machine-ghz)"
		}
		return UnderTest{Why: why}
	}
	legacy := importedResult(res)
	u := UnderTest{Known: true, From: from, Machines: []result.ServerMachine{{Machine: res.Machine, Role: result.RoleServer}}}
	u.Label = machineLabel(res.Machine)
	u.Arch, u.CPUModel = res.Machine.Arch, res.Machine.CPUModel
	var how string
	u.GHz, how = machineGHz(res.Machine, legacy)
	if u.GHz > 0 {
		u.GHzHow, u.GHzSource = how, from+": "+how
	}
	if n, src := machineVCPUs(res.Machine, legacy); n > 0 {
		u.VCPUs, u.VCPUsSource = n, from
		if src == vcpusFromFlag {
			u.VCPUsSource = from + ": " + src
		}
	}
	if res.Machine.InstanceType != "" {
		u.InstanceTypes = []string{res.Machine.InstanceType}
	}
	u.Region = res.Machine.Region
	return u
}

// fromServerMachines describes the machine under test from a result's
// server_machines.
func fromServerMachines(ms []result.ServerMachine) UnderTest {
	var sources, arches, models, labels, regions []string
	for _, m := range ms {
		sources = appendNew(sources, orUnknown(m.Source))
		arches = appendNew(arches, m.Arch)
		models = appendNew(models, m.CPUModel)
		regions = appendNew(regions, m.Region)
	}
	from := "server_machines (" + strings.Join(sources, ", ") + ")"
	u := UnderTest{Known: true, From: from, Machines: ms}
	u.Arch, u.CPUModel = joinNonEmpty(arches), joinNonEmpty(models)
	if len(regions) == 1 {
		u.Region = regions[0]
	}
	vcpus, cpuLists, missing := 0, false, []string{}
	type freq struct {
		ghz float64
		how string
	}
	var freqs []freq
	for i, m := range ms {
		name := machineName(ms, i)
		l := machineLabel(m.Machine)
		if len(ms) > 1 {
			l = name + ": " + orUnknown(l)
		}
		labels = append(labels, l)
		if m.InstanceType != "" {
			u.InstanceTypes = append(u.InstanceTypes, m.InstanceType)
		}
		n := m.LogicalCPUs
		if c := countCPUList(m.CPUList); c > 0 {
			n, cpuLists = c, true
		}
		if n <= 0 {
			missing = append(missing, name)
		}
		vcpus += n
		g, how := machineGHz(m.Machine, false)
		if how == ghzFromFlag {
			how = givenGHzHow(m.Source)
		}
		freqs = append(freqs, freq{g, how})
	}
	u.Label = strings.Join(labels, " + ")
	if strings.Trim(u.Label, " +:") == "" {
		u.Label = ""
	}
	switch {
	case len(missing) > 0:
		u.Notes = append(u.Notes, fmt.Sprintf("%s: the vCPU count of %s is not recorded: no per-vCPU figures; give it with --vcpus", from, strings.Join(missing, ", ")))
	default:
		u.VCPUs, u.VCPUsSource, u.setCounted = vcpus, from, cpuLists
		if cpuLists {
			u.VCPUsSource += ": cpu_list"
		}
		if len(ms) > 1 {
			u.VCPUsSource += fmt.Sprintf(", summed over %d machines", len(ms))
		}
	}
	same := true
	var parts []string
	for i, f := range freqs {
		same = same && f.ghz > 0 && f.ghz == freqs[0].ghz
		g := "unknown"
		if f.ghz > 0 {
			g = fmtGHz(f.ghz) + " GHz"
		}
		parts = append(parts, machineName(ms, i)+" "+g)
	}
	switch {
	case same:
		hows := []string{}
		for _, f := range freqs {
			hows = appendNew(hows, f.how)
		}
		u.GHz, u.GHzHow = freqs[0].ghz, strings.Join(hows, ", ")
		u.GHzSource = from + ": " + u.GHzHow
	case len(ms) > 1:
		u.Notes = append(u.Notes, fmt.Sprintf("%s: the server machines' frequencies are not all the same (%s): no frequency scaling; give one with --ghz", from, strings.Join(parts, ", ")))
	}
	return u
}

// givenGHzHow names a frequency a user gave for a server machine.
func givenGHzHow(source string) string {
	if source == result.ServerSourceFlags {
		return "--server-ghz"
	}
	return "given"
}

// machineName names entry i of ms in messages: its role, numbered when roles
// repeat ("tikv#2").
func machineName(ms []result.ServerMachine, i int) string {
	role := ms[i].Role
	if role == "" {
		role = result.RoleServer
	}
	n, k := 0, 0
	for j, m := range ms {
		if m.Role == ms[i].Role {
			n++
			if j <= i {
				k++
			}
		}
	}
	if n > 1 {
		return role + "#" + strconv.Itoa(k)
	}
	return role
}

// countCPUList counts the CPUs of a kernel CPU list ("0-21", "0,2,4-7"); 0
// when empty or malformed.
func countCPUList(list string) int {
	s, err := cpuset.Parse(list)
	if err != nil {
		return 0
	}
	return s.Len()
}

// loopbackTarget reports whether every host of t is a loopback address or
// "localhost" (and there is at least one).
func loopbackTarget(t result.Target) bool {
	if len(t.Hosts) == 0 {
		return false
	}
	for _, h := range t.Hosts {
		h = strings.Trim(h, "[]")
		if strings.EqualFold(h, "localhost") {
			continue
		}
		ip := net.ParseIP(h)
		if ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// unknownWhy says why a result's server machine is unknown and how to fix it.
func unknownWhy(t result.Target) string {
	where := "records no target host"
	if len(t.Hosts) > 0 {
		where = "ran against " + strings.Join(t.Hosts, ", ") + ","
	}
	return "the database server's machine is unknown (the result " + where + " and records no server_machines)"
}

// unknownFix is what a user does about an unknown server machine.
const unknownFix = "give its figures with --ghz LABEL=GHz --vcpus LABEL=N, or record the server's machine with run --server-agent or --server-machine"

// id identifies the machine under test across runs: the fields of each
// machine that do not change from one run to the next; "" when unknown.
func (u UnderTest) id() string {
	if !u.Known {
		return ""
	}
	var parts []string
	for _, m := range u.Machines {
		parts = append(parts, m.Role+"\x01"+machineID(m.Machine))
	}
	return strings.Join(parts, "\x02")
}

// describe names the machine under test for messages.
func (u UnderTest) describe() string {
	if !u.Known {
		return "an unknown server machine"
	}
	if len(u.Machines) == 1 {
		return DescribeMachine(u.Machines[0].Machine)
	}
	return u.Label
}

func appendNew(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

func joinNonEmpty(list []string) string { return strings.Join(list, " + ") }

// judgedID identifies the machine a system judges: the machine under test's
// identity, or the client machine's when the server's is unknown (the only
// machine such results name).
func judgedID(u UnderTest, client result.Machine) string {
	if u.Known {
		return "server\x03" + u.id()
	}
	return "client\x03" + machineID(client)
}

// describeJudged names the machine judgedID identifies, for messages.
func describeJudged(u UnderTest, client result.Machine) string {
	if u.Known {
		return u.describe()
	}
	return "an unknown server machine (client " + DescribeMachine(client) + ")"
}

// serverLabel names a server briefly for a system label: flavour and the
// major.minor of its version ("MariaDB 10.11", "PostgreSQL 15.5"); "" when
// neither is known.
func serverLabel(s result.Server) string {
	v := s.Version
	if m := shortVersion().FindString(v); m != "" {
		v = m
	}
	return strings.TrimSpace(s.Flavor + " " + v)
}

var shortVersion = lazyre.New(`^[0-9]+(\.[0-9]+)?`)

// CPU names the machines' CPUs briefly, as system labels do: the arm64 core
// when known, else the model without trademarks and the "@ 3.00GHz" suffix
// ("Neoverse-N1", "Intel Xeon Platinum 8275CL"); distinct names joined by
// " + ", "" when unknown.
func (u UnderTest) CPU() string {
	var names []string
	for _, m := range u.Machines {
		names = appendNew(names, shortCPU(m.Machine))
	}
	return joinNonEmpty(names)
}
