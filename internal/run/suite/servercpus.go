package suite

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// The CPUs of the server a plan starts, chosen from the machine's topology:
// server.cpus_share (one set, a share of the machine) and matrix.server_cpus
// (a sweep: the server restarted on each set, seed 002's scaling by cores).

// cpuSweep is a plan's server_cpus sweep as chosen on this machine.
type cpuSweep struct {
	placement cpuset.Placement
	topology  cpuset.Topology // the topology of the CPUs this process may use
	sets      []serverSet     // in run order: per smt mode, per value; those the machine can give
	dropped   int             // the (value, smt mode) pairs the machine cannot give (Plan.impossible)
}

// serverSet is one value of a server_cpus sweep and the set chosen for it;
// the zero value is "no sweep".
type serverSet struct {
	count int        // the plan's value: logical CPUs (smt all) or cores (one-per-core)
	smt   cpuset.SMT // all or one-per-core
	cpus  cpuset.Set
	cores int // the physical cores cpus touches
}

// label names the set in cell ids and tables: "c4" (smt all), "c4-1pc"
// (one per core).
func (ss serverSet) label() string { return setLabel(ss.count, string(ss.smt)) }

// setLabel is the label of a cell's server_cpus value ("" without one).
func setLabel(count int, smt string) string {
	switch {
	case count == 0:
		return ""
	case smt == string(cpuset.SMTOnePerCore):
		return fmt.Sprintf("c%d-1pc", count)
	}
	return fmt.Sprintf("c%d", count)
}

// describe says what the set is for the dry run and step lines:
// "4 CPUs (smt all): CPUs 0-1,32-33, 2 cores".
func (ss serverSet) describe() string {
	unit := plural(ss.count, "CPU", "CPUs")
	if ss.smt == cpuset.SMTOnePerCore {
		unit = plural(ss.count, "core", "cores")
	}
	return fmt.Sprintf("%d %s (smt %s): CPUs %s, %d %s", ss.count, unit, ss.smt, ss.cpus, ss.cores, plural(ss.cores, "core", "cores"))
}

// serverSets are the sets the cells run on, in run order: the sweep's, or
// one zero set without a sweep.
func (p *Plan) serverSets() []serverSet {
	if p.sweep == nil {
		return []serverSet{{}}
	}
	return p.sweep.sets
}

// setOf is the sweep's set of cell c (the zero set without a sweep).
func (p *Plan) setOf(c suitedir.Cell) serverSet {
	for _, ss := range p.serverSets() {
		if ss.count == c.ServerCPUs && string(ss.smt) == c.SMT {
			return ss
		}
	}
	return serverSet{}
}

// serverCPUs is the set the plan's server runs on for cell c: the sweep's
// set, or server.cpus / cpus_share (empty: unpinned).
func (p *Plan) serverCPUs(c suitedir.Cell) cpuset.Set {
	if p.sweep != nil {
		return p.setOf(c).cpus
	}
	return p.Server.CPUSet()
}

// cellServerCPUs is what a cell's result records of the sweep (nil without one).
func (p *Plan) cellServerCPUs(c suitedir.Cell) *result.ServerCPUs {
	if p.sweep == nil {
		return nil
	}
	ss := p.setOf(c)
	return &result.ServerCPUs{Count: ss.count, SMT: string(ss.smt), Placement: string(p.sweep.placement),
		CPUList: ss.cpus.String(), CPUs: ss.cpus.Len(), Cores: ss.cores}
}

// sameServer reports whether two cells run on the same server: the same
// profile and CPU set (no restart between them).
func sameServer(a, b suitedir.Cell) bool {
	return a.Profile == b.Profile && a.ServerCPUs == b.ServerCPUs && a.SMT == b.SMT
}

// sameGroup reports whether two cells share a server and a data set (the
// warm-ups run once for them).
func sameGroup(a, b suitedir.Cell) bool { return sameServer(a, b) && a.Dataset == b.Dataset }

