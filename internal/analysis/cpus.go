package analysis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// Server CPU sets. A result whose server could use only some of its
// machine's CPUs — a cell of a plan's server_cpus sweep (suite.server_cpus),
// a managed server pinned with server start --cpus (managed_server.cpu_list)
// or a server whose process may use a subset of the online CPUs
// (server_machines[].cpu_list, written only then) — is filed under Key.CPUs:
// "cpus=N" for N logical CPUs, with ":one-per-core" when a sweep took one
// thread of each core (its siblings idle) and ":spread" when it spread the
// set over sockets and NUMA nodes. Results of different CPU sets are never
// rounds of one figure: within a system they are separate rows, and two
// systems share a row only at the same set (match.go). Per-vCPU figures of
// such a row divide by the set's N CPUs, which MachineUnderTest counts.

// The suffixes of Key.CPUs after "cpus=N".
const (
	cpusPrefix     = "cpus="
	cpusOnePerCore = "one-per-core"
	cpusSpread     = "spread"
)

// cpuSetLabel is Key.CPUs of a set of n logical CPUs chosen with smt and
// placement as a server_cpus sweep names them ("" for a pinned list).
func cpuSetLabel(n int, smt, placement string) string {
	s := cpusPrefix + "?"
	if n > 0 {
		s = cpusPrefix + strconv.Itoa(n)
	}
	if smt == cpusOnePerCore {
		s += ":" + cpusOnePerCore
	}
	if placement == cpusSpread {
		s += ":" + cpusSpread
	}
	return s
}

// parseCPUSet splits Key.CPUs into its CPU count (0 when unknown) and the
// series it belongs to: the suffixes after the count (":one-per-core",
// ":spread", "" for siblings taken together or a pinned list).
func parseCPUSet(label string) (cpus int, series string) {
	rest, ok := strings.CutPrefix(label, cpusPrefix)
	if !ok {
		return 0, ""
	}
	num, suffix, _ := strings.Cut(rest, ":")
	if suffix != "" {
		suffix = ":" + suffix
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		n = 0
	}
	return n, suffix
}

// cpuSetLess orders Key.CPUs values: none first, then by CPU count, then by
// series.
func cpuSetLess(a, b string) bool {
	if a == "" || b == "" {
		return a == "" && b != ""
	}
	na, sa := parseCPUSet(a)
	nb, sb := parseCPUSet(b)
	if na != nb {
		return na < nb
	}
	return sa < sb
}

// restrictedCPUs reports whether res's server could use only some of its
// machine's CPUs.
func restrictedCPUs(res *result.Result) bool {
	if res.Suite != nil && res.Suite.ServerCPUs != nil {
		return true
	}
	if res.ManagedServer != nil && res.ManagedServer.CPUList != "" {
		return true
	}
	return slices.ContainsFunc(res.ServerMachines, func(m result.ServerMachine) bool { return m.CPUList != "" })
}

// pinnedCPUs is the number of CPUs fairbench pinned res's server to, and
// the field it was read from: the sweep's chosen set, else the managed
// server's list; 0 when it did not pin it.
func pinnedCPUs(res *result.Result) (int, string) {
	if res.Suite != nil && res.Suite.ServerCPUs != nil {
		sc := res.Suite.ServerCPUs
		if n := countCPUList(sc.CPUList); n > 0 {
			return n, "suite.server_cpus"
		}
		if sc.CPUs > 0 {
			return sc.CPUs, "suite.server_cpus"
		}
	}
	if res.ManagedServer != nil {
		if n := countCPUList(res.ManagedServer.CPUList); n > 0 {
			return n, "managed_server.cpu_list"
		}
	}
	return 0, ""
}

// cpuSetOf is Key.CPUs of res: "" when its server could use every CPU of
// its machine, else the set's label with the CPU count MachineUnderTest
// gives (the per-vCPU figures' count).
func cpuSetOf(res *result.Result) string {
	if !restrictedCPUs(res) {
		return ""
	}
	n := 0
	if u := MachineUnderTest(res); u.Known && u.setCounted {
		n = u.VCPUs
	}
	if n <= 0 {
		n, _ = pinnedCPUs(res)
	}
	if n <= 0 && res.Suite != nil && res.Suite.ServerCPUs != nil {
		n = res.Suite.ServerCPUs.Count
	}
	smt, placement := "", ""
	if res.Suite != nil && res.Suite.ServerCPUs != nil {
		smt, placement = res.Suite.ServerCPUs.SMT, res.Suite.ServerCPUs.Placement
	}
	return cpuSetLabel(n, smt, placement)
}

