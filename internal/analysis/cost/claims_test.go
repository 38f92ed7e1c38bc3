package cost

import (
	"math"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
)

// claimPricing is ARM priced at 60 % of x86's period cost with the same
// throughput, the throughput ratios at 1 and 2 threads given by their
// intervals (NaN bounds: not tested, for reason).
func claimPricing(ratios [2][2]float64, reason string) *Pricing {
	p := &Pricing{Eval: &Evaluation{PricePerf: BasisPeriod, Period: "3y", Currency: "USD", Rows: []Row{
		{System: "arm", Cost: &SystemCost{PeriodCost: 600}, Throughput: 100, Threads: []int{1, 2}, PricePerformance: 6, Diff: &Diff{PricePerformance: -40}},
		{System: "x86", Cost: &SystemCost{PeriodCost: 1000}, Throughput: 100, Threads: []int{1, 2}, PricePerformance: 10},
	}}}
	for i, rt := range ratios {
		r := analysis.Ratio{N: 3, BaseN: 3, Tested: !math.IsNaN(rt[0]), Lo: rt[0], Hi: rt[1], Detectable: 0.1, Reason: reason}
		if reason == analysis.NotTestedTooFew {
			r.N, r.BaseN = 1, 1
		}
		p.Rows = append(p.Rows, analysis.Row{Key: analysis.Key{Workload: "oltp_read_write", Threads: i + 1}, Cells: []analysis.Cell{{Ratio: r}, {}}})
	}
	return p
}

func TestClaims(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		ratios [2][2]float64
		reason string
		want   string
	}{
		{"shown at every thread count", [2][2]float64{{0.9, 1.1}, {0.95, 1.2}}, "",
			"Cost: arm costs 40 % less per tps than x86 over 3y (95 % confidence: at least 33.3 % less at each thread count; price-performance USD per tps: 6 against 10; throughput the mean over 1, 2 threads)."},
		{"an interval that holds no change", [2][2]float64{{0.9, 1.1}, {0.4, 2.0}}, "",
			"Cost: arm's price-performance is 40 % lower than x86's over 3y (price-performance USD per tps: 6 against 10; throughput the mean over 1, 2 threads); the rounds could not tell whether it costs less or more at 2 threads (95 % intervals of the price-performance −70 % to +50 %: they could show only a difference beyond about ±10.0 % of throughput)."},
		{"single rounds", [2][2]float64{{nan, nan}, {nan, nan}}, analysis.NotTestedTooFew,
			"Cost: arm's price-performance is 40 % lower than x86's over 3y (price-performance USD per tps: 6 against 10; throughput the mean over 1, 2 threads); too few rounds to tell at 1 (1 and 1 rounds), 2 (1 and 1 rounds) threads."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := claimPricing(tc.ratios, tc.reason).Claims([]string{"arm", "x86"}, "tps")
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("claims\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
