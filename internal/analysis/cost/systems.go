package cost

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// Selection chooses what of compared systems' results a sheet prices: the
// options of `fairbench cost` and `fairbench report --prices`.
type Selection struct {
	// Systems map compared systems to the sheet's: "LABEL=SYSTEM" each
	// (--system); a system not named is the sheet's system named like its
	// label, else the one its recorded instance types and region match.
	Systems []string
	// Threads are the thread counts whose throughput is averaged
	// (--cost-threads); none: every thread count all systems ran.
	Threads []int
	// Workload selects the priced row (--cost-workload): a workload or a
	// row label as compare prints it; "" when every system ran one.
	Workload string
	// PerDollar and PricePerf are the cost bases of throughput per dollar
	// and of price-performance.
	PerDollar, PricePerf Basis
}

// Pricing is compared systems priced by a sheet: what Evaluate was given and
// what it made of it, in a Report of the sheet's systems.
type Pricing struct {
	Sheet   *Sheet
	Inputs  []Input
	Options Options
	Report  *Report
	Eval    *Evaluation
	// Rows are the compared rows of the priced group, by thread count: the
	// intervals of the throughput ratios the price-performance claims rest
	// on (Claims).
	Rows []analysis.Row
}

// PriceSystems prices the compared systems with sheet and relates each to its
// throughput in the one row every system ran (compared under cmp), averaged
// over sel.Threads or the thread counts all systems ran.
func PriceSystems(sheet *Sheet, systems []*analysis.System, cmp analysis.CompareOptions, sel Selection) (*Pricing, error) {
	p, err := throughputs(systems, cmp, sel.Workload)
	if err != nil {
		return nil, err
	}
	threads := sel.Threads
	if len(threads) == 0 {
		if threads, err = commonThreads(systems, p.by); err != nil {
			return nil, err
		}
	}
	var inputs []Input
	var names, warnings []string
	for i, s := range systems {
		name, warn, err := SheetSystem(sheet, s, sel.Systems)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, warn...)
		inputs = append(inputs, Input{System: name, Throughput: Figure{ByThreads: p.by[i], Threads: threads}})
		names = append(names, name)
	}
	opts := Options{Workload: p.label, Metric: p.metric.Unit, PerDollar: sel.PerDollar, PricePerf: sel.PricePerf,
		Mixed: p.mixed, Outages: p.outages, Center: string(p.center), Baseline: names[p.baseline]}
	ev, err := sheet.Evaluate(inputs, opts)
	if err != nil {
		return nil, err
	}
	rep, err := NewReport(sheet, names...)
	if err != nil {
		return nil, err
	}
	rep.Evaluations = append(rep.Evaluations, ev)
	rep.Warnings = warnings
	pr := &Pricing{Sheet: sheet, Inputs: inputs, Options: opts, Report: rep, Eval: ev, Rows: p.rows}
	labels := make([]string, len(systems))
	for i, s := range systems {
		labels[i] = s.Label
	}
	rep.Claims = pr.Claims(labels, cmp.Metric.Unit)
	return pr, nil
}

// SheetSystem maps a compared system to the price sheet's system: a mapping
// LABEL=SYSTEM (--system), else the system named like the label, else the
// one the instance types and region its results record of the machine under
// test match (Sheet.SystemFor), with warnings of what may differ. A system
// it cannot map is an error saying how to name its sheet system.
func SheetSystem(sheet *Sheet, sys *analysis.System, mapping []string) (string, []string, error) {
	label := sys.Label
	for _, m := range mapping {
		l, s, ok := strings.Cut(m, "=")
		if !ok {
			return "", nil, fmt.Errorf("--system %q: write LABEL=SYSTEM, e.g. arm=aws-arm", m)
		}
		if strings.EqualFold(l, label) {
			if _, err := sheet.System(s); err != nil {
				return "", nil, fmt.Errorf("--system %s: %w", m, err)
			}
			return s, nil, nil
		}
	}
	for _, name := range sheet.SystemNames() {
		if strings.EqualFold(name, label) {
			return name, nil, nil
		}
	}
	var recorded []Recorded
	for _, m := range sys.UnderTest.Machines {
		if m.InstanceType != "" {
			recorded = append(recorded, Recorded{Role: m.Role, InstanceType: m.InstanceType, Region: m.Region, VCPUs: m.LogicalCPUs})
		}
	}
	if len(recorded) == 0 {
		return "", nil, fmt.Errorf("which system of %s did %s run on? its results record no instance type of the server's machine: give --system %s=SYSTEM (the sheet's systems: %s)", sheet.File, label, label, strings.Join(sheet.SystemNames(), ", "))
	}
	if len(recorded) < len(sys.UnderTest.Machines) {
		return "", nil, fmt.Errorf("which system of %s did %s run on? its results record the instance type of only %d of its %d server machines: give --system %s=SYSTEM (the sheet's systems: %s)", sheet.File, label, len(recorded), len(sys.UnderTest.Machines), label, strings.Join(sheet.SystemNames(), ", "))
	}
	m, err := sheet.SystemFor(label, recorded)
	if err != nil {
		return "", nil, err
	}
	return m.System, m.Warnings, nil
}