// cpusOf is the number of CPUs system i's figure in row r was measured on:
// its CPU set's (the row's, or the system's value of a mixed row), else the
// system's vCPUs.
func (c *Comparison) cpusOf(r Row, i int) int {
	set := r.Key.CPUs
	for _, m := range r.Mixed {
		if m.Part != partCPUs {
			continue
		}
		for _, v := range m.Values {
			if v.System == c.Systems[i].Label {
				set = v.Value
			}
		}
	}
	if n, _ := parseCPUSet(set); n > 0 {
		return n
	}
	return c.Systems[i].VCPUs
}

// CPUSection is throughput by server CPUs of one workload (a key group
// without its CPU set): one curve per system and series.
type CPUSection struct {
	// Group is the rows' key group, CPUs and Threads left empty.
	Group  Key
	Curves []CPUCurve
}

// CPUCurve is how one system's throughput grows with the server's CPUs in
// one series of sets: siblings taken together (or pinned lists), or one
// thread per core; packed or spread.
//
// Each point is the best thread count of its set (the highest center over
// the thread counts run): a larger set needs more concurrency to be loaded,
// so a fixed thread count would understate it, and seed 002 charts one
// figure per set. SpeedUp is value ÷ the smallest set's value; Efficiency
// (per CPU) is SpeedUp ÷ (CPUs ÷ smallest CPUs), 1 meaning linear.
type CPUCurve struct {
	System string
	// SMT is "one-per-core" for sets of one thread per core, "" otherwise;
	// Placement is "spread" or "" (packed, or a pinned list).
	SMT       string
	Placement string
	// Mode names the series in tables and legends ("with SMT siblings",
	// "one per core", "spread"); "" when it is the section's only kind.
	Mode     string
	BaseCPUs int
	Points   []CPUPoint
}

// CPUPoint is one CPU set of a curve.
type CPUPoint struct {
	// Set is the rows' Key.CPUs ("cpus=4:one-per-core"), CPUs its count.
	Set  string
	CPUs int
	// Threads is the best thread count, Value its center and Stats its
	// rounds (for the confidence interval).
	Threads int
	Value   float64
	Stats   Stats
	// SpeedUp and Efficiency are relative to the curve's smallest set.
	SpeedUp    float64
	Efficiency float64
	// Caveat is set when Efficiency is above 1 (more than linear): whether
	// the rounds can tell it from noise (SuperlinearMark).
	Caveat string
	// Outages counts the point's rounds whose server went away.
	Outages int
	// Vague is true when the point's interval or the curve's first point's
	// is wider than its figure (Stats.Vague): its speed-up and efficiency
	// tell nothing, and every rendering marks them VagueMark.
	Vague bool
}

// SuperlinearMark marks a per-CPU efficiency above 100 % in every rendering.
const SuperlinearMark = "↑"

// The caveats of a per-CPU efficiency above 100 % (CPUPoint.Caveat).
const (
	CaveatOneRound = "one round on either side: cannot be told from noise"
	CaveatNoise    = "within the confidence intervals of linear: noise"
	CaveatBeyond   = "above linear beyond the confidence intervals (a larger set's caches, or a smallest set that did not load the server)"
)

// cpuCell is one system's figures for one key.
type cpuCell struct {
	key     Key
	stats   Stats
	value   float64
	outages int
}

// cpuCurves builds system's curves from its cells of one key group (CPUs
// and threads aside); cells of no CPU set are left out. Curves are in series
// order ("" first).
func cpuCurves(system string, cells []cpuCell) []CPUCurve {
	best := map[string]cpuCell{}
	for _, cl := range cells {
		if cl.key.CPUs == "" || cl.stats.N == 0 || math.IsNaN(cl.value) {
			continue
		}
		if b, ok := best[cl.key.CPUs]; !ok || cl.value > b.value {
			best[cl.key.CPUs] = cl
		}
	}
	bySeries := map[string][]CPUPoint{}
	for set, cl := range best {
		n, series := parseCPUSet(set)
		if n <= 0 {
			continue
		}
		bySeries[series] = append(bySeries[series], CPUPoint{Set: set, CPUs: n, Threads: cl.key.Threads, Value: cl.value, Stats: cl.stats, Outages: cl.outages})
	}
	var curves []CPUCurve
	for _, series := range sortedKeys(bySeries) {
		pts := bySeries[series]
		slices.SortFunc(pts, func(a, b CPUPoint) int { return a.CPUs - b.CPUs })
		cv := CPUCurve{System: system, Points: pts, BaseCPUs: pts[0].CPUs}
		if strings.Contains(series, cpusOnePerCore) {
			cv.SMT = cpusOnePerCore
		}
		if strings.Contains(series, cpusSpread) {
			cv.Placement = cpusSpread
		}
		cv.fill()
		curves = append(curves, cv)
	}
	return curves
}

