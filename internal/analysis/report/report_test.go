package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/result"
)

// writeSystem writes the results of one made-up machine into a directory: two
// workloads × threads 1, 2, 4 × two rounds, each with a warm-up and a series.
func writeSystem(t *testing.T, arch, cpu string, ghz float64, speed float64, workloads ...string) string {
	t.Helper()
	dir := t.TempDir()
	m := result.Machine{Arch: arch, CPUModel: cpu, LogicalCPUs: 8, MHz: ghz * 1000}
	n := 0
	if len(workloads) == 0 {
		workloads = []string{"oltp_point_select", "oltp_read_write"}
	}
	for _, wl := range workloads {
		for _, threads := range []int{1, 2, 4} {
			for round := 1; round <= 2; round++ {
				tps := speed * float64(threads) * (1 + 0.01*float64(round))
				if wl == "oltp_read_write" {
					tps /= 20
				}
				res := &result.Result{
					Schema: result.SchemaVersion, Tool: result.Tool{Name: "fairbench", Version: "test"},
					Workload: wl, Threads: threads, Status: result.StatusComplete, Machine: m,
					Target:  result.Target{Driver: "mysql", Socket: "/run/mysqld/mysqld.sock"},
					Options: map[string]string{"rand-type": "uniform", "threads": strconv.Itoa(threads)},
					Start:   time.Date(2026, 11, 22, 4, 0, n, 0, time.UTC),
					Totals: result.Phase{Seconds: 10, TPS: tps, QPS: tps * 20,
						Latency: result.Latency{Percentiles: map[string]float64{"95": 1000 / tps * float64(threads)}}},
				}
				for s := 1; s <= 12; s++ {
					res.Intervals = append(res.Intervals, result.Interval{At: float64(s), Seconds: 1, Warmup: s <= 2, Threads: threads, TPS: tps * (0.9 + 0.01*float64(s))})
				}
				n++
				if err := result.Write(filepath.Join(dir, fmt.Sprintf("r%02d.json", n)), res); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return dir
}

func buildReport(t *testing.T) *Report {
	t.Helper()
	arm, err := analysis.Load(writeSystem(t, "arm64", "Neoverse-N1", 2.6, 1000), "arm")
	if err != nil {
		t.Fatal(err)
	}
	x86, err := analysis.Load(writeSystem(t, "x86_64", "Xeon Gold 6266C", 3.0, 1100), "x86")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{arm, x86}, Options{
		Compare:           analysis.CompareOptions{Metric: analysis.MetricTPS, Baseline: "x86"},
		LatencyPercentile: "95",
		Cost: &CostSection{Title: "made-up prices", Text: "arm 100 USD/month\nx86 150 USD/month",
			Monthly: []Bar{{Label: "arm", Value: 100, Color: 0}, {Label: "x86", Value: 150, Color: 1}}, MonthlyUnit: "USD/month",
			PricePerformance: []Bar{{Label: "arm", Value: 0.1, Color: 0}, {Label: "x86", Value: 0.12, Color: 1}}, PricePerformanceUnit: "USD per tps"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBuildDrawsEveryChart(t *testing.T) {
	r := buildReport(t)
	if len(r.Sections) != 2 {
		t.Fatalf("%d sections, want one per workload", len(r.Sections))
	}
	for _, sec := range r.Sections {
		var ids []string
		for _, c := range sec.Charts {
			ids = append(ids, c.ID)
			if len(c.Series) != 2 {
				t.Errorf("chart %s has %d series, want one per system", c.ID, len(c.Series))
			}
		}
		if len(sec.Charts) != 3 {
			t.Errorf("section %s charts %v: want throughput, latency and series", sec.Title, ids)
		}
		series := sec.Charts[2]
		if len(series.Shade) != 1 || series.Shade[0] != [2]float64{0, 2} {
			t.Errorf("series chart shades %v, want the warm-up [0,2]", series.Shade)
		}
		if !strings.HasSuffix(series.Title, "tps over time at 4 threads, round 1 of 2") {
			t.Errorf("series chart title %q does not say which of the 2 rounds it charts", series.Title)
		}
	}
	if len(r.CostCharts) != 2 {
		t.Errorf("%d cost charts", len(r.CostCharts))
	}
	for _, c := range r.Charts() {
		b, err := c.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() < 300 {
			t.Errorf("chart %s PNG: %v", c.ID, err)
		}
	}
}

func TestWritePNGs(t *testing.T) {
	r := buildReport(t)
	dir := filepath.Join(t.TempDir(), "png")
	files, err := r.WritePNGs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(r.Charts()) {
		t.Errorf("%d files for %d charts", len(files), len(r.Charts()))
	}
}

// TestHTMLJudgesTheServerMachine: the systems table names the machine under
// test and where it came from (a socket target: the client machine), and
// what differs between the systems comes first.
func TestHTMLJudgesTheServerMachine(t *testing.T) {
	var html bytes.Buffer
	if err := buildReport(t).WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for _, want := range []string{
		`<table id="differences">`, "<td>server machine</td><td>arm64 Neoverse-N1 ×8</td><td>x86_64 Xeon Gold 6266C ×8</td>",
		"<th>server machine</th>", "arm64 Neoverse-N1 ×8, from machine (socket target), 8 vCPU (machine (socket target)), 2.60 GHz (machine (socket target): cpuinfo MHz)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Index(page, `id="differences"`) > strings.Index(page, `id="systems"`) {
		t.Errorf("what differs is not first")
	}
}

func TestWriteScalingGolden(t *testing.T) {
	r := buildReport(t)
	for _, md := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteScaling(&b, r.Scaling, md); err != nil {
			t.Fatal(err)
		}
		name := map[bool]string{false: "scaling.txt.golden", true: "scaling.md.golden"}[md]
		checkGolden(t, name, b.Bytes())
	}
}

func TestSystemsKeepTheirColours(t *testing.T) {
	// The first system lacks oltp_read_write: in its charts the x86 line is
	// the only one and must keep the x86 colour.
	arm, err := analysis.Load(writeSystem(t, "arm64", "Neoverse-N1", 2.6, 1000, "oltp_point_select"), "arm")
	if err != nil {
		t.Fatal(err)
	}
	x86, err := analysis.Load(writeSystem(t, "x86_64", "Xeon", 3.0, 1100), "x86")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{arm, x86}, Options{LatencyPercentile: "95"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Charts() {
		for _, s := range c.Series {
			if want := map[string]int{"arm": 0, "x86": 1}[s.Label]; s.Color != want {
				t.Errorf("chart %s: %s has colour %d, want %d", c.ID, s.Label, s.Color, want)
			}
		}
	}
}

// TestTimeSeriesOfAMixedSection: a row that --allow-mixed made of different
// data sets still charts each system's series (its samples are filed under
// their own keys, not the row's).
func TestTimeSeriesOfAMixedSection(t *testing.T) {
	dirs := []string{writeSystem(t, "arm64", "Neoverse-N1", 2.6, 1000, "oltp_point_select"), writeSystem(t, "x86_64", "Xeon Gold 6266C", 3.0, 1100, "oltp_point_select")}
	var systems []*analysis.System
	for i, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			res, err := result.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			res.Options["tables"], res.Options["table-size"] = strconv.Itoa(i+1), "1000"
			if err := result.Write(f, res); err != nil {
				t.Fatal(err)
			}
		}
		s, err := analysis.Load(dir, []string{"arm", "x86"}[i])
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	r, err := Build(systems, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS, AllowMixed: true}, ReadResult: result.Read})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sections) != 1 || r.Sections[0].Mixed == "" {
		t.Fatalf("sections %+v, want one mixed section", r.Sections)
	}
	var series *Chart
	for _, c := range r.Sections[0].Charts {
		if strings.HasSuffix(c.ID, "-series") {
			series = c
		}
	}
	if series == nil || len(series.Series) != 2 {
		t.Fatalf("the mixed section charts no series of both systems: %+v", r.Sections[0].Charts)
	}
	if !strings.Contains(series.Title, "round 1 of 2") {
		t.Errorf("series title %q does not say the round", series.Title)
	}
}

// A result of a run from before the runner folded the trailing sliver ends
// with an interval of a millisecond after the last full one, with a rate of
// its own (2 events over 0.8 ms: 2,500 tps). The series chart folds it into
// the last interval: no point past it, no plunge or spike.
func TestTimeSeriesFoldsATrailingSliver(t *testing.T) {
	dir := writeSystem(t, "arm64", "Neoverse-N1", 2.6, 1000, "oltp_point_select")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		last := res.Intervals[len(res.Intervals)-1]
		last.Counts.Events = int64(last.TPS)
		res.Intervals[len(res.Intervals)-1] = last
		res.Intervals = append(res.Intervals, result.Interval{At: last.At + 0.0008, Seconds: 0.0008, Threads: last.Threads,
			Counts: result.Counters{Events: 2}, TPS: 2500})
		if err := result.Write(f, res); err != nil {
			t.Fatal(err)
		}
	}
	s, err := analysis.Load(dir, "arm")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{s}, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS}, ReadResult: result.Read})
	if err != nil {
		t.Fatal(err)
	}
	var series *Chart
	for _, c := range r.Sections[0].Charts {
		if strings.HasSuffix(c.ID, "-series") {
			series = c
		}
	}
	if series == nil || len(series.Series) != 1 {
		t.Fatalf("no series chart: %+v", r.Sections[0].Charts)
	}
	ser := series.Series[0]
	if len(ser.X) != 12 {
		t.Fatalf("%d points at %v, want the 12 intervals with the sliver folded into the last", len(ser.X), ser.X)
	}
	lastY, prevY := ser.Y[len(ser.Y)-1], ser.Y[len(ser.Y)-2]
	if lastY > 1.1*prevY || lastY < 0.9*prevY {
		t.Errorf("last point %v tps after %v: the sliver's rate moved it", lastY, prevY)
	}
}

