package cost

import (
	"strings"
	"testing"
)

// TestPricingScenarios adds the scenarios to a pricing's report, each under
// the pricing's options (row, metric, center, baseline), and adds nothing
// when the scenario refuses.
func TestPricingScenarios(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	in := []Input{{System: "x86", Throughput: Figure{Value: 1000}}, {System: "arm", Throughput: Figure{Value: 1100}}}
	opts := Options{Workload: "tpcc/w10", Metric: "tpmC", Center: "median", Baseline: "arm", PerDollar: BasisYear, PricePerf: BasisYear}
	newPricing := func() *Pricing {
		rep, err := NewReport(s, "x86", "arm")
		if err != nil {
			t.Fatal(err)
		}
		return &Pricing{Sheet: s, Inputs: in, Options: opts, Report: rep}
	}

	p := newPricing()
	if err := p.AddEqualCost(6000, BasisYear, 0.05); err != nil {
		t.Fatal(err)
	}
	if len(p.Report.EqualCosts) != 1 || len(p.Report.Evaluations) != 0 {
		t.Fatalf("equal cost: %d scenarios, %d evaluations", len(p.Report.EqualCosts), len(p.Report.Evaluations))
	}
	ec := p.Report.EqualCosts[0]
	if ec.Workload != opts.Workload || ec.Metric != opts.Metric || ec.Center != opts.Center || ec.Baseline != opts.Baseline ||
		ec.Budget != 6000 || ec.Per != BasisYear || ec.AllowOver != 0.05 {
		t.Errorf("equal cost under %+v: %+v", opts, ec)
	}

	p = newPricing()
	if err := p.AddEqualCompute(); err != nil {
		t.Fatal(err)
	}
	if len(p.Report.Evaluations) != 1 || p.Report.Evaluations[0].Scenario != "equal compute" || p.Report.Evaluations[0].Baseline != "arm" {
		t.Errorf("equal compute: %+v", p.Report.Evaluations)
	}

	p = newPricing()
	if err := p.AddEqualCost(0, BasisYear, 0); err == nil || !strings.Contains(err.Error(), "budget 0") || len(p.Report.EqualCosts) != 0 {
		t.Errorf("a zero budget: %v, %d scenarios", err, len(p.Report.EqualCosts))
	}
}
