package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// CompareOptions choose what a comparison looks at.
type CompareOptions struct {
	// Metric is the figure compared (zero value: DefaultMetricOf the
	// systems, tpmC for TPC-C alone and tps otherwise).
	Metric Metric
	// Baseline is the label of the system the others are compared with; ""
	// is the first system.
	Baseline string
	// Alpha is the significance level (0 = DefaultAlpha, 0.05).
	Alpha float64
	// Center is the statistic that stands for a cell ("" = DefaultCenter,
	// the mean).
	Center Center
	// Workloads keeps only these workloads; empty keeps all.
	Workloads []string
	// Select keeps only the rows one of these selectors chooses; empty
	// keeps all.
	Select []Selector
	// AllowMixed puts figures of different data sets, distributions or
	// profiles in one row when the systems share no row of a workload and
	// each ran a single one; such rows carry Row.Mixed. Without it such a
	// comparison is refused with a *MixError.
	AllowMixed bool
	// SelectFlag names the option that selects rows in refusals (default
	// "--workload").
	SelectFlag string
}

// Comparison is two or more systems side by side for one metric, one row per
// cell key.
//
// Keys are matched on workload, rand type, profile, data set and threads: two
// figures share a row only when all of them are the same. When the systems
// share no row of a workload (the ARM results ran "cpu-bound", the x86 results
// "default"), Compare refuses with a *MixError naming what differs, unless
// CompareOptions.AllowMixed is set: then the parts that differ are left empty
// in the rows of that workload and each such row says in Row.Mixed what it
// puts together.
type Comparison struct {
	Metric Metric
	Center Center
	Alpha  float64
	// Confidence is the level of the confidence intervals (0.95).
	Confidence float64
	// Systems are the operands in the order given; Baseline indexes the
	// baseline among them.
	Systems  []*System
	Baseline int
	// Scaled is true when frequency scaling applies: every system has a known
	// frequency and some differs from the baseline's.
	Scaled bool
	// PerCompute is true when per-vCPU and per-GHz·vCPU figures apply: every
	// system's frequency and vCPUs are known and the metric is a throughput.
	PerCompute bool
	// Differences is what differs between the systems (server machines,
	// server, settings): a comparison opens with it.
	Differences Differences
	// Rows are sorted by workload, rand type, profile, data set, options,
	// server CPU set and threads.
	Rows []Row
	// ByCPUs is throughput by server CPUs, one section per key group in
	// which a system ran several CPU sets (throughput metrics only).
	ByCPUs []CPUSection
	// Scaling holds the scalability models of every sweep: thread counts
	// per section, server CPU sets per by-CPUs section (throughput metrics
	// only).
	Scaling []ScaleSection
	// Notes say what a reader should know (mixed rows, missing cells).
	Notes []string
}

// Row is one key across the systems.
type Row struct {
	Key Key
	// Cells has one entry per system, in Comparison.Systems order.
	Cells []Cell
	// Mixed lists the key parts (left empty in Key) whose values differ
	// between the systems' figures of this row; empty for a row of figures
	// of the same thing. Only CompareOptions.AllowMixed makes such rows.
	Mixed []MixedPart
}