// priced is what the cost model prices: the systems' figures by thread count
// in the one row group that every system ran and the selection
// (--cost-workload, else compare's --workload) chooses, under the matching
// rule of compare.
type priced struct {
	// by are each system's figures by thread count: the center (--center)
	// of each thread count's rounds.
	by []map[int]float64
	// label is the group's row label; mixed what it mixes ("" unless
	// --allow-mixed put different things together).
	label, mixed string
	// outages says which throughputs include runs with an outage (the
	// server went away); "" when none do.
	outages string
	// metric is the throughput priced and center the statistic of rounds
	// used, as the comparison resolved them (the defaults when cmp left
	// them out); baseline indexes the baseline system (--baseline, else
	// the first).
	metric   analysis.Metric
	center   analysis.Center
	baseline int
	// rows are the compared rows of the priced group.
	rows []analysis.Row
}

// throughputs finds what the cost model prices. Several row groups every
// system ran are refused, naming them, never priced by the first.
func throughputs(systems []*analysis.System, base analysis.CompareOptions, workload string) (*priced, error) {
	opts := base
	if workload != "" {
		sel, err := analysis.ParseSelector(workload)
		if err != nil {
			return nil, fmt.Errorf("--cost-workload: %w", err)
		}
		opts.Select, opts.SelectFlag = []analysis.Selector{sel}, "--cost-workload"
	} else if len(opts.Select) == 0 {
		opts.SelectFlag = "--cost-workload"
	}
	cmp, err := analysis.Compare(systems, opts)
	if err != nil {
		return nil, err
	}
	groups := cmp.CommonGroups()
	var labels []string
	for _, g := range groups {
		labels = append(labels, analysis.RowLabel(g))
	}
	switch {
	case len(groups) == 0:
		return nil, fmt.Errorf("no row has %s figures of every system, so none can be priced alike: %s; choose a row every system ran with --cost-workload, or run it on the systems that lack it", cmp.Metric.Unit, rowOwners(cmp))
	case len(groups) > 1 && workload == "":
		return nil, fmt.Errorf("the results hold %d rows every system ran: %s; choose the one to price with --cost-workload (a workload or a row label as compare prints it)", len(groups), strings.Join(labels, ", "))
	case len(groups) > 1:
		return nil, fmt.Errorf("--cost-workload %s matches %d rows every system ran: %s; give the whole row label", workload, len(groups), strings.Join(labels, ", "))
	}
	p := &priced{by: make([]map[int]float64, len(systems)), label: labels[0], metric: cmp.Metric, center: cmp.Center, baseline: cmp.Baseline}
	for i := range p.by {
		p.by[i] = map[int]float64{}
	}
	var outages []string
	for _, r := range cmp.Rows {
		if r.Key.Group() != groups[0] {
			continue
		}
		p.mixed = analysis.MixedString(r.Mixed)
		p.rows = append(p.rows, r)
		for i, c := range r.Cells {
			if c.Stats.N > 0 {
				p.by[i][r.Key.Threads] = c.Value
			}
			if c.Outages > 0 {
				outages = append(outages, fmt.Sprintf("%s: %d of %d runs at %d threads", systems[i].Label, c.Outages, c.Stats.N, r.Key.Threads))
			}
		}
	}
	p.outages = strings.Join(outages, "; ")
	return p, nil
}

// commonThreads returns the thread counts every system ran in the priced
// row, sorted: without chosen thread counts each system's throughput is the
// mean over the same thread counts, never over each system's own. None in
// common is refused, naming each system's.
func commonThreads(systems []*analysis.System, by []map[int]float64) ([]int, error) {
	var common []int
	for t := range by[0] {
		if !slices.ContainsFunc(by, func(m map[int]float64) bool { _, ok := m[t]; return !ok }) {
			common = append(common, t)
		}
	}
	slices.Sort(common)
	if len(common) == 0 {
		var each []string
		for i, s := range systems {
			ts := make([]int, 0, len(by[i]))
			for t := range by[i] {
				ts = append(ts, t)
			}
			slices.Sort(ts)
			names := make([]string, len(ts))
			for j, t := range ts {
				names[j] = strconv.Itoa(t)
			}
			each = append(each, fmt.Sprintf("%s ran %s", s.Label, strings.Join(names, ", ")))
		}
		return nil, fmt.Errorf("the systems share no thread count to average their throughput over (%s): run a thread count on every system", strings.Join(each, "; "))
	}
	return common, nil
}

// rowOwners lists a comparison's row groups with the systems that have
// figures in them: "tpcc/uniform/w10 (x86), tpcc/uniform/w500 (arm)".
func rowOwners(c *analysis.Comparison) string {
	var out []string
	for _, rows := range c.Sections() {
		var who []string
		for i, s := range c.Systems {
			if slices.ContainsFunc(rows, func(r analysis.Row) bool { return r.Cells[i].Stats.N > 0 }) {
				who = append(who, s.Label)
			}
		}
		out = append(out, fmt.Sprintf("%s (%s)", analysis.RowLabel(rows[0].Key), strings.Join(who, ", ")))
	}
	return strings.Join(out, ", ")
}