// fill computes speed-ups, efficiencies and caveats against the first point.
func (cv *CPUCurve) fill() {
	base := cv.Points[0]
	for i := range cv.Points {
		p := &cv.Points[i]
		p.SpeedUp, p.Efficiency = math.NaN(), math.NaN()
		p.Vague = p.Stats.Vague() || base.Stats.Vague()
		if base.Value == 0 {
			continue
		}
		ratio := float64(p.CPUs) / float64(base.CPUs)
		p.SpeedUp = p.Value / base.Value
		p.Efficiency = p.SpeedUp / ratio
		if i == 0 || p.Efficiency <= 1 {
			continue
		}
		switch {
		case p.Stats.N < 2 || base.Stats.N < 2 || math.IsNaN(p.Stats.CILo) || math.IsNaN(base.Stats.CIHi):
			p.Caveat = CaveatOneRound
		case base.Stats.CIHi > 0 && p.Stats.CILo/base.Stats.CIHi > ratio:
			p.Caveat = CaveatBeyond
		default:
			p.Caveat = CaveatNoise
		}
	}
}

// nameModes names the curves' series when a section holds more than one
// kind (modeName); a series of a system whose machine has no SMT siblings
// says so instead of "with SMT siblings".
func nameModes(curves []CPUCurve, systems []*System) {
	smt, spread := seriesKinds(curves)
	for i := range curves {
		c := &curves[i]
		c.Mode = modeName(smt, spread, c.SMT, c.Placement)
		if smt && c.SMT == "" && slices.ContainsFunc(systems, func(s *System) bool { return s.Label == c.System && noSMT(s) }) {
			c.Mode = strings.Replace(c.Mode, "with SMT siblings", "no SMT siblings", 1)
		}
	}
}

// seriesKinds reports whether curves hold one-per-core and spread series.
func seriesKinds(curves []CPUCurve) (smt, spread bool) {
	smt = slices.ContainsFunc(curves, func(c CPUCurve) bool { return c.SMT != "" })
	spread = slices.ContainsFunc(curves, func(c CPUCurve) bool { return c.Placement != "" })
	return smt, spread
}

// modeName names a series (its SMT and placement) among a section's kinds:
// "with SMT siblings" beside "one per core", "packed" beside "spread"; ""
// when the section has one kind.
func modeName(smtKinds, spreadKinds bool, smt, placement string) string {
	var parts []string
	switch {
	case smtKinds && smt != "":
		parts = append(parts, "one per core")
	case smtKinds:
		parts = append(parts, "with SMT siblings")
	}
	switch {
	case spreadKinds && placement != "":
		parts = append(parts, "spread")
	case spreadKinds:
		parts = append(parts, "packed")
	}
	return strings.Join(parts, ", ")
}

// noSMT reports whether each of s's server machines is known to run one
// thread per core.
func noSMT(s *System) bool {
	ms := s.UnderTest.Machines
	return len(ms) > 0 && !slices.ContainsFunc(ms, func(m result.ServerMachine) bool { return m.ThreadsPerCore != 1 })
}

// byCPUs builds the by-CPUs sections of a throughput comparison: one per key
// group (CPUs aside) in which some system ran two or more sets of one
// series.
func (c *Comparison) byCPUs() []CPUSection {
	if c.Metric.LowerIsBetter {
		return nil
	}
	var out []CPUSection
	var order []Key
	cells := map[Key][][]cpuCell{}
	for _, r := range c.Rows {
		if r.Key.CPUs == "" {
			continue
		}
		g := r.Key.Group()
		g.CPUs = ""
		if cells[g] == nil {
			order = append(order, g)
			cells[g] = make([][]cpuCell, len(c.Systems))
		}
		for i, cl := range r.Cells {
			cells[g][i] = append(cells[g][i], cpuCell{key: r.Key, stats: cl.Stats, value: cl.Value, outages: cl.Outages})
		}
	}
	for _, g := range order {
		sec := CPUSection{Group: g}
		swept := false
		for i, s := range c.Systems {
			for _, cv := range cpuCurves(s.Label, cells[g][i]) {
				swept = swept || len(cv.Points) > 1
				sec.Curves = append(sec.Curves, cv)
			}
		}
		if swept {
			nameModes(sec.Curves, c.Systems)
			out = append(out, sec)
		}
	}
	return out
}

