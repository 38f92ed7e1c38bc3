package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The matching rule of compare, cost and report: two figures share a row only
// when their workload, data set, distribution (rand type), profile, the
// run options that shape what was measured (Key.Options: --rate,
// --point-selects, tpcc's --wait… see shapingOptions; the transport, a
// Unix socket or TCP; and the connections' set-up, isolation level, session
// variables, compression and TLS cipher list: shapeOf) and the server's CPU set (Key.CPUs: a
// server_cpus sweep's cell, a pinned server; see cpus.go) are the same. A system that shares no such row with any other system for a workload
// they both ran is refused with what differs (MixError), unless mixing is
// allowed: then the parts that differ, where every system has a single value,
// are left out of the key for that workload, and each row that puts different
// parts together carries them in Row.Mixed so that every renderer marks it.

// MixedMark is the marker of a mixed row in every rendering.
const MixedMark = "†"

// MixedPart is a key part that differs between the systems in a mixed row.
type MixedPart struct {
	// Part is "rand type", "profile", "data set", "options" or "server CPUs".
	Part string `json:"part"`
	// Values are each system's value of the part, in Comparison.Systems
	// order, for the systems that ran the workload.
	Values []SystemValue `json:"values"`
}

// SystemValue is one system's value of a key part; "" shows as "(none)".
type SystemValue struct {
	System string `json:"system"`
	Value  string `json:"value"`
}

// String is "data set: x86 w10, arm w100".
func (p MixedPart) String() string {
	vals := make([]string, len(p.Values))
	for i, v := range p.Values {
		vals[i] = v.System + " " + orNone(v.Value)
	}
	return p.Part + ": " + strings.Join(vals, ", ")
}

// MixedString describes what a mixed row puts together ("data set: x86 w10,
// arm w100; profile: …"), "" for a row that mixes nothing.
func MixedString(parts []MixedPart) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = p.String()
	}
	return strings.Join(s, "; ")
}

// MixedWorkload is one workload whose systems share no row: the key parts
// that differ between them and each system's row labels.
type MixedWorkload struct {
	Workload string
	Parts    []MixedPart
	// Rows are each system's row labels (tpcc/uniform/w10), in systems order.
	Rows []SystemValue
	// Unmixable names the systems whose several values of a differing part
	// keep even --allow-mixed from putting the rows together ("x86 ran data
	// sets w10, w20").
	Unmixable []string
}

// MixError refuses a comparison whose systems did not run the same thing.
type MixError struct {
	Workloads []MixedWorkload
	// SelectFlag is the option that selects rows ("--workload").
	SelectFlag string
	// Allowed is true when mixing was allowed but could not pair the rows.
	Allowed bool
}

func (e *MixError) Error() string {
	var what []string
	var rows []string
	var unmixable []string
	for _, w := range e.Workloads {
		parts := make([]string, len(w.Parts))
		for i, p := range w.Parts {
			parts[i] = p.String()
		}
		if len(parts) == 0 {
			parts = []string{"each system ran another combination of them"}
		}
		what = append(what, fmt.Sprintf("%s (%s)", w.Workload, strings.Join(parts, "; ")))
		for _, r := range w.Rows {
			rows = append(rows, r.System+" has "+r.Value)
		}
		unmixable = append(unmixable, w.Unmixable...)
	}
	flag := e.SelectFlag
	if flag == "" {
		flag = "--workload"
	}
	if len(unmixable) == 0 {
		unmixable = []string{"each system ran another combination of them"}
	}
	if e.Allowed {
		return fmt.Sprintf("the systems ran different data sets, distributions, profiles, run options or server CPU sets, and --allow-mixed cannot pair them because %s: %s; give each system one of them (operands of only those results) or choose matching rows with %s (%s)",
			strings.Join(unmixable, ", "), strings.Join(what, "; "), flag, strings.Join(rows, "; "))
	}
	return fmt.Sprintf("the systems ran different data sets, distributions, profiles, run options or server CPU sets, so no row has figures of the same thing: %s; compare results of the same data set, distribution, profile, run options and server CPUs, choose matching rows with %s (%s), or give --allow-mixed to put them side by side in rows marked %s mixed",
		strings.Join(what, "; "), flag, strings.Join(rows, "; "), MixedMark)
}

// Selector chooses rows by a label as compare prints them: a workload alone
// ("tpcc"), or with the row's rand type, profile, data set, options and CPU
// set as in
// section titles ("tpcc (uniform, w100)", a mixed section's "tpcc † mixed"
// too) or key strings ("tpcc/uniform/w100", "tpcc/w100/wait=on"). The parts
// given must each be one of the row's (an option alone, "rate=5000", is one
// of its options); parts left out match any.
type Selector struct {
	Workload string
	Parts    []string
}

