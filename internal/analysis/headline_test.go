package analysis

import (
	"math"
	"testing"
)

// hc is a row of a headline test: the thread count and the other system's
// difference, rounds (of both sides) and p value.
type hc struct {
	threads int
	pct     float64
	n       int
	p       float64
}

// headlineComparison makes a comparison of ARM against the baseline x86 in
// one section of oltp_read_write, of the rows given.
func headlineComparison(metric Metric, rows []hc) *Comparison {
	c := &Comparison{Metric: metric, Alpha: DefaultAlpha, Systems: []*System{{Label: "x86"}, {Label: "ARM"}}}
	for _, r := range rows {
		k := Key{Workload: "oltp_read_write", RandType: "uniform", Threads: r.threads}
		base := Cell{Stats: Stats{N: r.n}, Pct: 0}
		other := Cell{Stats: Stats{N: r.n}, Pct: r.pct}
		if r.n == 0 {
			other.Pct = math.NaN()
		}
		if r.n >= 2 {
			other.Significance = Significance{Tested: true, P: r.p, Alpha: DefaultAlpha, Significant: r.p < DefaultAlpha}
		} else {
			other.Significance = Significance{P: math.NaN(), Reason: ReasonTooFew}
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
		{"one significant range and one without difference", MetricTPS, []hc{
			{1, -2, 5, 0.4}, {2, 1.6, 5, 0.7}, {4, -12, 5, 0.008}, {8, -27.4, 5, 0.016}, {16, -38, 5, 0.008},
		}, "oltp_read_write/uniform: no significant difference at 1–2 threads (ARM −2 % to +2 % against x86, p ≥ 0.05); ARM is 12–38 % slower than x86 at 4–16 threads (significant, p ≤ 0.016)."},
		{"a change of sign splits a significant range", MetricTPS, []hc{
			{1, 9, 4, 0.03}, {2, 12, 4, 0.03}, {4, -6, 4, 0.03}, {8, -10, 4, 0.0001},
		}, "oltp_read_write/uniform: ARM is 9–12 % faster than x86 at 1–2 threads (significant, p ≤ 0.030); ARM is 6–10 % slower than x86 at 4–8 threads (significant, p ≤ 0.030)."},
		{"a missing cell ends a range", MetricTPS, []hc{
			{1, 10, 4, 0.01}, {2, 0, 0, 0}, {4, 11, 4, 0.01},
		}, "oltp_read_write/uniform: ARM is 10 % faster than x86 at 1 thread (significant, p = 0.010); ARM is 11 % faster than x86 at 4 threads (significant, p = 0.010)."},
		{"no significant difference anywhere", MetricTPS, []hc{
			{1, 0.2, 3, 0.7}, {2, -0.3, 3, 0.4},
		}, "oltp_read_write/uniform: no significant difference at 1–2 threads (ARM within 0.5 % of x86, p ≥ 0.05)."},
		{"single rounds are named as such", MetricTPS, []hc{
			{1, -8, 1, 0}, {2, -8.4, 1, 0}, {64, -27, 1, 0}, {128, -38, 1, 0},
		}, "oltp_read_write/uniform: tps rests on single rounds at 1–128 threads, not tested: ARM is 8–38 % slower than x86."},
		{"single rounds of both signs", MetricTPS, []hc{
			{1, 4, 1, 0}, {2, -10, 1, 0},
		}, "oltp_read_write/uniform: tps rests on single rounds at 1–2 threads, not tested: ARM −10 % to +4 % against x86."},
		{"tested and single-round rows", MetricTPS, []hc{
			{1, 5, 1, 0}, {2, 20, 4, 0.02}, {4, 22, 4, 0.0004},
		}, "oltp_read_write/uniform: tps rests on a single round at 1 thread, not tested: ARM is 5 % faster than x86; ARM is 20–22 % faster than x86 at 2–4 threads (significant, p ≤ 0.020)."},
		{"latency: lower is better", LatencyMetric("95"), []hc{
			{1, 15, 4, 0.01}, {2, 30, 4, 0.01},
		}, "oltp_read_write/uniform: ARM's p95 ms is 15–30 % higher than x86's at 1–2 threads (significant, p ≤ 0.010)."},
		{"no row with both sides", MetricTPS, []hc{{1, 0, 0, 0}},
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

func TestVerdictSpans(t *testing.T) {
	c := headlineComparison(MetricTPS, []hc{{1, -2, 5, 0.4}, {2, -12, 5, 0.008}, {4, -27, 5, 0.016}, {8, 3, 1, 0}})
	v := Verdicts(c)
	if len(v) != 1 || v[0].System != 1 {
		t.Fatalf("verdicts %+v, want one of ARM", v)
	}
	want := []Span{
		{Kind: SpanNotSignificant, From: 1, To: 1, Rows: 1, Lo: -2, Hi: -2, MaxP: 0.4},
		{Kind: SpanSignificant, From: 2, To: 4, Rows: 2, Lo: -27, Hi: -12, MaxP: 0.016},
		{Kind: SpanSingleRound, From: 8, To: 8, Rows: 1, Lo: 3, Hi: 3},
	}
	got := v[0].Spans
	if len(got) != len(want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.From != w.From || g.To != w.To || g.Rows != w.Rows || g.Lo != w.Lo || g.Hi != w.Hi ||
			(g.MaxP != w.MaxP && !(math.IsNaN(g.MaxP) && w.Kind == SpanSingleRound)) {
			t.Errorf("span %d: %+v, want %+v", i, g, w)
		}
	}
}

// The headline of the seed's single-round tables names every cell a single
// round: the seeds publish no rounds, and no test is possible.
func TestHeadlineOfSeed000(t *testing.T) {
	c, err := Compare(seedSystems(t), CompareOptions{Metric: MetricTPS, Baseline: "x86", Workloads: []string{"oltp_read_write"}})
	if err != nil {
		t.Fatal(err)
	}
	got := Headline(c)
	// The seed's % ARM-vs-x86 column runs from -7 to -38.
	want := "oltp_read_write/uniform/4x100000: tps rests on single rounds at 1–256 threads, not tested: ARM is 7–38 % slower than x86."
	if len(got) != 1 || got[0] != want {
		t.Errorf("headline\n got %q\nwant %q", got, want)
	}
}