// Cell is one system's figures for one key. Figures that do not apply or
// cannot be computed are NaN (a system without the key has N = 0 and every
// figure NaN).
type Cell struct {
	Stats Stats
	// Value is the cell's center (Stats.Mean or Stats.Median).
	Value float64
	// Pct is (Value − baseline) / baseline × 100; 0 for the baseline.
	Pct float64
	// FScaled is Value brought to the baseline's frequency: Value × baseline
	// GHz / system GHz for throughputs (seed 000: ARM × 3.0/2.6), Value ×
	// system GHz / baseline GHz for latencies. PctFScaled compares it with the
	// baseline's Value.
	FScaled    float64
	PctFScaled float64
	// PerVCPU is Value / vCPUs and PerGHzVCPU is Value / (GHz × vCPUs), the
	// throughput per unit of compute power (seed 004); PctPerGHzVCPU compares
	// PerGHzVCPU with the baseline's. Throughput metrics only.
	PerVCPU       float64
	PerGHzVCPU    float64
	PctPerGHzVCPU float64
	// Ratio is this system's figure against the baseline's with its
	// confidence interval (WelchLog): the comparison's claim. For the
	// baseline itself it is untested, every figure NaN.
	Ratio Ratio
	// Significance is the Mann-Whitney U test of this system's rounds
	// against the baseline's: a second, distribution-free opinion (see
	// Significance.Powered). For the baseline itself it is untested with P
	// NaN.
	Significance Significance
	// Outages counts the rounds of the cell whose run had an outage (the
	// server went away; Sample.Outages): their figures include it. The rows
	// that hold such rounds are marked OutageMark.
	Outages int
	// Noisy counts the rounds of the cell measured while other processes
	// used more than result.OtherProcessesLimitPct of a machine's CPUs
	// (Sample.OtherProcessesPct): their figures may be low. The rows that
	// hold such rounds are marked NoisyMark.
	Noisy int
	// Rounds are the cell's runs in the order read, for what limited each
	// (Sample.Bound, Verdict, SharedCPUs).
	Rounds []Sample
}

// NoisyMark is the marker of a row with a figure from a run measured while
// other processes used more than result.OtherProcessesLimitPct of a
// machine's CPUs, in every rendering.
const NoisyMark = "§"

// Noisy reports whether the sample was measured while other processes used
// more than result.OtherProcessesLimitPct of a machine's CPUs.
func (s Sample) Noisy() bool {
	return s.OtherProcessesPct != nil && *s.OtherProcessesPct > result.OtherProcessesLimitPct
}

// HasNoisy reports whether a figure of the row comes from a run measured
// while other processes used more than result.OtherProcessesLimitPct of a
// machine's CPUs.
func (r Row) HasNoisy() bool {
	return slices.ContainsFunc(r.Cells, func(c Cell) bool { return c.Noisy > 0 })
}

// OutageMark is the marker of a row with a figure from a run during which the
// server went away, in every rendering.
const OutageMark = "‡"

// HasOutage reports whether a figure of the row comes from a run during which
// the server went away.
func (r Row) HasOutage() bool {
	return slices.ContainsFunc(r.Cells, func(c Cell) bool { return c.Outages > 0 })
}