// usableTopology is the topology of the CPUs this process may use (env's
// Topology within its UsableCPUs).
func (env Env) usableTopology() (cpuset.Topology, error) {
	read := env.Topology
	if read == nil {
		read = func() (cpuset.Topology, error) { return cpuset.ReadTopology(os.DirFS("/")) }
	}
	t, err := read()
	if err != nil {
		return cpuset.Topology{}, fmt.Errorf("reading the CPU topology: %w", err)
	}
	if env.UsableCPUs != nil {
		usable, err := env.UsableCPUs()
		if err != nil {
			return cpuset.Topology{}, fmt.Errorf("cannot tell which CPUs this process may use: %w", err)
		}
		t = t.Within(usable)
	}
	if len(t.CPUs) == 0 {
		return cpuset.Topology{}, fmt.Errorf("this process may use none of the online CPUs")
	}
	return t, nil
}

// parseChoice reads an smt and a placement key (defaults all and packed).
func (p *Plan) parseChoice(prefix, smt, placement string) (cpuset.SMT, cpuset.Placement, error) {
	m, err := cpuset.ParseSMT(cmpOr(smt, string(cpuset.SMTAll)))
	if err != nil {
		return "", "", p.errAt(prefix+".smt", "%v", err)
	}
	pl, err := cpuset.ParsePlacement(cmpOr(placement, string(cpuset.Packed)))
	if err != nil {
		return "", "", p.errAt(prefix+".placement", "%v", err)
	}
	return m, pl, nil
}

// validateCPUsShare turns server.cpus_share into the server's set.
func (p *Plan) validateCPUsShare(env Env) error {
	s := p.Server
	if s.CPUsShare == 0 && !p.given("server.cpus_share") {
		for _, key := range []string{"smt", "placement"} {
			if p.given("server." + key) {
				return p.errAt("server."+key, "server.%s chooses the CPUs of server.cpus_share: add cpus_share (0.78 for 78 %% of the machine), or remove %s", key, key)
			}
		}
		return nil
	}
	if p.given("server.cpus") {
		return p.errAt("server.cpus_share", "server.cpus and server.cpus_share both choose the server's CPUs: keep one")
	}
	smt, placement, err := p.parseChoice("server", s.SMT, s.Placement)
	if err != nil {
		return err
	}
	if smt == cpuset.SMTBoth {
		return p.errAt("server.smt", "smt both runs every cell with and without SMT siblings, which only a sweep does (matrix.server_cpus): give all or one-per-core")
	}
	topo, err := env.usableTopology()
	if err != nil {
		return p.errAt("server.cpus_share", "%v", err)
	}
	n, err := topo.Fraction(s.CPUsShare, smt)
	if err != nil {
		return p.errAt("server.cpus_share", "%v", err)
	}
	s.shareNote = ""
	if spec, err := clientcpus.Parse(p.Run.ClientCPUs); err == nil && spec.Rest && n == topo.Count(smt) && n > 1 {
		// The share rounds to the whole machine: the client of client_cpus:
		// rest would get nothing, so the server leaves it one.
		s.shareNote = fmt.Sprintf("server.cpus_share %g of %d rounds to all %d, which leaves client_cpus: rest nothing: the server gets %d", s.CPUsShare, n, n, n-1)
		n--
	}
	set, err := cpuset.Select(topo, n, smt, placement)
	if err != nil {
		return p.errAt("server.cpus_share", "%v", err)
	}
	if s.shareNote != "" {
		s.shareNote += fmt.Sprintf(" (CPUs %s), the client the rest (CPUs %s)", set, topo.All().Minus(set))
	}
	s.cpus = set
	return nil
}