// TestTimeSeriesShadesOutages: the spans during which a charted run's server
// was away, and those it stalled, are shaded apart on its throughput chart,
// at their place on the intervals' time axis (seconds from the start of the
// warm-up), each with a legend entry.
func TestTimeSeriesShadesOutages(t *testing.T) {
	dir := writeSystem(t, "arm64", "Neoverse-N1", 2.6, 1000, "oltp_point_select")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		// The fixture's warm-up is its first 2 one-second intervals.
		res.Outages = []result.Outage{
			{Start: res.Start.Add(3 * time.Second), Seconds: 2, Threads: 4},
			{Start: res.Start.Add(8 * time.Second), Seconds: 100, Threads: 4, Unrecovered: 4, Stall: true}, // clipped to the last interval
		}
		if err := result.Write(f, res); err != nil {
			t.Fatal(err)
		}
	}
	s, err := analysis.Load(dir, "arm")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{s}, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS}, ReadResult: result.Read})
	if err != nil {
		t.Fatal(err)
	}
	var series *Chart
	for _, c := range r.Sections[0].Charts {
		if strings.HasSuffix(c.ID, "-series") {
			series = c
		}
	}
	if series == nil {
		t.Fatalf("no series chart: %+v", r.Sections[0].Charts)
	}
	last := series.Series[0].X[len(series.Series[0].X)-1]
	if want := [][2]float64{{5, 7}}; !slices.Equal(series.Outages, want) {
		t.Errorf("outage bands %v, want %v", series.Outages, want)
	}
	if want := [][2]float64{{10, last}}; !slices.Equal(series.Stalls, want) {
		t.Errorf("stall bands %v, want %v", series.Stalls, want)
	}
	svg, err := series.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("server away")) || !bytes.Contains(svg, []byte(">stall<")) {
		t.Errorf("the chart's SVG lacks a legend entry for the outage or the stall bands")
	}
	// A chart without outages has no such legend entries.
	series.Outages, series.Stalls = nil, nil
	if svg, _ := series.SVG(); bytes.Contains(svg, []byte("server away")) || bytes.Contains(svg, []byte(">stall<")) {
		t.Errorf("a chart without outages has a legend entry for them")
	}
}