// Compare compares systems for one metric. Labels must be distinct (see
// DisambiguateLabels).
func Compare(systems []*System, opts CompareOptions) (*Comparison, error) {
	if len(systems) < 1 {
		return nil, errors.New("nothing to compare: give result files or suite directories")
	}
	seen := map[string]bool{}
	for _, s := range systems {
		if seen[s.Label] {
			return nil, fmt.Errorf("two systems are labelled %q: give each operand its own label", s.Label)
		}
		seen[s.Label] = true
	}
	if opts.Metric.Name == "" {
		opts.Metric = DefaultMetricOf(systems, opts)
	}
	if opts.Alpha <= 0 {
		opts.Alpha = DefaultAlpha
	}
	if opts.Alpha >= 1 {
		return nil, fmt.Errorf("significance level %g: give a level between 0 and 1, such as 0.05", opts.Alpha)
	}
	center, err := ParseCenter(string(opts.Center))
	if err != nil {
		return nil, err
	}
	c := &Comparison{Metric: opts.Metric, Center: center, Alpha: opts.Alpha, Confidence: Confidence, Systems: systems}
	if opts.Baseline != "" {
		base, err := findSystem(systems, opts.Baseline)
		if err != nil {
			return nil, fmt.Errorf("baseline %w", err)
		}
		c.Baseline = slices.Index(systems, base)
	}

	keep := opts.keeps
	if len(opts.Select) > 0 && !slices.ContainsFunc(systems, func(s *System) bool { return slices.ContainsFunc(s.Samples, keep) }) {
		return nil, c.noRowsError(opts.Select, opts.SelectFlag)
	}
	if err := dryRunMixOf(systems, keep); err != nil {
		return nil, err
	}
	match, err := c.match(keep, opts.AllowMixed, opts.SelectFlag)
	if err != nil {
		return nil, err
	}
	values := make([]map[Key][]float64, len(systems))
	keySet := map[Key]bool{}
	type lack struct {
		system int
		key    Key
	}
	lacking := map[lack]int{}
	outages := map[lack]int{}
	var outageFiles []string
	var outageSeconds float64
	rounds := map[lack][]Sample{}
	noisy := map[lack]int{}
	var noisyFiles []string
	var noisiest float64
	for i, s := range systems {
		values[i] = map[Key][]float64{}
		for _, smp := range s.Samples {
			if !keep(smp) {
				continue
			}
			k := match.key(smp.Key)
			v, ok := c.Metric.Value(smp)
			if !ok {
				lacking[lack{i, k}]++
				continue
			}
			values[i][k] = append(values[i][k], v)
			keySet[k] = true
			rounds[lack{i, k}] = append(rounds[lack{i, k}], smp)
			if smp.Noisy() {
				noisy[lack{i, k}]++
				noisiest = max(noisiest, *smp.OtherProcessesPct)
				noisyFiles = append(noisyFiles, sampleName(s, smp))
			}
			if smp.Outages > 0 {
				outages[lack{i, k}]++
				outageSeconds += smp.OutageSeconds
				outageFiles = append(outageFiles, sampleName(s, smp))
			}
		}
	}
	if len(keySet) == 0 {
		return nil, c.noValuesError(opts.Workloads)
	}
	// Runs without the metric in a cell that has it are left out of its
	// rounds: say so, rather than show fewer rounds without a word.
	var lacks []string
	for l, n := range lacking {
		if keySet[l.key] {
			lacks = append(lacks, fmt.Sprintf("%s: %d run(s) of %s", systems[l.system].Label, n, l.key))
		}
	}
	if len(lacks) > 0 {
		sort.Strings(lacks)
		c.Notes = append(c.Notes, fmt.Sprintf("left out of the rounds for having no %s: %s (run them with that percentile, or compare another metric)", c.Metric.Name, strings.Join(lacks, "; ")))
	}
	keys := make([]Key, 0, len(keySet))
	for k := range keySet {
		keys = append(keys, k)
	}
	sortKeys(keys)

	c.Scaled, c.PerCompute = c.normalisations()
	c.Differences = FindDifferences(systems)
	incomplete := 0
	for _, k := range keys {
		row := Row{Key: k, Cells: make([]Cell, len(systems)), Mixed: match.mixed[k.Workload]}
		for i := range systems {
			row.Cells[i] = c.cell(values[i][k], values[c.Baseline][k], i, c.cpusOf(row, i))
			row.Cells[i].Outages = outages[lack{i, k}]
			row.Cells[i].Noisy = noisy[lack{i, k}]
			row.Cells[i].Rounds = rounds[lack{i, k}]
			if row.Cells[i].Stats.N == 0 {
				incomplete++
			}
		}
		c.fillRelative(&row)
		c.Rows = append(c.Rows, row)
	}
	if slices.ContainsFunc(c.Rows, func(r Row) bool { return len(r.Mixed) > 0 }) {
		c.Notes = append(c.Notes, fmt.Sprintf("rows marked %s put together figures of different data sets, distributions, profiles or run options (--allow-mixed): they do not compare the same thing", MixedMark))
	}
	if len(outageFiles) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("rows marked %s hold %d run(s) during which the server went away or stopped answering (%.1fs in all; each run completed: the server was back within %.0f %% of its measured phase): their figures include the outage — run them again for figures of the server up: %s",
			OutageMark, len(outageFiles), outageSeconds, 100*result.OutageLimit, strings.Join(outageFiles, ", ")))
	}
	if len(noisyFiles) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("rows marked %s hold %d run(s) measured while other processes used more than %d %% of a machine's CPUs (up to %.0f %%): their figures may be low — run them again on a quiet machine: %s",
			NoisyMark, len(noisyFiles), result.OtherProcessesLimitPct, noisiest, strings.Join(noisyFiles, ", ")))
	}
	if incomplete > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d cell(s) have no %s for some system: they show as -", incomplete, c.Metric.Name))
	}
	c.ByCPUs = c.byCPUs()
	c.Scaling = c.scaling()
	c.noteCPUs()
	c.noteSignificance()
	return c, nil
}