// ParseSelector parses a row label; see Selector.
func ParseSelector(label string) (Selector, error) {
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(label), MixedMark+" mixed"))
	var parts []string
	if w, rest, ok := strings.Cut(s, "("); ok {
		rest = strings.TrimSpace(rest)
		if !strings.HasSuffix(rest, ")") {
			return Selector{}, fmt.Errorf("row label %q: a ( without a closing ): write tpcc (uniform, w100) or tpcc/uniform/w100", label)
		}
		s = w
		parts = strings.Split(strings.TrimSuffix(rest, ")"), ",")
	} else {
		all := strings.Split(s, "/")
		s, parts = all[0], all[1:]
	}
	sel := Selector{Workload: strings.TrimSpace(s)}
	if sel.Workload == "" {
		return Selector{}, fmt.Errorf("row label %q names no workload: write a workload (tpcc) or a row label as compare prints it (tpcc/uniform/w100)", label)
	}
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			return Selector{}, fmt.Errorf("row label %q has an empty part: write a workload (tpcc) or a row label as compare prints it (tpcc/uniform/w100)", label)
		}
		sel.Parts = append(sel.Parts, p)
	}
	return sel, nil
}

// String is the selector as a key string: "tpcc/uniform/w100".
func (s Selector) String() string {
	return strings.Join(append([]string{s.Workload}, s.Parts...), "/")
}