// sweepReport is a report of two systems' server_cpus sweeps (the fixtures
// of package analysis, made from a real run's result), its overview at 4
// threads.
func sweepReport(t *testing.T) *Report {
	t.Helper()
	return sweepReportOf(t, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS}, BarThreads: 4}, "x86", "arm")
}

// sweepReportOf is the report of the sweep fixtures of the systems named
// (x86, arm) with opts.
func sweepReportOf(t *testing.T, opts Options, labels ...string) *Report {
	t.Helper()
	var systems []*analysis.System
	for _, l := range labels {
		s, err := analysis.Load(sweepDir(l), l)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	r, err := Build(systems, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sweepDir is the directory of a system's sweep fixture.
func sweepDir(label string) string {
	return filepath.Join("..", "testdata", "cpusweep", label)
}

// TestCoreScalingChart: the core-scaling chart has one line per system and
// SMT mode (one per core dashed) over the CPU counts, each point with its
// confidence interval, and a dotted ideal linear line per series from its
// smallest set (x86's two series share theirs: both start at 5000 tps on 1
// CPU); the HTML holds it with its caption, the table and the caveat of
// arm's 107 % per CPU.
func TestCoreScalingChart(t *testing.T) {
	r := sweepReport(t)
	if len(r.CPUSections) != 1 {
		t.Fatalf("%d core-scaling sections, want 1", len(r.CPUSections))
	}
	c := r.CPUSections[0].Chart
	var got []string
	for _, s := range c.Series {
		got = append(got, fmt.Sprintf("%s color=%d dashed=%v x=%v y=%v", s.Label, s.Color, s.Dashes > 0, s.X, s.Y))
	}
	want := []string{
		"x86 with SMT siblings color=0 dashed=false x=[1 2 4] y=[5000 6500 13000]",
		"x86 one per core color=0 dashed=true x=[1 2 4] y=[5000 10000 19000]",
		"arm no SMT siblings color=1 dashed=false x=[1 2 4] y=[4000 8560 15200]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("series\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, cv := range r.CPUSections[0].Curves {
		s := c.Series[i]
		for j, p := range cv.Points {
			if len(s.Lo) != len(s.X) || s.Lo[j] != p.Stats.CILo || s.Hi[j] != p.Stats.CIHi || !(s.Lo[j] < s.Y[j] && s.Y[j] < s.Hi[j]) {
				t.Errorf("%s at %d CPUs: interval %v–%v, want the point's %v–%v around %v", s.Label, p.CPUs, s.Lo, s.Hi, p.Stats.CILo, p.Stats.CIHi, s.Y[j])
				break
			}
		}
	}
	got = nil
	for _, s := range c.Ideal {
		got = append(got, fmt.Sprintf("color=%d x=%v y=%v", s.Color, s.X, s.Y))
	}
	want = []string{"color=0 x=[1 2 4] y=[5000 10000 20000]", "color=1 x=[1 2 4] y=[4000 8000 16000]"}
	if !slices.Equal(got, want) {
		t.Errorf("ideal lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, want := range []string{"Bands and error bars: 95 % confidence intervals", "Dotted lines: ideal linear scaling"} {
		if !strings.Contains(c.Caption, want) {
			t.Errorf("caption %q lacks %q", c.Caption, want)
		}
	}
	if strings.Contains(c.Caption, "one round") {
		t.Errorf("caption %q speaks of one round: every point has several", c.Caption)
	}
	if !slices.Contains(legendNames(c), idealLegend) {
		t.Errorf("legend %v lacks %q", legendNames(c), idealLegend)
	}
	if !slices.Contains(r.Charts(), c) {
		t.Error("the chart is not among the report's charts")
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<h2>oltp_point_select (uniform, default, 1x1000, transport=socket) by server CPUs</h2>`,
		`id="` + c.ID + `"><div class="wide"><svg`,
		`<figcaption class="note">` + template.HTMLEscapeString(c.Caption) + `</figcaption>`,
		`<td>2</td><td>arm</td><td>no SMT siblings</td><td>8560`,
		`107% ` + analysis.SuperlinearMark,
		analysis.SuperlinearMark + ` arm no SMT siblings at 2 CPUs: ` + analysis.CaveatNoise,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, "charts"); err != nil {
		t.Fatal(err)
	}
	if want := "](charts/" + c.ID + ".png)"; !strings.Contains(md.String(), want) {
		t.Errorf("the Markdown report lacks the core-scaling chart %q", want)
	}
}

// TestCoreScalingChartOfOneRound: a sweep of one round per set has no
// interval to draw, and the caption says that its points rest on one round.
func TestCoreScalingChartOfOneRound(t *testing.T) {
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(sweepDir("x86"), "*-r1.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no first rounds in the fixture: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x86, err := analysis.Load(dir, "x86")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{x86}, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.CPUSections) != 1 {
		t.Fatalf("%d core-scaling sections, want 1", len(r.CPUSections))
	}
	c := r.CPUSections[0].Chart
	for _, s := range c.Series {
		if s.Lo != nil || s.Hi != nil {
			t.Errorf("%s: intervals %v–%v of single rounds", s.Label, s.Lo, s.Hi)
		}
	}
	if len(c.Ideal) == 0 {
		t.Error("no ideal linear line")
	}
	if !strings.Contains(c.Caption, "A point without an error bar has no interval: it rests on one round.") || strings.Contains(c.Caption, "Bands and error bars") {
		t.Errorf("caption %q; want it to say the points rest on one round, and nothing of intervals", c.Caption)
	}
}

// TestOverviewOfCoreSweeps: the overview labels a test case on a server CPU
// set with the set, and compares the systems on that set (arm's 4-thread
// figure against x86's at 1, 2 and 4 CPUs); a set only the baseline ran
// (x86's one per core) has no group — its bar would be 100 % of itself —
// and a report of one system has no overview at all.
func TestOverviewOfCoreSweeps(t *testing.T) {
	o := sweepReport(t).Overview
	if o == nil {
		t.Fatal("no overview")
	}
	want := map[string]float64{
		"oltp_point_select · 1 CPU":  4000.0 / 5000,
		"oltp_point_select · 2 CPUs": 8560.0 / 6500,
		"oltp_point_select · 4 CPUs": 15200.0 / 13000,
	}
	var labels []string
	for _, g := range o.Groups {
		labels = append(labels, g.Label)
		if len(g.Bars) != 2 || g.Bars[0].Label != "x86" || g.Bars[0].Value != 100 || g.Bars[1].Label != "arm" {
			t.Errorf("group %s: bars %+v; want x86 at 100 and arm", g.Label, g.Bars)
			continue
		}
		if r, ok := want[g.Label]; !ok || math.Abs(g.Bars[1].Value-100*r) > 0.01 {
			t.Errorf("group %s: arm at %.2f %% of x86, want %.2f", g.Label, g.Bars[1].Value, 100*r)
		}
	}
	if len(labels) != len(want) {
		t.Errorf("groups %q, want the %d sets both systems ran", labels, len(want))
	}
	if !strings.Contains(o.Caption, "labelled with a server CPU set compares the systems on that set") {
		t.Errorf("caption %q does not say how a CPU set's bars compare", o.Caption)
	}
	if one := sweepReportOf(t, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS}, BarThreads: 4}, "x86"); one.Overview != nil {
		t.Errorf("a report of one system has an overview: %+v", one.Overview.Groups)
	}
}

func TestWriteCPUScalingGolden(t *testing.T) {
	r := sweepReport(t)
	for _, md := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteCPUScaling(&b, r.Comparison.ByCPUs, md); err != nil {
			t.Fatal(err)
		}
		name := map[bool]string{false: "cpuscaling.txt.golden", true: "cpuscaling.md.golden"}[md]
		checkGolden(t, name, b.Bytes())
	}
}

// TestMainTableColumnsAndCaveats: the HTML main table has the seeds'
// columns (each system's figure, the frequency-scaled figure, % and scaled
// %, p) under headings with units and a legend under it; a figure resting on
// one round is flagged in the HTML cell and in a caveat under the text and
// Markdown tables; a difference that rounds to zero shows as 0 %, never
// "-0%".
func TestMainTableColumnsAndCaveats(t *testing.T) {
	// arm is 0.3 % slower than x86: every % rounds to zero.
	armDir := writeSystem(t, "arm64", "Neoverse-N1", 3.0, 997, "oltp_point_select")
	// arm's second round at 2 threads goes: that figure rests on one round.
	files, _ := filepath.Glob(filepath.Join(armDir, "*.json"))
	for _, f := range files {
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if res.Threads == 2 && res.Totals.TPS > 2*997*1.015 {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	arm, err := analysis.Load(armDir, "arm")
	if err != nil {
		t.Fatal(err)
	}
	x86, err := analysis.Load(writeSystem(t, "x86_64", "Xeon", 3.0, 1000, "oltp_point_select"), "x86")
	if err != nil {
		t.Fatal(err)
	}
	// Different frequencies make the comparison frequency-scaled.
	x86.GHz = 3.5
	r, err := Build([]*analysis.System{arm, x86}, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS, Baseline: "x86"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Comparison.Scaled {
		t.Fatal("the comparison is not frequency-scaled")
	}
	var html, text, md bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md, ""); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for _, want := range []string{
		"<th>threads</th><th>arm (tps)</th><th>x86 (tps)</th><th>arm fscaled (tps at 3.5 GHz)</th><th>% arm vs x86</th><th>% arm fscaled vs x86</th><th>95 % CI of % arm vs x86</th>",
		`<span class="caveat">(one round)</span>`,
		`<div class="legend">`, "fscaled: the value at the baseline&#39;s frequency", "? marks an interval that holds no change: the rounds could not tell",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	if n := strings.Count(page, `<span class="caveat">(one round)</span>`); n != 1 {
		t.Errorf("%d figures flagged as one round, want 1 (arm at 2 threads)", n)
	}
	caveat := "Caveat — figures resting on one round (no spread known, no test possible): arm at 2 threads."
	for name, out := range map[string]string{"HTML": page, "text": text.String(), "Markdown": md.String()} {
		if name != "HTML" && !strings.Contains(out, caveat) {
			t.Errorf("the %s report lacks the caveat %q", name, caveat)
		}
		if regexp.MustCompile(`-0(%| |\|)`).MatchString(out) || strings.Contains(out, "−0") {
			t.Errorf("the %s report shows a negative zero:\n%s", name, out)
		}
	}
	if !strings.Contains(page, "<td>0%</td>") && !strings.Contains(page, `<td class="ns">0% ?</td>`) {
		t.Errorf("the HTML shows no 0%% difference")
	}
}