// sampleName names a sample in a note: its file, or the system, round and
// key of a result given in memory.
func sampleName(s *System, smp Sample) string {
	if smp.File != "" {
		return smp.File
	}
	return fmt.Sprintf("%s round %d of %s", s.Label, smp.Round, smp.Key)
}

// noteSignificance notes when no cell could be compared with an interval,
// where Mann-Whitney's test (the second opinion) has power and disagrees with
// the interval, and benchmath's warnings once each.
func (c *Comparison) noteSignificance() {
	tested := false
	var warnings, disagree []string
	for _, r := range c.Rows {
		for i, cl := range r.Cells {
			tested = tested || cl.Ratio.Tested
			for _, w := range cl.Significance.Warnings {
				if !slices.Contains(warnings, w) {
					warnings = append(warnings, w)
				}
			}
			if i != c.Baseline && cl.Ratio.Tested && cl.Significance.Powered && cl.Significance.Significant != cl.Ratio.Claimed {
				disagree = append(disagree, fmt.Sprintf("%s at %s (interval p = %s, Mann-Whitney p = %s)",
					c.Systems[i].Label, r.Key, fmtP(cl.Ratio.P), fmtP(cl.Significance.P)))
			}
		}
	}
	if !tested && len(c.Systems) > 1 { // one system has no difference to test
		c.Notes = append(c.Notes, "no interval of a difference: no cell has two or more rounds of positive figures on both sides (run more rounds: with 2 the interval is wide, 3 to 5 make it useful)")
	}
	if len(disagree) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("a second opinion differs: the distribution-free Mann-Whitney U test, where the rounds give it power, disagrees with the interval at α=%g: %s — with few rounds its p moves in coarse steps (2/C(n+m, n) at best); the headline follows the interval, and more rounds settle it", c.Alpha, strings.Join(disagree, "; ")))
	}
	for _, w := range warnings {
		c.Notes = append(c.Notes, "Mann-Whitney: "+w)
	}
}

// normalisations decides whether frequency scaling and per-compute figures
// apply, and notes why not when they do not: a server machine that is
// unknown (the results name a remote target and no server_machines) is not
// scaled by the client machine's figures. It notes frequencies read in
// different ways too (cpufreq max of one, the model name's of another).
func (c *Comparison) normalisations() (scaled, perCompute bool) {
	base := c.Systems[c.Baseline]
	allGHz, allVCPUs, differ := true, true, false
	var unknown, noGHz []string
	hows := map[string][]string{}
	for _, s := range c.Systems {
		allGHz = allGHz && s.GHz > 0
		allVCPUs = allVCPUs && s.VCPUs > 0
		differ = differ || s.GHz != base.GHz
		switch {
		case !s.UnderTest.Known && (s.GHz <= 0 || s.VCPUs <= 0):
			unknown = append(unknown, fmt.Sprintf("%s: %s", s.Label, s.UnderTest.Why))
		case s.GHz <= 0:
			noGHz = append(noGHz, s.Label)
		}
		if s.GHz > 0 {
			how := s.GHzSource
			if s.GHzSource != ghzFromOverride {
				how = s.UnderTest.GHzHow
			}
			hows[how] = append(hows[how], s.Label)
		}
	}
	if len(unknown) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: no frequency scaling or per-vCPU figures by a machine that is not known to be the server's; %s",
			strings.Join(unknown, "; "), unknownFix))
	}
	if len(noGHz) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("the CPU frequency of %s is unknown: no frequency scaling; give it with --ghz label=GHz", strings.Join(noGHz, ", ")))
	}
	if len(hows) > 1 && allGHz {
		var parts []string
		for _, how := range sortedKeys(hows) {
			parts = append(parts, fmt.Sprintf("%s for %s", how, strings.Join(hows[how], ", ")))
		}
		c.Notes = append(c.Notes, fmt.Sprintf("the frequencies were found in different ways (%s): a nominal, a maximum and a given frequency may not be alike; give --ghz for every system to scale by figures of one kind", strings.Join(parts, "; ")))
	}
	scaled = allGHz && differ
	perCompute = allGHz && allVCPUs && !c.Metric.LowerIsBetter
	return scaled, perCompute
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cell computes one system's figures for one key, except those relative to the
// baseline's normalised values (fillRelative); vcpus are the CPUs the
// figures were measured on (cpusOf).
func (c *Comparison) cell(vals, baseVals []float64, i, vcpus int) Cell {
	nan := math.NaN()
	st := Describe(vals)
	cell := Cell{Stats: st, Value: c.Center.Of(st), Pct: nan, FScaled: nan, PctFScaled: nan, PerVCPU: nan, PerGHzVCPU: nan, PctPerGHzVCPU: nan}
	if i != c.Baseline {
		cell.Ratio = WelchLog(vals, baseVals, c.Alpha)
		cell.Significance = MannWhitney(vals, baseVals, c.Alpha)
	} else {
		cell.Ratio = untestedRatio(len(vals), len(vals), c.Alpha)
		cell.Significance = Significance{P: nan, Alpha: c.Alpha}
	}
	if st.N == 0 {
		return cell
	}
	s, base := c.Systems[i], c.Systems[c.Baseline]
	if c.Scaled {
		if c.Metric.LowerIsBetter {
			cell.FScaled = cell.Value * s.GHz / base.GHz
		} else {
			cell.FScaled = cell.Value * base.GHz / s.GHz
		}
	}
	if c.PerCompute && vcpus > 0 {
		cell.PerVCPU = cell.Value / float64(vcpus)
		cell.PerGHzVCPU = cell.Value / (s.GHz * float64(vcpus))
	}
	return cell
}

