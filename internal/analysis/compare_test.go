package analysis

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// roundsSystem builds a system whose oltp_read_write cells have the given tps
// rounds per thread count.
func roundsSystem(t *testing.T, label string, m result.Machine, rounds map[int][]float64) *System {
	t.Helper()
	var runs []fakeRun
	threads := make([]int, 0, len(rounds))
	for th := range rounds {
		threads = append(threads, th)
	}
	slices.Sort(threads)
	for _, th := range threads {
		for _, v := range rounds[th] {
			runs = append(runs, fakeRun{machine: m, server: mysql8, threads: th, tps: v, qps: 20 * v})
		}
	}
	return mustSystem(t, label, runs...)
}

// roundsComparison is three systems with several rounds: graviton is clearly
// faster than x86 at 1 thread, the same at 4, and has one round at 16;
// kunpeng has 3 and 2 rounds and no 16-thread cell.
func roundsComparison(t *testing.T) *Comparison {
	t.Helper()
	kunpeng := armMachine
	kunpeng.MHz = 2600
	systems := []*System{
		roundsSystem(t, "x86", x86Machine, map[int][]float64{
			1: {1000, 1010, 990, 1005, 995}, 4: {3800, 3810, 3790, 3805, 3795}, 16: {9000, 9100, 8900, 9050, 8950}}),
		roundsSystem(t, "graviton", n1Machine, map[int][]float64{
			1: {1100, 1110, 1090, 1105, 1095}, 4: {3791, 3816, 3802, 3808, 3793}, 16: {8000}}),
		roundsSystem(t, "kunpeng", kunpeng, map[int][]float64{1: {900, 905, 910}, 4: {3900, 3950}}),
	}
	c, err := Compare(systems, CompareOptions{Metric: MetricTPS})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompareRounds(t *testing.T) {
	c := roundsComparison(t)
	if c.Baseline != 0 || !c.Scaled || !c.PerCompute || len(c.Rows) != 3 {
		t.Fatalf("baseline %d scaled %v per compute %v rows %d", c.Baseline, c.Scaled, c.PerCompute, len(c.Rows))
	}
	tests := []struct {
		threads, system int
		n               int
		value           float64
		pct             float64
		fscaled         float64
		perGHzVCPU      float64
		p               float64 // NaN: not tested
		significant     bool
		reason          string
	}{
		{1, 0, 5, 1000, 0, 1000, 1000.0 / 72, math.NaN(), false, ""},
		{1, 1, 5, 1100, 10, 1100 * 3 / 2.5, 1100.0 / 10, 2.0 / 252, true, ""}, // all five above: 2/C(10,5)
		{1, 2, 3, 905, -9.5, 905 * 3 / 2.6, 905 / 62.4, exactUTestP([]float64{900, 905, 910}, []float64{1000, 1010, 990, 1005, 995}), true, ""},
		{4, 1, 5, 3802, 2.0 / 38, 3802 * 3 / 2.5, 380.2, exactUTestP([]float64{3791, 3816, 3802, 3808, 3793}, []float64{3800, 3810, 3790, 3805, 3795}), false, ReasonNotSignificant},
		{4, 2, 2, 3925, 125.0 / 38, 3925 * 3 / 2.6, 3925 / 62.4, 2.0 / 21, false, ReasonNoPower},
		{16, 1, 1, 8000, -11.111111, 9600, 800, math.NaN(), false, ReasonTooFew},
		{16, 2, 0, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), false, ReasonTooFew},
	}
	for _, tt := range tests {
		cl := findRow(t, c, "oltp_read_write", tt.threads).Cells[tt.system]
		sig := cl.Significance
		if cl.Stats.N != tt.n || !near(cl.Value, tt.value) || !near(cl.Pct, tt.pct) || !near(cl.FScaled, tt.fscaled) ||
			!near(cl.PerGHzVCPU, tt.perGHzVCPU) || !near(sig.P, tt.p) || sig.Significant != tt.significant || sig.Reason != tt.reason {
			t.Errorf("t%d %s: n %d value %v pct %v fscaled %v per GHz·vCPU %v p %v significant %v reason %q;\nwant n %d value %v pct %v fscaled %v per GHz·vCPU %v p %v significant %v reason %q",
				tt.threads, c.Systems[tt.system].Label, cl.Stats.N, cl.Value, cl.Pct, cl.FScaled, cl.PerGHzVCPU, sig.P, sig.Significant, sig.Reason,
				tt.n, tt.value, tt.pct, tt.fscaled, tt.perGHzVCPU, tt.p, tt.significant, tt.reason)
		}
	}
	if !slices.Contains(c.Notes, "1 cell(s) have no tps for some system: they show as -") {
		t.Errorf("notes %q lack the missing cell", c.Notes)
	}
	renderGoldens(t, "rounds", c)
}