// cpuSectionOf returns the by-CPUs section of key group g (CPUs aside), nil
// when there is none.
func (c *Comparison) cpuSectionOf(g Key) *CPUSection {
	g.CPUs, g.Threads = "", 0
	for i := range c.ByCPUs {
		if c.ByCPUs[i].Group == g {
			return &c.ByCPUs[i]
		}
	}
	return nil
}

// cpuPointOf returns system's by-CPUs point whose best thread count is row
// key k, if there is one.
func (c *Comparison) cpuPointOf(k Key, system string) (CPUPoint, bool) {
	if k.CPUs == "" {
		return CPUPoint{}, false
	}
	cs := c.cpuSectionOf(k)
	if cs == nil {
		return CPUPoint{}, false
	}
	for _, cv := range cs.Curves {
		if cv.System != system {
			continue
		}
		for _, p := range cv.Points {
			if p.Set == k.CPUs && p.Threads == k.Threads {
				return p, true
			}
		}
	}
	return CPUPoint{}, false
}

// CPUSectionTitle names a by-CPUs section: "oltp_point_select (uniform,
// 1x10000) by server CPUs".
func CPUSectionTitle(s CPUSection) string {
	return sectionTitle(s.Group) + " by server CPUs"
}

// CPUSetName names the server CPU set of key k for a chart's label: "1
// CPU", "4 CPUs", with its series when its by-CPUs section has several kinds
// ("4 CPUs, one per core", "4 CPUs, with SMT siblings"; the SMT part left
// out when the systems' machines disagree on it, some without siblings); ""
// for a key of no CPU set.
func (c *Comparison) CPUSetName(k Key) string {
	if k.CPUs == "" {
		return ""
	}
	n, _ := parseCPUSet(k.CPUs)
	name := "? CPUs"
	switch {
	case n == 1:
		name = "1 CPU"
	case n > 1:
		name = strconv.Itoa(n) + " CPUs"
	}
	cs := c.cpuSectionOf(k)
	if cs == nil {
		return name
	}
	var modes []string
	var smt, placement string
	for _, cv := range cs.Curves {
		if slices.ContainsFunc(cv.Points, func(p CPUPoint) bool { return p.Set == k.CPUs }) && !slices.Contains(modes, cv.Mode) {
			modes = append(modes, cv.Mode)
			smt, placement = cv.SMT, cv.Placement
		}
	}
	mode := ""
	switch {
	case len(modes) == 1:
		mode = modes[0]
	case len(modes) > 1:
		_, spread := seriesKinds(cs.Curves)
		mode = modeName(false, spread, smt, placement)
	}
	if mode != "" {
		name += ", " + mode
	}
	return name
}

// hasCPUSets reports whether a row of c is of a server CPU set.
func (c *Comparison) hasCPUSets() bool {
	return slices.ContainsFunc(c.Rows, func(r Row) bool { return r.Key.CPUs != "" })
}

// noteCPUs says, when rows of server CPU sets are there, how their per-vCPU
// figures are counted.
func (c *Comparison) noteCPUs() {
	if !c.PerCompute || !c.hasCPUSets() {
		return
	}
	c.Notes = append(c.Notes, "rows of a server CPU set (cpus=N: a server_cpus sweep's cell, a pinned server, a server limited to some CPUs) divide per-vCPU figures by the set's N CPUs, not the machine's")
}

// describeCaveat is a point's caveat with its figures for a footnote.
func describeCaveat(cv CPUCurve, p CPUPoint) string {
	who := cv.System
	if cv.Mode != "" {
		who += " " + cv.Mode
	}
	return fmt.Sprintf("%s at %d CPUs: per-CPU efficiency %.0f %% — %s", who, p.CPUs, p.Efficiency*100, p.Caveat)
}