// fillRelative computes the percentages against the baseline's cell.
func (c *Comparison) fillRelative(row *Row) {
	base := row.Cells[c.Baseline]
	for i := range row.Cells {
		cell := &row.Cells[i]
		cell.Pct = pctDiff(cell.Value, base.Value)
		cell.PctFScaled = pctDiff(cell.FScaled, base.Value)
		cell.PctPerGHzVCPU = pctDiff(cell.PerGHzVCPU, base.PerGHzVCPU)
	}
}

// pctDiff is (v − base) / base × 100, NaN when either is undefined or base is 0.
func pctDiff(v, base float64) float64 {
	if math.IsNaN(v) || math.IsNaN(base) || base == 0 {
		return math.NaN()
	}
	return (v - base) / base * 100
}

// noRowsError refuses selectors that choose no row, listing the rows there are.
func (c *Comparison) noRowsError(sel []Selector, flag string) error {
	if flag == "" {
		flag = "--workload"
	}
	labels := map[string]bool{}
	for _, s := range c.Systems {
		for _, smp := range s.Samples {
			labels[RowLabel(smp.Key)] = true
		}
	}
	names := make([]string, len(sel))
	for i, s := range sel {
		names[i] = s.String()
	}
	return fmt.Errorf("%s %s: no row has that workload, rand type, profile and data set: the rows are %s", flag, strings.Join(names, ", "), strings.Join(sortedSet(labels), ", "))
}

func (c *Comparison) noValuesError(workloads []string) error {
	what := "the results"
	if len(workloads) > 0 {
		what = "the results of " + strings.Join(workloads, ", ")
	}
	return fmt.Errorf("%s have no %s: choose a metric they record (tps, qps; tpmc for TPC-C; p95 or p99 for latency)", what, c.Metric.Name)
}

// BaselineSystem returns the baseline.
func (c *Comparison) BaselineSystem() *System { return c.Systems[c.Baseline] }

// Sections splits the rows into runs that share workload, rand type, profile
// and data set (one table each), in row order.
func (c *Comparison) Sections() [][]Row {
	var out [][]Row
	for _, r := range c.Rows {
		if n := len(out); n > 0 && out[n-1][0].Key.Group() == r.Key.Group() {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, []Row{r})
	}
	return out
}

func sortKeys(keys []Key) {
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
}
