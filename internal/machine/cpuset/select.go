package cpuset

import (
	"fmt"
	"math"
	"strings"
)

// SMT says whether a selection uses every hardware thread of a core.
type SMT string

// The SMT modes.
const (
	// SMTAll takes every logical CPU of a core, siblings together.
	SMTAll SMT = "all"
	// SMTOnePerCore takes the first CPU of each core (the lowest id of its
	// sibling list), leaving its siblings idle: SMT off without the BIOS.
	SMTOnePerCore SMT = "one-per-core"
	// SMTBoth asks for two selections, SMTAll and SMTOnePerCore, to compare
	// them (a plan's sweep); see Topology.SMTModes.
	SMTBoth SMT = "both"
)

// ParseSMT validates an smt value: all, one-per-core or both.
func ParseSMT(s string) (SMT, error) {
	switch m := SMT(strings.ToLower(strings.TrimSpace(s))); m {
	case SMTAll, SMTOnePerCore, SMTBoth:
		return m, nil
	}
	return "", fmt.Errorf("smt %q: use all, one-per-core or both", s)
}

// Placement says how a selection lays its CPUs over sockets and NUMA nodes.
type Placement string

// The placements.
const (
	// Packed fills one socket/NUMA node before the next (fewest domains, shared caches).
	Packed Placement = "packed"
	// Spread alternates across sockets/NUMA nodes (most memory bandwidth and cache).
	Spread Placement = "spread"
)

// ParsePlacement validates a placement value: packed or spread.
func ParsePlacement(s string) (Placement, error) {
	switch p := Placement(strings.ToLower(strings.TrimSpace(s))); p {
	case Packed, Spread:
		return p, nil
	}
	return "", fmt.Errorf("placement %q: use packed or spread", s)
}

// SMTModes expands an SMT mode into the selections it asks for: both gives
// all and one-per-core, and is refused on a machine without SMT siblings,
// where the two would be the same CPUs.
func (t Topology) SMTModes(smt SMT) ([]SMT, error) {
	switch smt {
	case SMTAll, SMTOnePerCore:
		return []SMT{smt}, nil
	case SMTBoth:
		if !t.HasSMT() {
			return nil, fmt.Errorf("smt: both compares runs with and without SMT siblings, but this machine has one thread per core (%s): use smt: all", t)
		}
		return []SMT{SMTAll, SMTOnePerCore}, nil
	}
	return nil, fmt.Errorf("smt %q: use all, one-per-core or both", smt)
}

// Select chooses n CPUs of t. The set always holds exactly n logical CPUs:
//
//   - smt all: n counts logical CPUs. Cores are taken whole, siblings
//     together (a core's threads before the next core), so n = 4 on a
//     2-thread-per-core machine is 2 cores; an odd n leaves the last core
//     with only its first thread.
//   - smt one-per-core: n counts cores, and each contributes its first
//     thread (lowest id of its sibling list); n may not exceed the cores.
//
// SMT decides how a core is used, placement how cores are laid over the
// domains — (socket, NUMA node) pairs, in order of their lowest CPU id:
//
//   - packed: each domain's cores in order, a domain filled before the next.
//   - spread: the first core of each domain, then the second of each, …;
//     with smt all a core still brings its siblings along, so 2 CPUs on a
//     2-thread-per-core machine are one core's two threads in either placement.
//
// Errors: n < 1; more CPUs (smt all) or cores (one-per-core) than t has.
// smt one-per-core on a machine without SMT siblings is allowed (every CPU
// is the first of its core); smt both is two selections, which SMTModes
// expands and refuses on such a machine.
func Select(t Topology, n int, smt SMT, placement Placement) (Set, error) {
	if n < 1 {
		return Set{}, fmt.Errorf("select %d CPUs: give at least 1", n)
	}
	if _, err := ParsePlacement(string(placement)); err != nil {
		return Set{}, err
	}
	cores := len(t.Cores())
	switch smt {
	case SMTAll:
		if n > len(t.CPUs) {
			return Set{}, fmt.Errorf("%d CPUs asked for, but this machine has %d (%s)", n, len(t.CPUs), t)
		}
	case SMTOnePerCore:
		if n > cores {
			return Set{}, fmt.Errorf("%d cores (smt: one-per-core) asked for, but this machine has %d (%s)", n, cores, t)
		}
	case SMTBoth:
		return Set{}, fmt.Errorf("smt both is two selections: call Select with all and with one-per-core (Topology.SMTModes)")
	default:
		return Set{}, fmt.Errorf("smt %q: use all or one-per-core", smt)
	}

	// Each domain's cores, in order; a core is its CPUs in sibling order.
	var domains [][][]int
	for _, d := range t.domains() {
		var cs [][]int
		for _, core := range t.coresOf(d) {
			ids := core.CPUs()
			if smt == SMTOnePerCore {
				ids = ids[:1]
			}
			cs = append(cs, ids)
		}
		domains = append(domains, cs)
	}

	var order []int
	if placement == Packed {
		for _, d := range domains {
			for _, core := range d {
				order = append(order, core...)
			}
		}
	} else {
		// Round robin: the domains' first cores, then their second cores, ….
		for coreIdx := 0; len(order) < n; coreIdx++ {
			for _, d := range domains {
				if coreIdx < len(d) {
					order = append(order, d[coreIdx]...)
				}
			}
		}
	}
	return Of(order[:n]...), nil
}

// Count is how many units Select's n counts on t: logical CPUs for smt all,
// cores for one-per-core.
func (t Topology) Count(smt SMT) int {
	if smt == SMTOnePerCore {
		return len(t.Cores())
	}
	return len(t.CPUs)
}

// Fraction turns a share of the machine (0 < f ≤ 1, as in "the server gets
// 0.8 of the machine") into Select's n: f × Count(smt), rounded to the
// nearest whole CPU or core (halves up). A share that rounds to none is an
// error, so a plan written for a large machine says so on a small one.
func (t Topology) Fraction(f float64, smt SMT) (int, error) {
	if !(f > 0 && f <= 1) {
		return 0, fmt.Errorf("share %v of the machine: give a fraction above 0 and at most 1", f)
	}
	total := t.Count(smt)
	n := int(math.Floor(f*float64(total) + 0.5))
	if n < 1 {
		return 0, fmt.Errorf("share %v of %d is less than one: this machine is too small for it (%s)", f, total, t)
	}
	return n, nil
}