// TestCompareLatency compares a lower-is-better metric: frequency scaling
// works the other way and per-compute figures do not apply.
func TestCompareLatency(t *testing.T) {
	var a, b []fakeRun
	for i, v := range []float64{10, 11, 12, 10.5} {
		a = append(a, fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 100, p95: v - 2, p99: v})
		b = append(b, fakeRun{machine: n1Machine, server: mysql8, threads: 8, tps: 100, p95: 6, p99: []float64{8, 8.5, 9, 8.2}[i]})
	}
	systems := []*System{mustSystem(t, "x86", a...), mustSystem(t, "graviton", b...)}
	metric, err := ParseMetric("P99")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(systems, CompareOptions{Metric: metric, Center: CenterMedian})
	if err != nil {
		t.Fatal(err)
	}
	if !metric.LowerIsBetter || !c.Scaled || c.PerCompute {
		t.Fatalf("lower is better %v, scaled %v, per compute %v; want true, true, false", metric.LowerIsBetter, c.Scaled, c.PerCompute)
	}
	g := c.Rows[0].Cells[1]
	// Median of 8, 8.2, 8.5, 9 is 8.35; at 3.0 GHz instead of 2.5 it would be
	// 8.35 × 2.5/3.0; x86's median is 10.75.
	if !near(g.Value, 8.35) || !near(g.FScaled, 8.35*2.5/3) || !near(g.Pct, (8.35-10.75)/10.75*100) || !math.IsNaN(g.PerVCPU) {
		t.Errorf("graviton p99: value %v fscaled %v pct %v per vCPU %v", g.Value, g.FScaled, g.Pct, g.PerVCPU)
	}
	if !g.Significance.Significant || !near(g.Significance.P, 2.0/70) {
		t.Errorf("significance %+v, want p = 2/70", g.Significance)
	}
	renderGoldens(t, "latency", c)
}

// tpccSystem builds a system of tpcc runs at 1 and 2 threads for each data
// set of warehouses, tpmC = base × warehouses × threads.
func tpccSystem(t *testing.T, label string, m result.Machine, base float64, warehouses ...int) *System {
	t.Helper()
	var runs []fakeRun
	for _, w := range warehouses {
		for _, th := range []int{1, 2} {
			v := base * float64(w*th)
			runs = append(runs, fakeRun{machine: m, server: mysql8, workload: "tpcc", warehouses: w, threads: th, tps: v / 60, tpmC: v})
		}
	}
	return mustSystem(t, label, runs...)
}

// differingSystems are two systems that share no row: a ran profile
// cpu-bound on 4 tables, b no profile on 8 tables.
func differingSystems(t *testing.T) []*System {
	a := mustSystem(t, "a",
		fakeRun{machine: n1Machine, server: mysql8, threads: 1, tps: 100, suite: &result.SuiteCell{Profile: "cpu-bound", Round: 1}},
		fakeRun{machine: n1Machine, server: mysql8, threads: 2, tps: 180, suite: &result.SuiteCell{Profile: "cpu-bound", Round: 1}})
	b := mustSystem(t, "b",
		fakeRun{machine: x86Machine, server: mysql8, threads: 1, tps: 120, tables: 8, size: 100000},
		fakeRun{machine: x86Machine, server: mysql8, threads: 2, tps: 200, tables: 8, size: 100000})
	return []*System{a, b}
}

