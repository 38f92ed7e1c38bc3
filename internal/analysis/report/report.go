// Package report turns comparisons of result files into reports: the tables of
// package analysis as text, Markdown, CSV or JSON, and one self-contained HTML
// file with charts (throughput and latency against threads with a line per
// system, the interval series with the warm-up shaded, cost and
// price-performance bars) — the charts drawn with gonum/plot as inline SVG, or
// written as PNG files for posts and slides. Reports only read results.
package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Options choose what a report shows.
type Options struct {
	// Title heads the report (default: the systems compared).
	Title string
	// Compare chooses the headline metric, the baseline and the statistics.
	Compare analysis.CompareOptions
	// LatencyPercentile is the latency charted against threads ("95"), or
	// several comma-separated ("95,99": a line each, the first solid, the
	// others dashed; a further percentile the results lack is left out);
	// empty leaves the latency charts out.
	LatencyPercentile string
	// BarThreads is the thread count of the chart with a bar group per test
	// case (0: the largest thread count every section has for every
	// system); Build refuses a count no system ran, naming those that
	// exist.
	BarThreads int
	// Cost, when set, adds the cost and price-performance section.
	Cost *CostSection
	// ReadResult reads a sample's result file for its interval series
	// (default result.Read); tests may substitute it.
	ReadResult func(path string) (*result.Result, error)
}

// CostSection is the cost-performance part of a report, computed by the cost
// model from a price sheet.
type CostSection struct {
	// Title is the section's short heading ("Cost and price-performance
	// over 5y"); Source says where the prices come from, in a note under it.
	Title, Source string
	// Headline is the cost's verdict in a sentence or two for the top of
	// the report ("ARM costs 18 % less per tpmC than x86 over 5y"); "" for
	// none.
	Headline []string
	// Text, Markdown and HTML are the cost tables as the cost command renders
	// them (HTML: fragments of cost.WriteHTML); the HTML report shows Text in
	// a <pre> only when HTML is empty.
	Text, Markdown string
	HTML           template.HTML
	// Baseline is the system the cost tables compare the others with.
	Baseline string
	// Monthly is each system's cost per month; PricePerformance its period
	// cost per unit of throughput (lower is better); PerDollar its throughput
	// per dollar (higher is better). Units name the bars' axes.
	Monthly, PricePerformance, PerDollar             []Bar
	MonthlyUnit, PricePerformanceUnit, PerDollarUnit string
}

// Report is a built report: the comparisons and the charts.
type Report struct {
	Title string
	// Headline is the verdict in sentences: analysis.Headline of the
	// comparison, then the cost's (CostSection.Headline).
	Headline   []string
	Systems    []*analysis.System
	Comparison *analysis.Comparison
	Latency    *analysis.Comparison // nil without a latency percentile
	// MoreLatency are the comparisons of the further latency percentiles.
	MoreLatency []*analysis.Comparison
	// Overview charts every test case side by side (a bar group each at
	// one thread count); nil with a single section or no common count.
	Overview *Chart
	Scaling  []analysis.Curve
	Sections []Section
	// CPUSections are the core-scaling charts, one per by-CPUs section of
	// the comparison (a workload run on several server CPU sets).
	CPUSections []CPUSection
	Cost        *CostSection
	CostCharts  []*Chart
}

// Section is one workload (key group) of the report with its charts.
type Section struct {
	Title  string
	Rows   []analysis.Row
	Charts []*Chart
	// Mixed says what the section's rows put together when they are mixed
	// (analysis.Row.Mixed, --allow-mixed); "" otherwise.
	Mixed string
	// Limits are what limited each cell's runs (their verdicts and notes);
	// nil when no run recorded a verdict.
	Limits []Limit
	// Scale is the section's scalability model by threads; nil when the
	// comparison has none (analysis.Comparison.Scaling).
	Scale *ScaleView
}

// CPUSection is throughput by server CPUs of one workload with its chart.
type CPUSection struct {
	Title string
	analysis.CPUSection
	Chart *Chart
	// Scale is the section's scalability model by server CPUs; nil when
	// the comparison has none.
	Scale *ScaleView
}

