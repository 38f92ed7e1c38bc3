package cost

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Recorded is what a result records of one machine under test (a server
// machine): its role, cloud instance type, region and vCPU count ("" and 0
// when not recorded).
type Recorded struct {
	Role         string
	InstanceType string
	Region       string
	VCPUs        int
}

// Match is the sheet system priced for the machines a result recorded, and
// what a reader should be warned of.
type Match struct {
	// System is the sheet system's name.
	System string
	// Instances are the sheet instances matched, one per recorded machine.
	Instances []string
	// Made is true when no sheet system is made of exactly those instances
	// and the system was made of them (no volumes, no fees) and added to
	// the sheet.
	Made bool
	// Warnings say where the sheet disagrees with the record (vCPUs).
	Warnings []string
}

// MatchInstance returns the sheet's one instance of instance type typ in
// region (any region when region is ""): an instance matches when its type
// key (else its name) is typ and its region is region or not given. No match
// or several are errors that name what there is, or the matches.
func (s *Sheet) MatchInstance(typ, region string) (*Instance, error) {
	var found []*Instance
	for i := range s.Instances {
		in := &s.Instances[i]
		t := in.Type
		if t == "" {
			t = in.Name
		}
		if t == typ && (region == "" || in.Region == "" || in.Region == region) {
			found = append(found, in)
		}
	}
	where := typ
	if region != "" {
		where += " in " + region
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("price sheet %s has no instance of type %s (give an instance type: %s, and region: keys)", s.File, where, typ)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, in := range found {
		names[i] = in.Name
	}
	return nil, fmt.Errorf("price sheet %s has %d instances of type %s: %s", s.File, len(found), where, strings.Join(names, " and "))
}

// SystemFor finds what to price for the machines a result recorded (label
// names the compared system in messages and in a made system's name): each
// machine's instance type and region must match exactly one instance
// (MatchInstance); the sheet system whose instances are exactly those (as
// many of each) is used; when none is, a system of those instances alone is
// made and added to the sheet. A recorded vCPU count that differs from the
// sheet's is a warning. Errors say to give --system.
func (s *Sheet) SystemFor(label string, machines []Recorded) (*Match, error) {
	if len(machines) == 0 {
		return nil, fmt.Errorf("%s records no server machine: give --system %s=SYSTEM", label, label)
	}
	m := &Match{}
	counts := map[string]int{}
	for _, r := range machines {
		if r.InstanceType == "" {
			return nil, fmt.Errorf("%s records no instance type for its %s machine: give --system %s=SYSTEM (the sheet's systems: %s)",
				label, orRole(r.Role), label, strings.Join(s.SystemNames(), ", "))
		}
		in, err := s.MatchInstance(r.InstanceType, r.Region)
		if err != nil {
			return nil, fmt.Errorf("%s (%s machine): %w: give --system %s=SYSTEM", label, orRole(r.Role), err, label)
		}
		m.Instances = append(m.Instances, in.Name)
		counts[in.Name]++
		if r.VCPUs > 0 && in.VCPU > 0 && r.VCPUs != in.VCPU {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: its %s machine (%s) recorded %d vCPUs, the price sheet's instance %s has %d: the price may be of another machine than the one measured",
				label, orRole(r.Role), r.InstanceType, r.VCPUs, in.Name, in.VCPU))
		}
	}
	var same []string
	for _, sys := range s.Systems {
		have := map[string]int{}
		for _, it := range sys.Items {
			if it.Kind == KindInstance {
				have[it.Name] += it.Count
			}
		}
		if mapsEqual(have, counts) {
			same = append(same, sys.Name)
		}
	}
	switch len(same) {
	case 1:
		m.System = same[0]
		return m, nil
	case 0:
	default:
		return nil, fmt.Errorf("%s: the sheet's systems %s are all made of its recorded instances (%s): give --system %s=SYSTEM",
			label, strings.Join(same, " and "), describeCounts(counts), label)
	}
	name := label + " (recorded instances)"
	if slices.Contains(s.SystemNames(), name) {
		return nil, fmt.Errorf("%s: the sheet already has a system %q: give --system %s=SYSTEM", label, name, label)
	}
	sys := System{Name: name, Description: describeCounts(counts) + " as recorded; no volumes or fees"}
	for _, n := range sortedNames(counts) {
		sys.Items = append(sys.Items, Item{Kind: KindInstance, Name: n, Count: counts[n], Role: n})
	}
	s.Systems = append(s.Systems, sys)
	m.System, m.Made = name, true
	m.Warnings = append(m.Warnings, fmt.Sprintf("%s: no system of the sheet is made of its recorded instances; priced %s alone (no volumes or fees): give --system %s=SYSTEM to price a whole system",
		label, describeCounts(counts), label))
	return m, nil
}

func orRole(role string) string {
	if role == "" {
		return "server"
	}
	return role
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func sortedNames(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// describeCounts writes "3 × c6g.2xlarge, 1 × c6g.large".
func describeCounts(m map[string]int) string {
	var parts []string
	for _, n := range sortedNames(m) {
		parts = append(parts, fmt.Sprintf("%d × %s", m[n], n))
	}
	return strings.Join(parts, ", ")
}
