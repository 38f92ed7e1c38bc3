package report

import (
	"bytes"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/cost"
)

// tpccReport is the report of the TPC-C fixture (testdata/tpcc, written by
// gen.py from a real tpcc run with seed 003's Medium1 tpmC as the rounds'
// means): ARM against the baseline x86 in tpmC, p95 and p99 latency, priced
// with seed 003's sheet (prices/tidb-eks-graviton2-vs-x86-2021.yaml, US
// systems) over 300, 500 and 800 threads as the post does, through the code
// path of `fairbench report --prices` (cost.PriceSystems, NewCostSection).
func tpccReport(t *testing.T) *Report {
	t.Helper()
	var systems []*analysis.System
	for _, l := range []string{"ARM", "x86"} {
		s, err := analysis.Load(filepath.Join("testdata", "tpcc", strings.ToLower(l)), l)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	cmp := analysis.CompareOptions{Metric: analysis.MetricTpmC, Baseline: "x86"}
	sheet, err := cost.LoadSheet(filepath.Join("..", "..", "..", "prices", "tidb-eks-graviton2-vs-x86-2021.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := cost.PriceSystems(sheet, systems, cmp, cost.Selection{Systems: []string{"ARM=arm-us", "x86=x86-us"},
		Threads: []int{300, 500, 800}, PerDollar: cost.BasisYear, PricePerf: cost.BasisPeriod})
	if err != nil {
		t.Fatal(err)
	}
	sec, err := NewCostSection(systems, pr, cmp.Metric)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(systems, Options{Compare: cmp, LatencyPercentile: "95,99", Cost: sec})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTPCCReport renders the TPC-C fixture's report as Markdown against a
// golden file (go test ./internal/analysis/report -update) and checks the cost
// section against seed 003's published Medium1 figures: mean tpmC over 300,
// 500 and 800 threads of 52,601 (x86) and 53,925 (ARM), and ARM's
// price-performance 17.8 % below x86's (the model's -17.77 %; the post
// prints -18.11 %, see internal/analysis/cost/seed003_test.go).
func TestTPCCReport(t *testing.T) {
	r := tpccReport(t)
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, "png"); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tpcc.md.golden", md.Bytes())
	c := r.Cost
	if c == nil || len(c.PricePerformance) != 2 || len(c.Monthly) != 2 || len(c.PerDollar) != 2 {
		t.Fatalf("cost section %+v, want bars of both systems", c)
	}
	if c.Baseline != "x86" {
		t.Errorf("cost baseline %q, want x86", c.Baseline)
	}
	arm, x86 := c.PricePerformance[0].Value, c.PricePerformance[1].Value
	if d := (arm - x86) / x86 * 100; d > -17.7 || d < -17.85 {
		t.Errorf("ARM's price-performance %.4g against x86's %.4g: %.2f %%, want -17.77 %%", arm, x86, d)
	}
	if got := c.Monthly[1].Value; got != 2511.96 {
		t.Errorf("x86 per month %.2f, want the post's 2,511.96", got)
	}
	for _, want := range []string{"Cost: ARM costs 18 % less per tpmC than x86 over 5y", "300, 500, 800 threads"} {
		if !strings.Contains(strings.Join(r.Headline, "\n"), want) {
			t.Errorf("the headline lacks %q:\n%s", want, strings.Join(r.Headline, "\n"))
		}
	}
	if len(r.CostCharts) != 3 {
		t.Errorf("%d cost charts, want 3 (monthly, price-performance, per dollar)", len(r.CostCharts))
	}
}

// TestHTMLScalingStopsBeforeThePeak: in the HTML scalability table, where
// throughput stops growing is never after the peak, and a peak past it is
// told with it: ARM's 1000-thread peak is only 1 % above 500 threads, x86's
// 800-thread peak 1 % above 500 (the fixture's tpmC).
func TestHTMLScalingStopsBeforeThePeak(t *testing.T) {
	r := tpccReport(t)
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	for _, want := range []string{
		"<td>ARM</td><td>tpcc/uniform/w100/transport=socket</td><td>56059</td><td>1000</td><td>500 (peak at 1000, +1 %)</td>",
		"<td>x86</td><td>tpcc/uniform/w100/transport=socket</td><td>54460</td><td>800</td><td>500 (peak at 800, +1 %)</td>",
		"throughput stops growing at the smallest thread count that no larger one beats by 5% or more",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