// Build compares the systems and draws the charts.
func Build(systems []*analysis.System, opts Options) (*Report, error) {
	if opts.ReadResult == nil {
		opts.ReadResult = result.Read
	}
	cmp, err := analysis.Compare(systems, opts.Compare)
	if err != nil {
		return nil, err
	}
	if err := checkBarThreads(cmp, opts.BarThreads); err != nil {
		return nil, err
	}
	r := &Report{Title: opts.Title, Systems: systems, Comparison: cmp, Cost: opts.Cost, Headline: analysis.Headline(cmp)}
	if opts.Cost != nil {
		r.Headline = append(r.Headline, opts.Cost.Headline...)
	}
	if r.Title == "" {
		r.Title = "fairbench: " + labels(systems)
	}
	for i, pc := range strings.Split(opts.LatencyPercentile, ",") {
		if pc = strings.TrimSpace(pc); pc == "" {
			continue
		}
		lopts := opts.Compare
		lopts.Metric = analysis.LatencyMetric(pc)
		lc, err := analysis.Compare(systems, lopts)
		switch {
		case err != nil && i == 0:
			return nil, fmt.Errorf("latency comparison: %w", err)
		case err != nil:
			continue
		case r.Latency == nil:
			r.Latency = lc
		default:
			r.MoreLatency = append(r.MoreLatency, lc)
		}
	}
	if !cmp.Metric.LowerIsBetter {
		for _, s := range systems {
			curves, err := analysis.Scalability(s, analysis.ScalingOptions{Metric: cmp.Metric, Center: cmp.Center})
			if err != nil {
				return nil, fmt.Errorf("scalability of %s: %w", s.Label, err)
			}
			r.Scaling = append(r.Scaling, curves...)
		}
	}
	for i, rows := range cmp.Sections() {
		sec := Section{Title: analysis.RowLabel(rows[0].Key), Rows: rows, Mixed: analysis.MixedString(rows[0].Mixed), Limits: limitsOf(cmp, rows)}
		id := fmt.Sprintf("s%d", i+1)
		sec.Charts = append(sec.Charts, lineChart(id+"-"+cmp.Metric.Name, cmp.Metric.Unit+" by threads", cmp.Metric.Unit, systems, rows))
		if lc := r.latencyChart(id+"-latency", rows[0].Key.Group()); lc != nil {
			sec.Charts = append(sec.Charts, lc)
		}
		if ts := timeSeries(id+"-series", systems, rows, opts.ReadResult); ts != nil {
			sec.Charts = append(sec.Charts, ts)
		}
		r.Sections = append(r.Sections, sec)
	}
	for i, cs := range cmp.ByCPUs {
		title := analysis.CPUSectionTitle(cs)
		r.CPUSections = append(r.CPUSections, CPUSection{Title: title, CPUSection: cs,
			Chart: cpuChart(fmt.Sprintf("cpus%d-%s", i+1, cmp.Metric.Name), cmp.Metric.Unit+" by server CPUs", cmp.Metric.Unit, systems, cs)})
	}
	r.scaleViews()
	r.Overview = overview(cmp, opts.BarThreads)
	if c := opts.Cost; c != nil {
		for _, b := range []struct {
			id, title, unit string
			bars            []Bar
		}{
			{"cost-monthly", "Cost per month (" + c.MonthlyUnit + ")", c.MonthlyUnit, c.Monthly},
			{"cost-priceperf", "Price-performance (lower is better)", c.PricePerformanceUnit, c.PricePerformance},
			{"cost-perdollar", "Throughput per dollar (higher is better)", c.PerDollarUnit, c.PerDollar},
		} {
			if len(b.bars) > 0 {
				r.CostCharts = append(r.CostCharts, &Chart{ID: b.id, Title: b.title, YLabel: b.unit, Bars: b.bars})
			}
		}
	}
	return r, nil
}

func labels(systems []*analysis.System) string {
	s := ""
	for i, sys := range systems {
		if i > 0 {
			s += " vs "
		}
		s += sys.Label
	}
	return s
}

// matching returns the rows of c in key group g.
func matching(c *analysis.Comparison, g analysis.Key) []analysis.Row {
	for _, rows := range c.Sections() {
		if rows[0].Key.Group() == g {
			return rows
		}
	}
	return nil
}

// lineChart draws one line per system over the thread counts of rows, with
// the confidence interval of every cell that has rounds.
func lineChart(id, title, unit string, systems []*analysis.System, rows []analysis.Row) *Chart {
	c := &Chart{ID: id, Title: title, XLabel: "threads", YLabel: unit, ThreadAxis: true}
	c.Series = systemSeries(systems, rows, "", 0)
	c.Caption = c.intervalCaption()
	return c
}

