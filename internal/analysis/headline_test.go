package analysis

import (
	"math"
	"testing"
)

// hc is a row of a headline test: the thread count, the other system's
// observed difference in %, the rounds of both sides, and the interval of
// the change in % with its p value (ignored below two rounds).
type hc struct {
	threads int
	pct     float64
	n       int
	lo, hi  float64
	p       float64
}

// headlineComparison makes a comparison of ARM against the baseline x86 in
// one section of oltp_read_write, of the rows given.
func headlineComparison(metric Metric, rows []hc) *Comparison {
	c := &Comparison{Metric: metric, Alpha: DefaultAlpha, Confidence: Confidence, Systems: []*System{{Label: "x86"}, {Label: "ARM"}}}
	nan := math.NaN()
	for _, r := range rows {
		k := Key{Workload: "oltp_read_write", RandType: "uniform", Threads: r.threads}
		base := Cell{Stats: Stats{N: r.n}, Pct: 0}
		other := Cell{Stats: Stats{N: r.n}, Pct: r.pct}
		if r.n == 0 {
			other.Pct = nan
		}
		other.Ratio = Ratio{N: r.n, BaseN: r.n, Estimate: nan, Lo: nan, Hi: nan, P: nan, Detectable: nan, Reason: NotTestedTooFew}
		if r.n >= 2 {
			lo, hi := 1+r.lo/100, 1+r.hi/100
			other.Ratio = Ratio{N: r.n, BaseN: r.n, Tested: true, Estimate: 1 + r.pct/100, Lo: lo, Hi: hi, P: r.p,
				Claimed: lo > 1 || hi < 1, Detectable: math.Sqrt(hi/lo) - 1}
		}
		c.Rows = append(c.Rows, Row{Key: k, Cells: []Cell{base, other}})
	}
	return c
}

func TestHeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		metric Metric
		rows   []hc
		want   string
	}{
		{"one range shown and one the rounds could not tell", MetricTPS, []hc{
			{1, -2, 5, -9, 6, 0.4}, {2, 1.6, 5, -3, 7, 0.7}, {4, -12, 5, -18, -5, 0.008}, {8, -27.4, 5, -35, -20, 0.016}, {16, -38, 5, -45, -30, 0.008},
		}, "oltp_read_write/uniform: could not tell at 1–2 threads (ARM −2 % to +2 % against x86; 95 % intervals −9.0 % to +7.0 %: these rounds could show only a difference beyond about ±7.9 %); ARM is 12–38 % slower than x86 at 4–16 threads (95 % confidence: at least 5.0 % slower at each; p ≤ 0.016)."},
		{"a change of sign splits a shown range", MetricTPS, []hc{
			{1, 9, 4, 2, 16, 0.03}, {2, 12, 4, 4, 20, 0.03}, {4, -6, 4, -11, -1, 0.03}, {8, -10, 4, -13, -7, 0.0001},
		}, "oltp_read_write/uniform: ARM is 9–12 % faster than x86 at 1–2 threads (95 % confidence: at least 2.0 % faster at each; p ≤ 0.030); ARM is 6–10 % slower than x86 at 4–8 threads (95 % confidence: at least 1.0 % slower at each; p ≤ 0.030)."},
		{"a missing cell ends a range", MetricTPS, []hc{
			{1, 10, 4, 5, 15, 0.01}, {2, 0, 0, 0, 0, 0}, {4, 11, 4, 6, 16, 0.01},
		}, "oltp_read_write/uniform: ARM is 10 % faster than x86 at 1 thread (95 % confidence: at least 5.0 % faster at each; p = 0.010); ARM is 11 % faster than x86 at 4 threads (95 % confidence: at least 6.0 % faster at each; p = 0.010)."},
		{"nothing the rounds could tell: never 'no difference'", MetricTPS, []hc{
			{1, 0.2, 3, -1, 1.4, 0.7}, {2, -0.3, 3, -2, 1.5, 0.4},
		}, "oltp_read_write/uniform: could not tell at 1–2 threads (ARM within 0.5 % of x86; 95 % intervals −2.0 % to +1.5 %: these rounds could show only a difference beyond about ±1.8 %)."},
		{"single rounds are too few to tell", MetricTPS, []hc{
			{1, -8, 1, 0, 0, 0}, {2, -8.4, 1, 0, 0, 0}, {64, -27, 1, 0, 0, 0}, {128, -38, 1, 0, 0, 0},
		}, "oltp_read_write/uniform: too few rounds to tell at 1–128 threads (1 per side): ARM is 8–38 % slower than x86, not tested."},
		{"single rounds of both signs", MetricTPS, []hc{
			{1, 4, 1, 0, 0, 0}, {2, -10, 1, 0, 0, 0},
		}, "oltp_read_write/uniform: too few rounds to tell at 1–2 threads (1 per side): ARM −10 % to +4 % against x86, not tested."},
		{"tested and single-round rows", MetricTPS, []hc{
			{1, 5, 1, 0, 0, 0}, {2, 20, 4, 12, 29, 0.02}, {4, 22, 4, 18, 26, 0.0004},
		}, "oltp_read_write/uniform: too few rounds to tell at 1 thread (1 per side): ARM is 5 % faster than x86, not tested; ARM is 20–22 % faster than x86 at 2–4 threads (95 % confidence: at least 12 % faster at each; p ≤ 0.020)."},
		{"latency: lower is better", LatencyMetric("95"), []hc{
			{1, 15, 4, 8, 22, 0.01}, {2, 30, 4, 20, 41, 0.01},
		}, "oltp_read_write/uniform: ARM's p95 ms is 15–30 % higher than x86's at 1–2 threads (95 % confidence: at least 8.0 % higher at each; p ≤ 0.010)."},
		{"no row with both sides", MetricTPS, []hc{{1, 0, 0, 0, 0, 0}},
			"oltp_read_write/uniform: no thread count has figures of both ARM and x86."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Headline(headlineComparison(tc.metric, tc.rows))
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("headline\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A round of zero or rounds without spread are told as not tested, with
// the reason; an observed difference that points against its interval is
// not claimed.
func TestHeadlineUntested(t *testing.T) {
	c := headlineComparison(MetricTPS, []hc{{1, 5, 3, 0, 0, 0}, {2, 6, 3, 0, 0, 0}, {4, -1, 3, 2, 9, 0.01}})
	c.Rows[0].Cells[1].Ratio.Tested, c.Rows[0].Cells[1].Ratio.Reason = false, NotTestedNonPositive
	c.Rows[1].Cells[1].Ratio.Tested, c.Rows[1].Cells[1].Ratio.Reason = false, NotTestedNoSpread
	got := Headline(c)
	want := "oltp_read_write/uniform: not tested at 1 thread (a round is zero): ARM is 5 % faster than x86; not tested at 2 threads (every round equal: no spread to judge a difference by): ARM is 6 % faster than x86; could not tell at 4 threads (ARM −1 % against x86; 95 % intervals +2.0 % to +9.0 %: these rounds could show only a difference beyond about ±3.4 %)."
	if len(got) != 1 || got[0] != want {
		t.Errorf("headline\n got %q\nwant %q", got, want)
	}
}

func TestVerdictSpans(t *testing.T) {
	c := headlineComparison(MetricTPS, []hc{{1, -2, 5, -9, 6, 0.4}, {2, -12, 5, -18, -5, 0.008}, {4, -27, 5, -35, -20, 0.016}, {8, 3, 1, 0, 0, 0}})
	v := Verdicts(c)
	if len(v) != 1 || v[0].System != 1 {
		t.Fatalf("verdicts %+v, want one of ARM", v)
	}
	want := []Span{
		{Kind: SpanCouldNotTell, From: 1, To: 1, Rows: 1, Lo: -2, Hi: -2, MaxP: 0.4, CILo: -9, CIHi: 6},
		{Kind: SpanShown, From: 2, To: 4, Rows: 2, Lo: -27, Hi: -12, MaxP: 0.016, CILo: -35, CIHi: -5, Bound: -5},
		{Kind: SpanTooFew, From: 8, To: 8, Rows: 1, Lo: 3, Hi: 3, MaxP: math.NaN(), CILo: math.NaN(), CIHi: math.NaN()},
	}
	got := v[0].Spans
	if len(got) != len(want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	same := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 || (math.IsNaN(a) && math.IsNaN(b)) }
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.From != w.From || g.To != w.To || g.Rows != w.Rows || g.Lo != w.Lo || g.Hi != w.Hi ||
			!same(g.MaxP, w.MaxP) || !same(g.CILo, w.CILo) || !same(g.CIHi, w.CIHi) || (w.Kind == SpanShown && !same(g.Bound, w.Bound)) {
			t.Errorf("span %d: %+v, want %+v", i, g, w)
		}
	}
}

// The headline of the seed's single-round tables names every cell too few
// rounds to tell: the seeds publish no rounds, and no test is possible.
func TestHeadlineOfSeed000(t *testing.T) {
	c, err := Compare(seedSystems(t), CompareOptions{Metric: MetricTPS, Baseline: "x86", Workloads: []string{"oltp_read_write"}})
	if err != nil {
		t.Fatal(err)
	}
	got := Headline(c)
	// The seed's % ARM-vs-x86 column runs from -7 to -38.
	want := "oltp_read_write/uniform/4x100000: too few rounds to tell at 1–256 threads (1 per side): ARM is 7–38 % slower than x86, not tested."
	if len(got) != 1 || got[0] != want {
		t.Errorf("headline\n got %q\nwant %q", got, want)
	}
}
