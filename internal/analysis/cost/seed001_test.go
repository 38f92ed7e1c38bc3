package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Seed 001 (Krunal Bauskar, "MySQL Ecosystem on ARM", the cost-performance
// model slides) reproduced from its raw inputs.
//
// The tps/USD columns are printed truncated, not rounded: 78,869 tps ÷ 800
// USD = 98.59 is printed "98 tps/usd" (55,537 ÷ 800 = 69.42, "69"). They are
// reproduced by truncation below; the "%" column (42%) and the "Saving" row
// (41%, 20%, ~50%) reproduce by rounding. "almost double the compute power
// (36 -vs- 62.4)" is vCPU × GHz of the 3,432 and 3,578 USD instances.

// seed001Sheet writes the talk's yearly instance prices as a price sheet.
func seed001Sheet(t *testing.T) *Sheet {
	t.Helper()
	instances := []struct {
		name, arch string
		vcpu       int
		ghz        float64
		yearly     float64
	}{
		{"huawei-arm", "arm64", 16, 2.6, 2745}, {"huawei-x86", "x86_64", 16, 3.0, 4687},
		{"aws-arm", "arm64", 16, 2.5, 3384}, {"aws-x86", "x86_64", 16, 2.5, 4239},
		{"packet-arm", "arm64", 32, 3.3, 8760}, {"packet-x86", "x86_64", 32, 2.5, 17520},
		{"huawei-x86-12", "x86_64", 12, 3.0, 3432}, {"huawei-arm-24", "arm64", 24, 2.6, 3578},
		{"example-arm", "arm64", 0, 0, 800}, {"example-x86", "x86_64", 0, 0, 800},
	}
	var b strings.Builder
	b.WriteString("source: seed 001\nperiod: 1y\ninstances:\n")
	for _, in := range instances {
		fmt.Fprintf(&b, "  - {name: %s, arch: %s, price_per_year: %v", in.name, in.arch, in.yearly)
		if in.vcpu > 0 {
			fmt.Fprintf(&b, ", vcpu: %d, ghz: %v", in.vcpu, in.ghz)
		}
		b.WriteString("}\n")
	}
	b.WriteString("systems:\n")
	for _, in := range instances {
		fmt.Fprintf(&b, "  - {name: %s, items: [{instance: %s}]}\n", in.name, in.name)
	}
	s, err := ParseSheet("seed001.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return s
}

func truncated(x float64) string { return strconv.Itoa(int(x)) }

func TestSeed001TPSPerUSD(t *testing.T) {
	sheets := map[string]*Sheet{"raw inputs": seed001Sheet(t)}
	if s, err := LoadSheet("../../../prices/mysqlonarm-cpm-2020.yaml"); err != nil {
		t.Fatal(err)
	} else {
		sheets["prices/ example"] = s
	}
	for name, s := range sheets {
		// "cost of instance: 800 usd (yearly)", update-index at 1,024 threads.
		in := []Input{{System: "example-x86", Throughput: Figure{Value: 55537}}, {System: "example-arm", Throughput: Figure{Value: 78869}}}
		ev, err := s.Evaluate(in, Options{Metric: "tps", PerDollar: BasisYear})
		if err != nil {
			t.Fatal(err)
		}
		x86, arm := ev.Rows[0], ev.Rows[1]
		if got := truncated(arm.PerDollar); got != "98" {
			t.Errorf("%s: ARM tps/usd %v, printed 98", name, arm.PerDollar)
		}
		if got := truncated(x86.PerDollar); got != "69" {
			t.Errorf("%s: x86 tps/usd %v, printed 69", name, x86.PerDollar)
		}
		if got := atPrinted(arm.Diff.PerDollar, "42%"); got != "42%" {
			t.Errorf("%s: ARM vs x86 tps/usd: got %s, printed 42%%", name, got)
		}
		if got := atPrinted(arm.Diff.Throughput, "42%"); got != "42%" {
			t.Errorf("%s: ARM vs x86 tps at equal cost: got %s, printed 42%%", name, got)
		}

		// The same through the equal-cost scenario: 800 USD a year buys one of each.
		ec, err := s.EqualCost(in, EqualCostOptions{Budget: 800, Per: BasisYear})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ec.Rows {
			if r.Count != 1 || r.Spent != 800 || r.Leftover != 0 {
				t.Errorf("%s: %s: %d copies for %v, want one for 800", name, r.System, r.Count, r.Spent)
			}
		}
		if got := truncated(ec.Rows[1].PerDollar); got != "98" {
			t.Errorf("%s: equal cost: ARM tps/usd %v, printed 98", name, ec.Rows[1].PerDollar)
		}
		if got := atPrinted(ec.Rows[1].Diff.PerDollar, "42%"); got != "42%" {
			t.Errorf("%s: equal cost: got %s, printed 42%%", name, got)
		}
	}
}

func TestSeed001Saving(t *testing.T) {
	s := seed001Sheet(t)
	// The "Saving" row: how much less the ARM instance costs a year.
	for _, c := range []struct{ provider, printed string }{{"huawei", "41%"}, {"aws", "20%"}, {"packet", "50%"}} {
		ev, err := s.Evaluate([]Input{{System: c.provider + "-x86"}, {System: c.provider + "-arm"}}, Options{PricePerf: BasisYear})
		if err != nil {
			t.Fatal(err)
		}
		if ev.HasThroughput {
			t.Errorf("a comparison without throughput has throughput")
		}
		saving := -ev.Rows[1].Diff.Cost
		if got := atPrinted(saving, c.printed); got != c.printed {
			t.Errorf("%s saving: got %s (%.2f%%), printed %s", c.provider, got, saving, c.printed)
		}
		if y := ev.Rows[1].Cost.Yearly; y != map[string]float64{"huawei": 2745, "aws": 3384, "packet": 8760}[c.provider] {
			t.Errorf("%s ARM yearly cost %v", c.provider, y)
		}
	}
}

func TestSeed001EqualCostHuawei(t *testing.T) {
	s := seed001Sheet(t)
	in := []Input{{System: "huawei-x86-12"}, {System: "huawei-arm-24"}}
	// "on huawei-cloud for 3500 USD (yearly)": the ARM instance costs 3,578,
	// 2.2% over, so without an allowance it does not fit.
	ec, err := s.EqualCost(in, EqualCostOptions{Budget: 3500, Per: BasisYear})
	if err != nil {
		t.Fatal(err)
	}
	if got := ec.DoesNotFit(); len(got) != 1 || got[0] != "huawei-arm-24" {
		t.Errorf("DoesNotFit = %v, want [huawei-arm-24]", got)
	}
	if ec.Rows[0].Count != 1 || ec.Rows[1].Diff != nil {
		t.Errorf("rows %+v", ec.Rows)
	}

	ec, err = s.EqualCost(in, EqualCostOptions{Budget: 3500, Per: BasisYear, AllowOver: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	x86, arm := ec.Rows[0], ec.Rows[1]
	if x86.Count != 1 || arm.Count != 1 {
		t.Fatalf("counts %d and %d, want one each", x86.Count, arm.Count)
	}
	if math.Abs(x86.ComputePower-36) > 1e-9 || math.Abs(arm.ComputePower-62.4) > 1e-9 {
		t.Errorf("compute power %v vs %v, printed 36 -vs- 62.4", x86.ComputePower, arm.ComputePower)
	}
	if x86.Leftover != 68 || arm.Leftover != -78 {
		t.Errorf("leftover %v and %v, want 68 and -78", x86.Leftover, arm.Leftover)
	}
	if arm.VCPU != 24 || arm.Diff == nil || math.Abs(arm.Diff.VCPU-100) > 1e-9 {
		t.Errorf("ARM vCPU %d, diff %+v: want 24, +100%%", arm.VCPU, arm.Diff)
	}
}