// systemSeries is a line per system over rows' thread counts, labelled
// "system" + suffix; Lo and Hi are set when some cell has a confidence
// interval.
func systemSeries(systems []*analysis.System, rows []analysis.Row, suffix string, dashes int) []Series {
	var out []Series
	for i, s := range systems {
		ser := Series{Label: s.Label + suffix, Color: i, Dashes: dashes}
		withCI := false
		for _, row := range rows {
			cl := row.Cells[i]
			if math.IsNaN(cl.Value) {
				continue
			}
			ser.X = append(ser.X, float64(row.Key.Threads))
			ser.Y = append(ser.Y, cl.Value)
			lo, hi := ciOf(cl.Stats)
			ser.Lo, ser.Hi = append(ser.Lo, lo), append(ser.Hi, hi)
			withCI = withCI || !math.IsNaN(lo)
		}
		if !withCI {
			ser.Lo, ser.Hi = nil, nil
		}
		if len(ser.X) > 0 {
			out = append(out, ser)
		}
	}
	return out
}

// ciOf is the confidence interval of a figure's rounds, NaN without two.
func ciOf(st analysis.Stats) (lo, hi float64) {
	if st.N < 2 || math.IsNaN(st.CILo) {
		return math.NaN(), math.NaN()
	}
	return st.CILo, st.CIHi
}

// latencyChart draws the latency percentiles of a section against threads:
// a line per system and percentile (the first percentile solid, the others
// dashed); nil without latency figures for the section. Its title leaves
// the section out (the section's heading names it).
func (r *Report) latencyChart(id string, g analysis.Key) *Chart {
	if r.Latency == nil {
		return nil
	}
	all := append([]*analysis.Comparison{r.Latency}, r.MoreLatency...)
	var units []string
	c := &Chart{ID: id, XLabel: "threads", YLabel: "ms", ThreadAxis: true}
	for k, lc := range all {
		rows := matching(lc, g)
		if len(rows) == 0 {
			continue
		}
		name := strings.TrimSuffix(lc.Metric.Unit, " ms")
		suffix := ""
		if len(all) > 1 {
			suffix = " " + name
		}
		units = append(units, name)
		c.Series = append(c.Series, systemSeries(r.Systems, rows, suffix, k)...)
	}
	if len(c.Series) == 0 {
		return nil
	}
	c.Title = strings.Join(units, ", ") + " latency (ms) by threads"
	c.Caption = c.intervalCaption()
	return c
}

// overview charts every section of cmp as a bar group of the systems at
// one thread count (threads, or the largest every section has for every
// system), each figure as a percentage of the baseline's in its section
// (baseline = 100) with its confidence interval on the same scale; nil with
// fewer than two sections or systems, or no such thread count. Relative,
// because test cases differ by orders of magnitude (a read-write transaction
// against a point select): on one absolute axis the small ones are slivers,
// and the seeds state every comparison as "% ARM-vs-x86" anyway; each
// section's own chart has the absolute figures. A section of a server CPU
// set is labelled with it ("oltp_read_only · 2 CPUs") and compares the
// systems on that set; a group with the baseline's bar alone (100 % of
// itself) is left out.
func overview(cmp *analysis.Comparison, threads int) *Chart {
	sections := cmp.Sections()
	if len(sections) < 2 || len(cmp.Systems) < 2 {
		return nil
	}
	if threads == 0 {
		count := map[int]int{}
		for _, rows := range sections {
			for _, row := range rows {
				if !slices.ContainsFunc(row.Cells, func(c analysis.Cell) bool { return c.Stats.N == 0 }) {
					count[row.Key.Threads]++
				}
			}
		}
		for t, n := range count {
			if n == len(sections) && t > threads {
				threads = t
			}
		}
		if threads == 0 {
			return nil
		}
	}
	base := cmp.BaselineSystem().Label
	c := &Chart{ID: "overview", Title: fmt.Sprintf("%s by test case at %d threads, %% of %s", cmp.Metric.Unit, threads, base),
		YLabel: fmt.Sprintf("%% of %s's %s", base, cmp.Metric.Unit), Relative: true}
	sets := false
	for _, rows := range sections {
		i := slices.IndexFunc(rows, func(r analysis.Row) bool { return r.Key.Threads == threads })
		if i < 0 {
			continue
		}
		ref := rows[i].Cells[cmp.Baseline].Value
		if math.IsNaN(ref) || ref == 0 {
			continue
		}
		g := BarGroup{Label: rows[i].Key.Workload}
		if set := cmp.CPUSetName(rows[i].Key); set != "" {
			g.Label += groupLabelSep + set
		}
		for j, cl := range rows[i].Cells {
			if math.IsNaN(cl.Value) {
				continue
			}
			lo, hi := ciOf(cl.Stats)
			g.Bars = append(g.Bars, Bar{Label: cmp.Systems[j].Label, Value: cl.Value / ref * 100, Color: j, Lo: lo / ref * 100, Hi: hi / ref * 100})
		}
		if len(g.Bars) < 2 {
			continue
		}
		sets = sets || rows[i].Key.CPUs != ""
		c.Groups = append(c.Groups, g)
	}
	if len(c.Groups) == 0 {
		return nil
	}
	c.Caption = fmt.Sprintf("Each test case's %s at %d threads as a percentage of %s's (%s = 100; %s). Error bars: each system's %g %% confidence interval on the same scale (log scale, never below zero; none for a figure of one round). The figures themselves are in each test case's section.",
		cmp.Metric.Unit, threads, base, base, map[bool]string{true: "lower is better", false: "higher is better"}[cmp.Metric.LowerIsBetter], cmp.Confidence*100)
	if sets {
		c.Caption += " A test case labelled with a server CPU set compares the systems on that set; how each scales with CPUs is in its section by server CPUs."
	}
	return c
}

