package analysis

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// Varies is the value of a setting whose value differs between the results of
// one system.
const Varies = "varies"

// Absent is the value of a setting a system does not record.
const Absent = "—"

// The names of the rows of Differences that are not server variables or
// managed settings, in the order they are shown.
const (
	diffMachine = "server machine"
	diffFrom    = "server machine from"
	diffType    = "server instance type"
	diffRegion  = "server region"
	diffVCPUs   = "server vCPUs"
	diffGHz     = "server GHz"
	diffFlavor  = "server"
	diffVersion = "server version"
	diffProfile = "managed profile"
	diffClient  = "client machine"
	diffTool    = "fairbench version"
	// The prefixes of server variables and managed settings.
	diffVariable = "variable "
	diffSetting  = "managed setting "
)

// Differences is what differs between the systems of a comparison: their
// server machines, server flavour and version, the client machine,
// fairbench's version, and every server variable or managed setting whose
// value is not the same in all of them. A comparison opens with it.
type Differences struct {
	// Systems are the systems' labels, in comparison order.
	Systems []string `json:"systems"`
	// Rows are the things that differ, only those.
	Rows []DiffRow `json:"rows"`
}

// DiffRow is one thing that differs: what it is and its value in each
// system (Absent when the system does not record it, Varies when it differs
// between the system's own results).
type DiffRow struct {
	What   string   `json:"what"`
	Values []string `json:"values"`
}

// settingsOf collects what a system's runs record of their server machine,
// server and settings, by the row name of Differences; a value that differs
// between runs (or is recorded by some only) is Varies.
func settingsOf(runs []run) map[string]string {
	out := map[string]string{}
	seen := map[string]int{}
	for _, r := range runs {
		for k, v := range runSettings(r.res) {
			seen[k]++
			if old, ok := out[k]; ok && old != v {
				v = Varies
			}
			out[k] = v
		}
	}
	for k, n := range seen {
		if n != len(runs) {
			out[k] = Varies
		}
	}
	return out
}

// runSettings is what one result records, by row name.
func runSettings(res *result.Result) map[string]string {
	out := map[string]string{}
	u := MachineUnderTest(res)
	out[diffMachine] = "unknown"
	if u.Known {
		out[diffMachine], out[diffFrom] = orUnknown(u.Label), u.From
	}
	if len(u.InstanceTypes) > 0 {
		out[diffType] = strings.Join(u.InstanceTypes, " + ")
	}
	if u.Region != "" {
		out[diffRegion] = u.Region
	}
	// A server CPU set is in the rows (Key.CPUs): the machine is described
	// by its own CPUs, so that a sweep's results do not make them vary.
	if n := wholeVCPUs(u); restrictedCPUs(res) && n > 0 {
		out[diffVCPUs] = strconv.Itoa(n)
	} else if u.VCPUs > 0 {
		out[diffVCPUs] = strconv.Itoa(u.VCPUs)
	}
	if u.GHz > 0 {
		out[diffGHz] = fmtGHz(u.GHz)
	}
	if res.Server.Flavor != "" {
		out[diffFlavor] = res.Server.Flavor
	}
	if res.Server.Version != "" {
		out[diffVersion] = res.Server.Version
	}
	if c := DescribeMachine(res.Machine); c != "an unknown machine" {
		out[diffClient] = c
	}
	if v := toolVersion(res.Tool); v != "" {
		out[diffTool] = v
	}
	vars := res.Server.Variables
	for k, v := range vars {
		// A memory setting's "<name>_bytes" twin says the same in bytes.
		if base, ok := strings.CutSuffix(k, "_bytes"); ok {
			if _, twin := vars[base]; twin {
				continue
			}
		}
		out[diffVariable+k] = v
	}
	if m := res.ManagedServer; m != nil {
		if m.Profile != "" {
			out[diffProfile] = m.Profile
		}
		for k, v := range m.Settings {
			out[diffSetting+k] = v
		}
	}
	return out
}

// diffOrder ranks the fixed rows first, in their order; the variables and
// settings follow by name.
var diffOrder = map[string]int{diffMachine: 1, diffFrom: 2, diffType: 3, diffRegion: 4, diffVCPUs: 5, diffGHz: 6, diffFlavor: 7, diffVersion: 8, diffProfile: 9, diffClient: 10, diffTool: 11}

// toolVersion names the program that wrote a result: "fairbench v1.2 (abc123)",
// or "" when the result does not say (an imported log names its own tool).
func toolVersion(t result.Tool) string {
	v := strings.TrimSpace(t.Name + " " + t.Version)
	if v == "" {
		return ""
	}
	if t.Commit != "" && !strings.Contains(t.Version, t.Commit) {
		v += " (" + t.Commit + ")"
	}
	return v
}

// FindDifferences returns what differs between systems (Differences).
func FindDifferences(systems []*System) Differences {
	d := Differences{Rows: []DiffRow{}}
	names := map[string]bool{}
	for _, s := range systems {
		d.Systems = append(d.Systems, s.Label)
		for k := range s.ServerSettings {
			names[k] = true
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := diffOrder[keys[i]], diffOrder[keys[j]]
		switch {
		case a != b && a > 0 && b > 0:
			return a < b
		case a > 0 || b > 0:
			return a > 0
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		row := DiffRow{What: k}
		differ := false
		for _, s := range systems {
			v, ok := s.ServerSettings[k]
			if !ok {
				v = Absent
			}
			row.Values = append(row.Values, v)
			differ = differ || v != row.Values[0] || v == Varies
		}
		if differ {
			d.Rows = append(d.Rows, row)
		}
	}
	return d
}

// table lays the differences out for the text and Markdown renderers.
func (d Differences) table() table {
	t := table{header: append([]string{"what differs"}, d.Systems...), left: map[int]bool{}}
	for i := range t.header {
		t.left[i] = true
	}
	for _, r := range d.Rows {
		t.rows = append(t.rows, append([]string{r.What}, r.Values...))
	}
	return t
}

// distinguishing returns the first thing that tells system i apart from the
// others of group (indexes into systems) as "name=value", or "" when nothing
// recorded does.
func distinguishing(systems []*System, group []int, i int) string {
	sub := make([]*System, len(group))
	pos := 0
	for j, g := range group {
		sub[j] = systems[g]
		if g == i {
			pos = j
		}
	}
	// A value of its own is preferred to "—" or "varies".
	fallback := ""
	for _, r := range FindDifferences(sub).Rows {
		v := r.Values[pos]
		unique := true
		for j, o := range r.Values {
			unique = unique && (j == pos || o != v)
		}
		if !unique {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(r.What, diffVariable), diffSetting)
		what := fmt.Sprintf("%s=%s", name, v)
		if v != Absent && v != Varies {
			return what
		}
		if fallback == "" {
			fallback = what
		}
	}
	return fallback
}
