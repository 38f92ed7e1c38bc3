package cost

import (
	"math"
	"strings"
	"testing"
)

// scenarioSheet: a cheap ARM box, a dearer x86 box with the same vCPUs, and a
// bigger ARM box; a sheet with prices per hour, month and year.
const scenarioSheet = `source: constructed for the scenario tests
period: 3y
instances:
  - {name: a16, arch: arm64, vcpu: 16, ghz: 2.5, price_per_year: 1200}
  - {name: x16, arch: x86_64, vcpu: 16, ghz: 3.0, price_per_month: 250}
  - {name: a32, arch: arm64, vcpu: 32, ghz: 2.5, price_per_hour: 0.5}
  - {name: anon, arch: x86_64, price_per_month: 100}
systems:
  - {name: arm, items: [{instance: a16}]}
  - {name: x86, items: [{instance: x16}]}
  - {name: arm-big, items: [{instance: a32}]}
  - {name: unknown-cpu, items: [{instance: anon}]}
`

func mustSheet(t *testing.T, text string) *Sheet {
	t.Helper()
	s, err := ParseSheet("scenario.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestEqualCost(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	in := []Input{
		{System: "x86", Throughput: Figure{Value: 1000}},
		{System: "arm", Throughput: Figure{Value: 900}},
		{System: "arm-big", Throughput: Figure{ByThreads: map[int]float64{8: 1500, 16: 1700, 32: 2000}, Threads: []int{16, 32}}},
	}
	// 6,000 a year: x86 costs 3,000 (2), arm 1,200 (5), arm-big 0.5 × 8,760 = 4,380 (1).
	ec, err := s.EqualCost(in, EqualCostOptions{Budget: 6000, Per: BasisYear, Metric: "tps"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		count               int
		spent, left         float64
		vcpu                int
		power, total, perUS float64
	}{
		{2, 6000, 0, 32, 96, 2000, 2000.0 / 6000},
		{5, 6000, 0, 80, 200, 4500, 4500.0 / 6000},
		{1, 4380, 1620, 32, 80, 1850, 1850.0 / 4380},
	}
	for i, w := range want {
		r := ec.Rows[i]
		if r.Count != w.count || !near(r.Spent, w.spent) || !near(r.Leftover, w.left) || r.VCPU != w.vcpu ||
			!near(r.ComputePower, w.power) || !near(r.TotalThroughput, w.total) || !near(r.PerDollar, w.perUS) {
			t.Errorf("row %s: %+v, want %+v", r.System, r, w)
		}
	}
	if ec.Baseline != "x86" || ec.Rows[0].Diff != nil {
		t.Errorf("baseline %q, its diff %+v", ec.Baseline, ec.Rows[0].Diff)
	}
	if d := ec.Rows[1].Diff; d == nil || !near(d.TotalThroughput, 125) || !near(d.PerDollar, 125) || !near(d.VCPU, 150) {
		t.Errorf("arm vs x86: %+v, want +125%% throughput and per dollar, +150%% vCPU", d)
	}
	if got := ec.Rows[2].Threads; len(got) != 2 || got[0] != 16 {
		t.Errorf("threads averaged %v", got)
	}

	// A monthly budget: 500 a month buys 2 x86 (250), 5 arm (100), 1 arm-big (365).
	ec, err = s.EqualCost(in, EqualCostOptions{Budget: 500, Per: BasisMonth})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{2, 5, 1} {
		if ec.Rows[i].Count != n {
			t.Errorf("per month: %s count %d, want %d", ec.Rows[i].System, ec.Rows[i].Count, n)
		}
	}
	if !near(ec.Rows[1].PerDollar, 4500.0/500) {
		t.Errorf("per dollar on the monthly basis: %v", ec.Rows[1].PerDollar)
	}
}

func TestEqualCostBaselineDoesNotFit(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	ec, err := s.EqualCost([]Input{{System: "arm-big"}, {System: "arm"}}, EqualCostOptions{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if ec.Rows[0].Count != 0 || ec.Rows[1].Count != 3 || ec.Rows[1].Diff != nil {
		t.Errorf("rows %+v", ec.Rows)
	}
	if got := strings.Join(ec.DoesNotFit(), ","); got != "arm-big" {
		t.Errorf("DoesNotFit %q", got)
	}
	if ec.HasThroughput || ec.Rows[1].PerDollar != 0 {
		t.Errorf("no throughput given, yet %+v", ec.Rows[1])
	}
}

func TestEqualCostRefuses(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	in := []Input{{System: "arm"}}
	for _, c := range []struct {
		opt  EqualCostOptions
		want string
	}{
		{EqualCostOptions{Budget: 0}, "equal cost: budget 0: give a positive amount of USD per year"},
		{EqualCostOptions{Budget: 100, AllowOver: 1.5}, "allowed overspend 1.5: give a fraction from 0 up to 1"},
		{EqualCostOptions{Budget: 100, Per: "week"}, `cost basis "week"`},
		{EqualCostOptions{Budget: 100, Baseline: "x86"}, `baseline "x86" is not among the systems compared (arm)`},
	} {
		if _, err := s.EqualCost(in, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want …%s…", c.opt, err, c.want)
		}
	}
}

func TestEqualCompute(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	in := []Input{{System: "x86", Throughput: Figure{Value: 1000}}, {System: "arm", Throughput: Figure{Value: 1100}}}
	ev, err := s.EqualCompute(in, Options{Metric: "tps", PerDollar: BasisYear, PricePerf: BasisYear})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Scenario != "equal compute" || ev.Rows[0].VCPU != 16 || ev.Rows[1].VCPU != 16 {
		t.Errorf("scenario %q, vCPU %d and %d", ev.Scenario, ev.Rows[0].VCPU, ev.Rows[1].VCPU)
	}
	// Same vCPUs, cost allowed to differ: x86 3,000 a year, arm 1,200.
	x86, arm := ev.Rows[0], ev.Rows[1]
	if !near(x86.PricePerformance, 3) || !near(arm.PricePerformance, 1200.0/1100) {
		t.Errorf("price-performance %v and %v", x86.PricePerformance, arm.PricePerformance)
	}
	if !near(arm.Diff.Cost, -60) || !near(arm.Diff.Throughput, 10) || !near(arm.Diff.PricePerformance, (1200.0/1100/3-1)*100) {
		t.Errorf("diff %+v", arm.Diff)
	}
	if !near(x86.ComputePower, 48) || !near(arm.ComputePower, 40) {
		t.Errorf("compute power %v vs %v (seed 004 style: vCPU × GHz)", x86.ComputePower, arm.ComputePower)
	}

	_, err = s.EqualCompute([]Input{{System: "x86"}, {System: "arm-big"}}, Options{})
	want := "equal compute needs systems with the same vCPU count, but x86 has 16, arm-big has 32: pick systems with equal vCPUs"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s…", err, want)
	}
	_, err = s.EqualCompute([]Input{{System: "x86"}, {System: "unknown-cpu"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `no vcpu for an instance of system "unknown-cpu": add vcpu`) {
		t.Errorf("unknown vCPU: %v", err)
	}
}

func TestEvaluateBases(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	in := []Input{{System: "arm", Throughput: Figure{Value: 1200}}}
	for basis, cost := range map[Basis]float64{BasisHour: 1200.0 / 8760, BasisMonth: 100, BasisYear: 1200, BasisPeriod: 3600} {
		ev, err := s.Evaluate(in, Options{PerDollar: basis, PricePerf: basis})
		if err != nil {
			t.Fatal(err)
		}
		r := ev.Rows[0]
		if !near(r.PerDollar, 1200/cost) || !near(r.PricePerformance, cost/1200) {
			t.Errorf("%s: per dollar %v, price-performance %v; cost %v", basis, r.PerDollar, r.PricePerformance, cost)
		}
	}
	ev, err := s.Evaluate(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.PerDollar != BasisYear || ev.PricePerf != BasisPeriod || ev.Metric != "tps" || ev.Period != "3y" {
		t.Errorf("defaults: %s, %s, %s, %s", ev.PerDollar, ev.PricePerf, ev.Metric, ev.Period)
	}
}

func TestEvaluateRefuses(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	for _, c := range []struct {
		in   []Input
		opt  Options
		want string
	}{
		{nil, Options{}, "nothing to evaluate: name at least one system of scenario.yaml (arm, x86, arm-big, unknown-cpu)"},
		{[]Input{{System: "arm"}, {System: "arm"}}, Options{}, `system "arm" is listed twice`},
		{[]Input{{System: "armm"}}, Options{}, `has no system "armm": did you mean "arm"?`},
		{[]Input{{System: "arm", Throughput: Figure{Value: 5}}, {System: "x86"}}, Options{},
			`system "x86" has no throughput figure while "arm" has one: give one for every system, or none for a cost-only comparison`},
		{[]Input{{System: "arm"}, {System: "x86", Throughput: Figure{Value: 5}}}, Options{},
			`system "arm" has no throughput figure while "x86" has one`},
		{[]Input{{System: "arm", Throughput: Figure{ByThreads: map[int]float64{8: 1, 16: 2}, Threads: []int{32}}}}, Options{},
			`system "arm": no throughput at 32 threads to average: the figures are at 8, 16 threads; choose among those`},
		{[]Input{{System: "arm", Throughput: Figure{Value: -3}}}, Options{}, `throughput -3: give a positive figure`},
		{[]Input{{System: "arm"}}, Options{PricePerf: "decade"}, `cost basis "decade"`},
		{[]Input{{System: "arm"}}, Options{Baseline: "x86"}, `baseline "x86" is not among the systems compared (arm): pick one of them`},
	} {
		if _, err := s.Evaluate(c.in, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want …%s…", c.in, err, c.want)
		}
	}
}

func TestFigureMean(t *testing.T) {
	all := map[int]float64{1: 10, 2: 20, 4: 60}
	for _, c := range []struct {
		f       Figure
		mean    float64
		threads []int
		err     string
	}{
		{Figure{Value: 7}, 7, nil, ""},
		{Figure{ByThreads: all}, 30, []int{1, 2, 4}, ""},
		{Figure{ByThreads: all, Threads: []int{2, 4}}, 40, []int{2, 4}, ""},
		{Figure{Value: 7, ByThreads: all}, 0, nil, "both a single value and values by thread count"},
		{Figure{}, 0, nil, "no throughput figure"},
		{Figure{ByThreads: map[int]float64{1: 0}}, 0, nil, "throughput 0 at 1 threads: give a positive figure"},
	} {
		mean, threads, err := c.f.Mean()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: got %v, want …%s…", c.f, err, c.err)
			}
			continue
		}
		if err != nil || mean != c.mean || len(threads) != len(c.threads) {
			t.Errorf("%+v: %v %v %v, want %v %v", c.f, mean, threads, err, c.mean, c.threads)
		}
	}
}

func TestRoundTo(t *testing.T) {
	for _, c := range []struct{ x, unit, want float64 }{
		{883.008, 0.01, 883.01}, {1065.216, 0.01, 1065.22}, {1065.215, 0.01, 1065.22}, {-2.345, 0.01, -2.35},
		{57.232, 0.01, 57.23}, {12.5, 1, 13}, {1234, 100, 1200},
	} {
		if got := roundTo(c.x, c.unit); got != c.want {
			t.Errorf("roundTo(%v, %v) = %v, want %v", c.x, c.unit, got, c.want)
		}
	}
}