// groupLabelSep separates a bar group's workload from what qualifies it
// ("oltp_read_only · 2 CPUs"); the chart breaks the line there.
const groupLabelSep = " · "

// checkBarThreads refuses a thread count for the overview chart (0: the
// default) that no system ran in the comparison, naming the counts that
// exist.
func checkBarThreads(cmp *analysis.Comparison, threads int) error {
	if threads == 0 {
		return nil
	}
	var have []int
	for _, row := range cmp.Rows {
		if slices.ContainsFunc(row.Cells, func(c analysis.Cell) bool { return c.Stats.N > 0 }) && !slices.Contains(have, row.Key.Threads) {
			have = append(have, row.Key.Threads)
		}
	}
	if slices.Contains(have, threads) {
		return nil
	}
	slices.Sort(have)
	counts := make([]string, len(have))
	for i, t := range have {
		counts[i] = strconv.Itoa(t)
	}
	return fmt.Errorf("--bar-threads %d: no system ran %d threads in the rows compared; choose one of %s", threads, threads, strings.Join(counts, ", "))
}

// cpuChart is the core-scaling chart (seed 002): throughput at each CPU
// set's best thread count by server CPUs, one line per system and series
// (a system keeps its colour; one thread per core is dashed) with each
// point's confidence interval, and each series' ideal linear scaling from
// its smallest set (its figure × CPUs ÷ its CPUs), dotted.
func cpuChart(id, title, unit string, systems []*analysis.System, cs analysis.CPUSection) *Chart {
	c := &Chart{ID: id, Title: title, XLabel: "server CPUs", YLabel: unit + " at the best thread count", ThreadAxis: true}
	for _, cv := range cs.Curves {
		ser := Series{Label: cv.System, Color: slices.IndexFunc(systems, func(s *analysis.System) bool { return s.Label == cv.System }), Dashes: dashesIf(cv.SMT != "")}
		if cv.Mode != "" {
			ser.Label += " " + cv.Mode
		}
		ideal := Series{Label: ser.Label + " ideal linear", Color: ser.Color}
		withCI := false
		for _, p := range cv.Points {
			ser.X = append(ser.X, float64(p.CPUs))
			ser.Y = append(ser.Y, p.Value)
			lo, hi := ciOf(p.Stats)
			ser.Lo, ser.Hi = append(ser.Lo, lo), append(ser.Hi, hi)
			withCI = withCI || !math.IsNaN(lo)
			ideal.X = append(ideal.X, float64(p.CPUs))
			ideal.Y = append(ideal.Y, cv.Points[0].Value*float64(p.CPUs)/float64(cv.BaseCPUs))
		}
		if !withCI {
			ser.Lo, ser.Hi = nil, nil
		}
		c.Series = append(c.Series, ser)
		if len(ideal.X) > 1 && !slices.ContainsFunc(c.Ideal, func(s Series) bool {
			return s.Color == ideal.Color && slices.Equal(s.X, ideal.X) && slices.Equal(s.Y, ideal.Y)
		}) {
			c.Ideal = append(c.Ideal, ideal)
		}
	}
	c.Caption = c.intervalCaption()
	if len(c.Ideal) > 0 {
		c.Caption = strings.TrimSpace(c.Caption + " Dotted lines: ideal linear scaling of each series from its smallest set (its figure × CPUs ÷ its CPUs).")
	}
	return c
}