// Matches reports whether key k is in a row the selector chooses: the same
// workload, and each part one of k's rand type, profile, data set, options,
// CPU set or one of its options (case does not matter).
func (s Selector) Matches(k Key) bool {
	if !strings.EqualFold(s.Workload, k.Workload) {
		return false
	}
	own := append([]string{k.RandType, k.Profile, k.Data, k.Options, k.CPUs}, strings.Fields(k.Options)...)
	used := make([]bool, len(own))
	for _, p := range s.Parts {
		found := false
		for i, v := range own {
			if !used[i] && v != "" && strings.EqualFold(p, v) {
				used[i], found = true, true
				if i == 3 { // the options whole stand for each of them
					for j := 5; j < len(own); j++ {
						used[j] = true
					}
				}
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// RowLabel names a row group as compare and report print it and as
// Selector reads it: "tpcc/uniform/w100" (no thread count).
func RowLabel(k Key) string { return k.Group().String() }

// keyParts says which key parts are left out for matching.
type keyParts struct{ randType, profile, data, options, cpus bool }

func (p keyParts) apply(k Key) Key {
	if p.randType {
		k.RandType = ""
	}
	if p.profile {
		k.Profile = ""
	}
	if p.data {
		k.Data = ""
	}
	if p.options {
		k.Options = ""
	}
	if p.cpus {
		k.CPUs = ""
	}
	return k
}

// partDefs are the key parts matched, in the order they are told.
var partDefs = []struct {
	name string
	get  func(Key) string
	set  func(*keyParts)
}{
	{"rand type", func(k Key) string { return k.RandType }, func(p *keyParts) { p.randType = true }},
	{"profile", func(k Key) string { return k.Profile }, func(p *keyParts) { p.profile = true }},
	{"data set", func(k Key) string { return k.Data }, func(p *keyParts) { p.data = true }},
	{"options", func(k Key) string { return k.Options }, func(p *keyParts) { p.options = true }},
	{partCPUs, func(k Key) string { return k.CPUs }, func(p *keyParts) { p.cpus = true }},
}

// partCPUs is the name of the CPU set part (Key.CPUs).
const partCPUs = "server CPUs"

// Holds reports whether a sample filed under k has its figure in row r: k is
// r's key, but for the parts a mixed row leaves out (Row.Mixed).
func (r Row) Holds(k Key) bool {
	var ignore keyParts
	for _, m := range r.Mixed {
		for _, pd := range partDefs {
			if pd.name == m.Part {
				pd.set(&ignore)
			}
		}
	}
	return ignore.apply(k) == r.Key
}

// matching is the outcome of the rule for the samples kept: per workload,
// the parts left out and what the rows put together.
type matching struct {
	ignore map[string]keyParts
	mixed  map[string][]MixedPart
}

// key is k as it is matched.
func (m matching) key(k Key) Key { return m.ignore[k.Workload].apply(k) }

// match applies the matching rule to the samples keep accepts.
func (c *Comparison) match(keep func(Sample) bool, allowMixed bool, selectFlag string) (matching, error) {
	m := matching{ignore: map[string]keyParts{}, mixed: map[string][]MixedPart{}}
	// groups[w][i] is the set of row groups system i ran of workload w.
	groups := map[string][]map[Key]bool{}
	for i, s := range c.Systems {
		for _, smp := range s.Samples {
			if !keep(smp) {
				continue
			}
			w := smp.Key.Workload
			if groups[w] == nil {
				groups[w] = make([]map[Key]bool, len(c.Systems))
			}
			if groups[w][i] == nil {
				groups[w][i] = map[Key]bool{}
			}
			groups[w][i][smp.Key.Group()] = true
		}
	}
	workloads := make([]string, 0, len(groups))
	for w := range groups {
		workloads = append(workloads, w)
	}
	sort.Strings(workloads)
	mixErr := &MixError{SelectFlag: selectFlag, Allowed: allowMixed}
	for _, w := range workloads {
		g := groups[w]
		if !orphaned(g, keyParts{}) {
			continue
		}
		mw := MixedWorkload{Workload: w}
		var ignore keyParts
		var mixable []MixedPart
		for _, pd := range partDefs {
			part := MixedPart{Part: pd.name}
			var sets []string
			single := true
			for i, set := range g {
				if set == nil {
					continue
				}
				vals := map[string]bool{}
				for k := range set {
					vals[pd.get(k)] = true
				}
				list := sortedSet(vals)
				single = single && len(list) == 1
				sets = append(sets, strings.Join(list, ","))
				part.Values = append(part.Values, SystemValue{System: c.Systems[i].Label, Value: strings.Join(list, ", ")})
			}
			if !slices.ContainsFunc(sets, func(v string) bool { return v != sets[0] }) {
				continue // every system ran the same values of this part
			}
			if pd.name == "options" {
				part.Values = describeOptions(part.Values)
			}
			mw.Parts = append(mw.Parts, part)
			if single {
				pd.set(&ignore)
				mixable = append(mixable, part)
			} else {
				for _, v := range part.Values {
					if strings.Contains(v.Value, ", ") {
						plural := pd.name + "s"
						if strings.HasSuffix(pd.name, "s") {
							plural = pd.name
						}
						mw.Unmixable = append(mw.Unmixable, fmt.Sprintf("%s ran %s %s", v.System, plural, v.Value))
					}
				}
			}
		}
		for i, set := range g {
			if set != nil {
				labels := make([]string, 0, len(set))
				for k := range set {
					labels = append(labels, RowLabel(k))
				}
				sort.Strings(labels)
				mw.Rows = append(mw.Rows, SystemValue{System: c.Systems[i].Label, Value: strings.Join(labels, ", ")})
			}
		}
		if !allowMixed || orphaned(g, ignore) {
			mixErr.Workloads = append(mixErr.Workloads, mw)
			continue
		}
		m.ignore[w] = ignore
		m.mixed[w] = mixable
	}
	if len(mixErr.Workloads) > 0 {
		return matching{}, mixErr
	}
	return m, nil
}

// orphaned reports whether some system of g (the row groups of each system
// that ran a workload; nil for the others) shares no group with any other
// system once the parts in ignore are left out. A workload only one system
// ran has nothing to share.
func orphaned(g []map[Key]bool, ignore keyParts) bool {
	sets := make([]map[Key]bool, 0, len(g))
	for _, set := range g {
		if set == nil {
			continue
		}
		reduced := map[Key]bool{}
		for k := range set {
			reduced[ignore.apply(k)] = true
		}
		sets = append(sets, reduced)
	}
	if len(sets) < 2 {
		return false
	}
	for i, a := range sets {
		shared := false
		for j, b := range sets {
			if i == j {
				continue
			}
			for k := range a {
				if b[k] {
					shared = true
					break
				}
			}
			if shared {
				break
			}
		}
		if !shared {
			return true
		}
	}
	return false
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, orNone(v))
	}
	sort.Strings(out)
	return out
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// CommonGroups returns the row groups (keys without threads) in which every
// system has a figure in at least one row, in row order: the rows that can
// stand for all systems at once (the cost model prices one of them).
func (c *Comparison) CommonGroups() []Key {
	var out []Key
	for _, rows := range c.Sections() {
		all := true
		for i := range c.Systems {
			if !slices.ContainsFunc(rows, func(r Row) bool { return r.Cells[i].Stats.N > 0 }) {
				all = false
				break
			}
		}
		if all {
			out = append(out, rows[0].Key.Group())
		}
	}
	return out
}