// validateServerCPUSweep checks matrix.server_cpus against the plan and the
// machine, and chooses each value's set: a value the machine cannot give is
// refused here, so by --dry-run, with the machine's topology in the message.
func (p *Plan) validateServerCPUSweep(env Env) error {
	m := &p.Matrix
	p.sweep = nil
	if len(m.ServerCPUs) == 0 && !p.given("matrix.server_cpus") {
		for _, key := range []string{"smt", "placement"} {
			if p.given("matrix." + key) {
				return p.errAt("matrix."+key, "matrix.%s chooses the CPU sets of matrix.server_cpus: add server_cpus ([1, 2, 4, 8]), or remove %s", key, key)
			}
		}
		return nil
	}
	switch {
	case len(m.ServerCPUs) == 0:
		return p.errAt("matrix.server_cpus", "matrix.server_cpus is empty: give the server's CPU counts ([1, 2, 4, 8]), or leave the key out")
	case p.Server == nil:
		return p.errAt("matrix.server_cpus", "server_cpus restarts the server the plan starts on each CPU set, but this plan has no server: section; add one (server: {flavor: mariadb}), or pin a server you run yourself with fairbench server start --cpus LIST and run a plan per list")
	case p.given("server.cpus"):
		return p.errAt("server.cpus", "server.cpus pins the server to one list, matrix.server_cpus sweeps it over several: keep one")
	case p.given("server.cpus_share"):
		return p.errAt("server.cpus_share", "server.cpus_share pins the server to one share of the machine, matrix.server_cpus sweeps it over several sets: keep one")
	}
	smt, placement, err := p.parseChoice("matrix", m.SMT, m.Placement)
	if err != nil {
		return err
	}
	topo, err := env.usableTopology()
	if err != nil {
		return p.errAt("matrix.server_cpus", "%v", err)
	}
	modes, err := topo.SMTModes(smt)
	if err != nil {
		return p.errAt("matrix.smt", "%v", err)
	}
	for i, n := range m.ServerCPUs {
		key := fmt.Sprintf("matrix.server_cpus[%d]", i)
		if n < 1 {
			return p.errAt(key, "%d CPUs: give 1 or more", n)
		}
		if slices.Index(m.ServerCPUs, n) != i {
			return p.errAt(key, "%d is listed twice", n)
		}
	}
	// A value the machine cannot give is impossible here, not a mistake:
	// every one is named (impossibleError), and the others can run.
	sw := &cpuSweep{placement: placement, topology: topo}
	for _, mode := range modes {
		for i, n := range m.ServerCPUs {
			set, err := cpuset.Select(topo, n, mode, placement)
			if err != nil {
				value := strconv.Itoa(n)
				if len(modes) > 1 {
					value += " (smt " + string(mode) + ")"
				}
				e := p.errAt(fmt.Sprintf("matrix.server_cpus[%d]", i), "%v; this process may use CPUs %s", err, topo.All()).(*PlanError)
				p.impossible = append(p.impossible, impossible{err: e, value: value})
				sw.dropped++
				continue
			}
			sw.sets = append(sw.sets, serverSet{count: n, smt: mode, cpus: set, cores: topo.CoresIn(set)})
		}
	}
	p.sweep = sw
	return nil
}

// checkSweepSets refuses to resume a server_cpus sweep whose servers ran on
// CPU sets this machine would not choose now (another machine, or other
// usable CPUs): its cells would be measured on other sets under the same ids.
func (p *Plan) checkSweepSets(m *suitedir.Manifest) error {
	if p.sweep == nil {
		return nil
	}
	var lists []string
	for _, ss := range p.sweep.sets {
		lists = append(lists, ss.cpus.String())
	}
	for _, srv := range m.Servers {
		if l := cpuList(srv.Managed); l != "" && !slices.Contains(lists, l) {
			return fmt.Errorf("its server ran on CPUs %s, which matrix.server_cpus does not choose here (it chooses %s from %s): resume on the machine, and with the CPUs, it started on",
				l, strings.Join(lists, " / "), p.sweep.topology)
		}
	}
	return nil
}

// writeSweep prints the sweep's sets for the dry run.
func (p *Plan) writeSweep(w io.Writer) {
	if p.sweep == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nServer CPU sets (matrix.server_cpus, placement %s) on this machine's usable CPUs (%s; CPUs %s); the server is restarted on each, the warm-ups run again:\n",
		p.sweep.placement, p.sweep.topology, p.sweep.topology.All())
	for _, ss := range p.sweep.sets {
		fmt.Fprintf(&b, "  %-8s %s\n", ss.label(), ss.describe())
	}
	fmt.Fprint(w, b.String())
}