func TestCompareRefusesRowsOfDifferentThings(t *testing.T) {
	for _, tt := range []struct {
		name    string
		systems []*System
		opts    CompareOptions
		want    []string
	}{
		{"profile and data set", differingSystems(t), CompareOptions{},
			[]string{"oltp_read_write (profile: a cpu-bound, b (none); data set: a 4x100000, b 8x100000)",
				"a has oltp_read_write/uniform/cpu-bound/4x100000; b has oltp_read_write/uniform/8x100000", "--allow-mixed", "--workload"}},
		{"warehouses", []*System{tpccSystem(t, "x86", x86Machine, 100, 10), tpccSystem(t, "arm", n1Machine, 100, 100)}, CompareOptions{Metric: MetricTpmC},
			[]string{"tpcc (data set: x86 w10, arm w100)"}},
		{"rand type", []*System{
			mustSystem(t, "x", fakeRun{machine: x86Machine, server: mysql8, threads: 1, tps: 1}),
			mustSystem(t, "y", fakeRun{machine: n1Machine, server: mysql8, threads: 1, tps: 1, randType: "special"})}, CompareOptions{},
			[]string{"rand type: x uniform, y special"}},
		{"mixed cannot pair several data sets", []*System{tpccSystem(t, "x86", x86Machine, 100, 10, 20), tpccSystem(t, "arm", n1Machine, 100, 100)},
			CompareOptions{Metric: MetricTpmC, AllowMixed: true, SelectFlag: "--cost-workload"},
			[]string{"--allow-mixed cannot pair them because x86 ran data sets w10, w20", "--cost-workload"}},
		{"selector matches nothing", differingSystems(t), CompareOptions{Select: []Selector{{Workload: "tpcc"}}},
			[]string{"--workload tpcc: no row has that workload", "oltp_read_write/uniform/8x100000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(tt.systems, tt.opts)
			if err == nil {
				t.Fatal("Compare put figures of different things in one row")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCompareMatchesOnlyTheSameThing(t *testing.T) {
	// x86 ran 10 and 100 warehouses, arm 100 and 500: only w100 shares a row;
	// w10 and w500 are rows of one system, never compared with another.
	x86 := tpccSystem(t, "x86", x86Machine, 100, 10, 100)
	arm := tpccSystem(t, "arm", n1Machine, 80, 100, 500)
	c, err := Compare([]*System{x86, arm}, CompareOptions{Metric: MetricTpmC})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if len(r.Mixed) > 0 {
			t.Errorf("row %s is mixed", r.Key)
		}
		both := r.Cells[0].Stats.N > 0 && r.Cells[1].Stats.N > 0
		if both != (r.Key.Data == "w100") {
			t.Errorf("row %s: both systems have figures %v", r.Key, both)
		}
		if both && !near(r.Cells[1].Pct, -20) {
			t.Errorf("row %s: %% %v, want -20 (arm 80 vs x86 100 per warehouse-thread)", r.Key, r.Cells[1].Pct)
		}
	}
	if got := c.CommonGroups(); len(got) != 1 || got[0].Data != "w100" {
		t.Errorf("common groups %v, want w100 only", got)
	}
	// A selector keeps its rows only.
	c, err = Compare([]*System{x86, arm}, CompareOptions{Metric: MetricTpmC, Select: []Selector{{Workload: "tpcc", Parts: []string{"W100"}}}})
	if err != nil || len(c.Rows) != 2 || c.Rows[0].Key.Data != "w100" {
		t.Errorf("selecting tpcc/w100: %v, rows %+v", err, c)
	}
}

func TestCompareAllowMixedMarksRows(t *testing.T) {
	c, err := Compare(differingSystems(t), CompareOptions{Baseline: "B", AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Baseline != 1 || len(c.Rows) != 2 {
		t.Fatalf("baseline %d, %d rows; want 1 and 2 rows", c.Baseline, len(c.Rows))
	}
	want := Key{Workload: "oltp_read_write", RandType: "uniform", Threads: 1}
	if c.Rows[0].Key != want || !near(c.Rows[0].Cells[0].Pct, (100-120)/120.0*100) {
		t.Errorf("row %+v pct %v, want key %+v", c.Rows[0].Key, c.Rows[0].Cells[0].Pct, want)
	}
	for _, r := range c.Rows {
		if got := MixedString(r.Mixed); got != "profile: a cpu-bound, b (none); data set: a 4x100000, b 8x100000" {
			t.Errorf("row %s mixed %q", r.Key, got)
		}
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool {
		return strings.Contains(n, MixedMark+" put together figures of different data sets")
	}) {
		t.Errorf("notes %q do not tell of the mixed rows", c.Notes)
	}
	renderGoldens(t, "mixed", c)
}

func TestParseSelector(t *testing.T) {
	k := Key{Workload: "tpcc", RandType: "uniform", Data: "w100", Threads: 8}
	for _, tt := range []struct {
		label string
		match bool
	}{
		{"tpcc", true}, {"TPCC", true}, {"tpcc/uniform/w100", true}, {"tpcc (uniform, w100)", true},
		{"tpcc/w100", true}, {"tpcc (w100)", true}, {"tpcc/w10", false}, {"tpcc/uniform/w100/special", false},
		{"oltp_read_write", false}, {"tpcc/uniform/uniform", false}, {"tpcc (uniform) † mixed", true},
	} {
		sel, err := ParseSelector(tt.label)
		if err != nil {
			t.Errorf("%q: %v", tt.label, err)
			continue
		}
		if sel.Matches(k) != tt.match {
			t.Errorf("%q matches %s: %v, want %v", tt.label, k, !tt.match, tt.match)
		}
	}
	if RowLabel(k) != "tpcc/uniform/w100" {
		t.Errorf("RowLabel %q", RowLabel(k))
	}
	for _, bad := range []string{"", "/w10", "tpcc//w10", "tpcc (w10"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) did not fail", bad)
		}
	}
}

func TestCompareFiltersWorkloadsAndChecksInput(t *testing.T) {
	mk := func(label string, m result.Machine) *System {
		return mustSystem(t, label,
			fakeRun{machine: m, server: mysql8, workload: "oltp_read_only", threads: 1, tps: 10},
			fakeRun{machine: m, server: mysql8, workload: "oltp_point_select", threads: 1, tps: 20})
	}
	a, b := mk("a", n1Machine), mk("b", x86Machine)
	c, err := Compare([]*System{a, b}, CompareOptions{Workloads: []string{"oltp_read_only"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Key.Workload != "oltp_read_only" {
		t.Errorf("rows %+v, want oltp_read_only only", c.Rows)
	}
	noFreq := mustSystem(t, "c", fakeRun{machine: armMachine, server: mysql8, workload: "oltp_read_only", threads: 1, tps: 12})
	c, err = Compare([]*System{a, noFreq}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Scaled || c.PerCompute || !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "--ghz") }) {
		t.Errorf("a system without frequency: scaled %v per compute %v notes %q", c.Scaled, c.PerCompute, c.Notes)
	}
	for _, tt := range []struct {
		systems []*System
		opts    CompareOptions
		want    string
	}{
		{nil, CompareOptions{}, "nothing to compare"},
		{[]*System{a, a}, CompareOptions{}, `two systems are labelled "a"`},
		{[]*System{a, b}, CompareOptions{Baseline: "z"}, `baseline "z": no system has that label`},
		{[]*System{a, b}, CompareOptions{Metric: MetricTpmC}, "have no tpmc"},
		{[]*System{a, b}, CompareOptions{Workloads: []string{"tpcc"}}, "the results of tpcc have no tps"},
		{[]*System{a, b}, CompareOptions{Alpha: 1.5}, "between 0 and 1"},
		{[]*System{a, b}, CompareOptions{Center: "mode"}, "unknown center"},
	} {
		if _, err := Compare(tt.systems, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one containing %q", tt.opts, err, tt.want)
		}
	}
}

func TestParseMetric(t *testing.T) {
	for _, tt := range []struct {
		in    string
		want  string
		lower bool
	}{{"tps", "tps", false}, {"QPS", "qps", false}, {"tpmC", "tpmc", false}, {"p95", "p95", true}, {"p99.9", "p99.9", true}} {
		m, err := ParseMetric(tt.in)
		if err != nil || m.Name != tt.want || m.LowerIsBetter != tt.lower {
			t.Errorf("ParseMetric(%q) = %+v, %v", tt.in, m, err)
		}
	}
	for _, bad := range []string{"", "latency", "p", "p100", "pfast"} {
		if _, err := ParseMetric(bad); err == nil || !strings.Contains(err.Error(), "use tps, qps, tpmc") {
			t.Errorf("ParseMetric(%q) error %v", bad, err)
		}
	}
	s := Sample{TPS: 1, QPS: 2, Figures: map[string]float64{"tpmC": 3}, LatencyMs: map[string]float64{"99.9": 4}}
	for _, tt := range []struct {
		m    Metric
		want float64
		ok   bool
	}{{MetricTPS, 1, true}, {MetricQPS, 2, true}, {MetricTpmC, 3, true}, {LatencyMetric("99.9"), 4, true}, {LatencyMetric("95"), 0, false}} {
		if v, ok := tt.m.Value(s); v != tt.want || ok != tt.ok {
			t.Errorf("%s: %v %v, want %v %v", tt.m.Name, v, ok, tt.want, tt.ok)
		}
	}
}

func TestFormatting(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{6696, "6696"}, {7726.15, "7726"}, {89.4305, "89.4"}, {5.26, "5.26"}, {0.01234, "0.0123"}, {-0.4, "-0.400"}, {0, "0"}, {math.NaN(), "-"}} {
		if got := fmtNum(tt.v); got != tt.want {
			t.Errorf("fmtNum(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct {
		v    float64
		want string
	}{{3.99, "4"}, {-0.416, "0"}, {-5.5, "-6"}, {19.99, "20"}, {math.NaN(), "-"}} {
		if got := fmtPct(tt.v); got != tt.want {
			t.Errorf("fmtPct(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	// The text renderer aligns columns: every line of a table has the same
	// width (but the first table, what differs: left-aligned, its last
	// column is not padded).
	var b bytes.Buffer
	if err := WriteText(&b, roundsComparison(t)); err != nil {
		t.Fatal(err)
	}
	tables, width := 0, -1
	for line := range strings.Lines(b.String()) {
		line = strings.TrimRight(line, "\n")
		if !strings.Contains(line, " | ") && !strings.Contains(line, "-|-") {
			width = -1
			continue
		}
		if width < 0 {
			tables++
			width = len([]rune(line))
		} else if tables == 1 {
			continue
		} else if n := len([]rune(line)); n != width {
			t.Errorf("line %q is %d wide, its table %d", line, n, width)
		}
	}
	if tables != 4 {
		t.Errorf("%d tables, want 4 (what differs, main, per compute, rounds):\n%s", tables, b.String())
	}
}

// TestCompareMarksOutages: a round from a run during which the server went
// away (complete: short, every thread reconnected) stays in its cell, but its
// row is marked in every rendering, a note names the run, and the CSV and
// JSON count such rounds per cell.
func TestCompareMarksOutages(t *testing.T) {
	a := mustSystem(t, "A",
		fakeRun{machine: x86Machine, server: mariadb, threads: 4, tps: 1000},
		fakeRun{machine: x86Machine, server: mariadb, threads: 4, tps: 1010},
		fakeRun{machine: x86Machine, server: mariadb, threads: 8, tps: 1900})
	b := mustSystem(t, "B",
		fakeRun{machine: armMachine, server: mariadb, threads: 4, tps: 900},
		fakeRun{machine: armMachine, server: mariadb, threads: 4, tps: 700, outage: 1.5},
		fakeRun{machine: armMachine, server: mariadb, threads: 8, tps: 1800})
	c, err := Compare([]*System{a, b}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r4, r8 := findRow(t, c, "oltp_read_write", 4), findRow(t, c, "oltp_read_write", 8)
	if r4.Cells[1].Outages != 1 || r4.Cells[0].Outages != 0 || !r4.HasOutage() || r8.HasOutage() {
		t.Fatalf("outage rounds t4 %d/%d, t8 marked %v; want B's one round at t4 only", r4.Cells[0].Outages, r4.Cells[1].Outages, r8.HasOutage())
	}
	if r4.Cells[1].Stats.N != 2 {
		t.Errorf("t4 B has %d rounds, want 2: a complete run with an outage is kept, marked", r4.Cells[1].Stats.N)
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool {
		return strings.Contains(n, "rows marked "+OutageMark+" hold 1 run(s) during which the server went away or stopped answering (1.5s in all")
	}) {
		t.Errorf("notes %q do not tell of the outage", c.Notes)
	}
	var text, csv, js bytes.Buffer
	if err := WriteText(&text, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "4 "+OutageMark) || strings.Contains(text.String(), "8 "+OutageMark) {
		t.Errorf("text marks the wrong rows:\n%s", text.String())
	}
	if err := WriteCSV(&csv, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), ",outage_runs\n") || !strings.Contains(csv.String(), ",1\n") {
		t.Errorf("CSV lacks the outage_runs count:\n%s", csv.String())
	}
	if err := WriteJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"outage_runs": 1`) {
		t.Errorf("JSON lacks outage_runs:\n%.2000s", js.String())
	}
}