// outageSpans returns the spans of res's outages on its intervals' time axis
// (seconds from the start of the warm-up), clipped to the run: those of
// lost connections (away) and the stalls apart; measured is where the
// measured phase (res.Start) begins on that axis: the end of the last
// warm-up interval.
func outageSpans(res *result.Result, measured float64) (away, stalls [][2]float64) {
	last := res.Intervals[len(res.Intervals)-1].At
	for _, o := range res.Outages {
		a := measured + o.Start.Sub(res.Start).Seconds()
		b := a + o.Seconds
		a, b = math.Max(a, 0), math.Min(b, last)
		switch {
		case b <= a:
		case o.Stall:
			stalls = append(stalls, [2]float64{a, b})
		default:
			away = append(away, [2]float64{a, b})
		}
	}
	return away, stalls
}

// timeSeries charts the throughput over time of each system's run at the
// largest thread count of the section, warm-up shaded; nil when no result
// file holds intervals. Of several rounds it charts each system's first
// (lowest-numbered), and the title says which round of how many (not the
// section: its heading names it).
func timeSeries(id string, systems []*analysis.System, rows []analysis.Row, read func(string) (*result.Result, error)) *Chart {
	row := rows[len(rows)-1]
	c := &Chart{XLabel: "seconds", YLabel: "tps"}
	type shown struct {
		label         string
		round, rounds int
	}
	var charted []shown
	for i, s := range systems {
		var file string
		round, rounds := math.MaxInt, 0
		for _, sm := range s.Samples {
			if !row.Holds(sm.Key) {
				continue
			}
			rounds++
			if sm.File != "" && sm.Round < round {
				file, round = sm.File, sm.Round
			}
		}
		if file == "" {
			continue
		}
		res, err := read(file)
		if err != nil || len(res.Intervals) == 0 {
			continue
		}
		ser := Series{Label: s.Label, Color: i}
		warmEnd := 0.0
		// Results written before the runner folded a trailing sliver still
		// end with one, and a run may end between two ticks: charted, such
		// an interval's rate is a plunge or a spike.
		for _, iv := range result.ChartIntervals(res.Intervals) {
			ser.X = append(ser.X, iv.At)
			ser.Y = append(ser.Y, iv.TPS)
			if iv.Warmup {
				warmEnd = math.Max(warmEnd, iv.At)
			}
		}
		if warmEnd > 0 && len(c.Shade) == 0 {
			c.Shade = append(c.Shade, [2]float64{0, warmEnd})
		}
		away, stalls := outageSpans(res, warmEnd)
		c.Outages = append(c.Outages, away...)
		c.Stalls = append(c.Stalls, stalls...)
		c.Series = append(c.Series, ser)
		charted = append(charted, shown{s.Label, round, rounds})
	}
	if len(c.Series) == 0 {
		return nil
	}
	which := ""
	same := !slices.ContainsFunc(charted, func(s shown) bool { return s.round != charted[0].round || s.rounds != charted[0].rounds })
	switch {
	case same && charted[0].rounds > 1:
		which = fmt.Sprintf(", round %d of %d", charted[0].round, charted[0].rounds)
	case !same:
		var each []string
		for _, s := range charted {
			each = append(each, fmt.Sprintf("%s round %d of %d", s.label, s.round, s.rounds))
		}
		which = ", " + strings.Join(each, "; ")
	}
	c.ID, c.Title = id, fmt.Sprintf("tps over time at %d threads%s", row.Key.Threads, which)
	return c
}

// Charts returns every chart of the report in order.
func (r *Report) Charts() []*Chart {
	var out []*Chart
	if r.Overview != nil {
		out = append(out, r.Overview)
	}
	for _, s := range r.Sections {
		out = append(out, s.Charts...)
		if s.Scale != nil && s.Scale.Chart != nil {
			out = append(out, s.Scale.Chart)
		}
	}
	for _, s := range r.CPUSections {
		out = append(out, s.Chart)
		if s.Scale != nil && s.Scale.Chart != nil {
			out = append(out, s.Scale.Chart)
		}
	}
	return append(out, r.CostCharts...)
}

// dashesIf is a series' Dashes: 1 (dashed) when dashed, else 0 (solid).
func dashesIf(dashed bool) int {
	if dashed {
		return 1
	}
	return 0
}
