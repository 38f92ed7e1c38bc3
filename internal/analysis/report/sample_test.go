package report

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/golden"
)

var sample = flag.String("sample", "", "write the sample report of the seed fixture (report.html, report.md, png/) into this directory to look at")

// seedFigure is one thread count of seed 000 ("MySQL on x86 vs ARM"): the
// published ARM and x86 figures of a table.
type seedFigure struct {
	threads  int
	arm, x86 float64
}

// Two of seed 000's tables: point select (qps: one query per event, so tps
// alike) and read-write (tps).
var seedPointSelect = []seedFigure{
	{1, 6696, 6439}, {2, 12482, 11774}, {4, 23881, 21308}, {8, 45993, 42110}, {16, 88517, 81239},
	{32, 142974, 136724}, {64, 198839, 212484}, {128, 217778, 241555}, {256, 209797, 224009},
}

var seedReadWrite = []seedFigure{
	{1, 137, 149}, {2, 251, 273}, {4, 462, 502}, {8, 852, 920}, {16, 1539, 1678},
	{32, 2556, 2906}, {64, 3770, 5158}, {128, 5015, 8131}, {256, 5676, 8562},
}

// seedRounds is the rounds each cell of the seed fixture has: the seed's
// figure is their mean, the rounds spread by a fixed pattern (±3 %), so that
// the differences the seed prints are tested.
var seedRounds = []float64{-0.03, -0.01, 0.01, 0.03}

// writeSeedSystem writes one system of the seed fixture into a directory:
// both tables × 9 thread counts × 4 rounds, each with a 2-interval warm-up, a
// series of 1-second intervals and a trailing partial interval of 0.4 s (as
// results of older runs end), latency from the throughput (Little's law).
func writeSeedSystem(t *testing.T, dir, arch, cpu string, ghz float64, x86 bool) {
	t.Helper()
	m := result.Machine{Arch: arch, CPUModel: cpu, LogicalCPUs: 24, Cores: 24, MHz: ghz * 1000}
	n := 0
	for _, tab := range []struct {
		workload string
		figures  []seedFigure
	}{{"oltp_point_select", seedPointSelect}, {"oltp_read_write", seedReadWrite}} {
		for _, f := range tab.figures {
			fig := f.arm
			if x86 {
				fig = f.x86
			}
			for round, dev := range seedRounds {
				tps := fig * (1 + dev)
				res := &result.Result{
					Schema: result.SchemaVersion, Tool: result.Tool{Name: "fairbench", Version: "test"},
					Workload: tab.workload, Threads: f.threads, Status: result.StatusComplete, Machine: m,
					Server:  result.Server{Flavor: "MySQL", Version: "8.0.19"},
					Target:  result.Target{Driver: "mysql", Socket: "/run/mysqld/mysqld.sock"},
					Options: map[string]string{"rand-type": "uniform", "threads": strconv.Itoa(f.threads), "tables": "96", "table-size": "1500000"},
					Start:   time.Date(2020, 4, 7, 4, 0, n, 0, time.UTC),
					Totals: result.Phase{Seconds: 10, TPS: tps, QPS: tps,
						Latency: result.Latency{Percentiles: map[string]float64{"95": 1.6 * 1000 * float64(f.threads) / tps}}},
				}
				for s := 1; s <= 12; s++ {
					wave := 1 + 0.02*math.Sin(float64(s+round))
					if s <= 2 {
						wave = 0.6 + 0.2*float64(s)
					}
					res.Intervals = append(res.Intervals, result.Interval{At: float64(s), Seconds: 1, Warmup: s <= 2, Threads: f.threads, TPS: tps * wave})
				}
				res.Intervals = append(res.Intervals, result.Interval{At: 12.4, Seconds: 0.4, Threads: f.threads, TPS: tps * 0.3})
				n++
				if err := result.Write(filepath.Join(dir, fmt.Sprintf("r%03d.json", n)), res); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// seedReport builds the sample report of the seed fixture: ARM against the
// baseline x86 with frequency scaling, p95 latency, and made-up prices.
func seedReport(t *testing.T) *Report {
	t.Helper()
	var systems []*analysis.System
	for _, s := range []struct {
		label, arch, cpu string
		ghz              float64
	}{{"ARM", "arm64", "Kunpeng 920", 2.6}, {"x86", "x86_64", "Xeon Gold 6266C", 3.0}} {
		dir := t.TempDir()
		writeSeedSystem(t, dir, s.arch, s.cpu, s.ghz, s.label == "x86")
		sys, err := analysis.Load(dir, s.label)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, sys)
	}
	r, err := Build(systems, Options{
		Compare:           analysis.CompareOptions{Metric: analysis.MetricTPS, Baseline: "x86"},
		LatencyPercentile: "95",
		Cost: &CostSection{Title: "Cost and price-performance over 1y", Source: "made-up yearly prices for the test",
			Headline: []string{"Cost: ARM costs 40 % less per tps than x86 over 1y (made up)."},
			Text:     "ARM 800 USD/year\nx86 1,360 USD/year\n", Markdown: "| system | USD/year |\n|---|---:|\n| ARM | 800 |\n| x86 | 1,360 |\n",
			HTML:     "<table class=\"cost\"><tr><th>system</th><th class=\"num\">USD/year</th></tr><tr><td>ARM</td><td class=\"num\">800</td></tr><tr><td>x86</td><td class=\"num\">1,360</td></tr></table>",
			Baseline: "x86", Monthly: []Bar{{Label: "ARM", Value: 66.67, Color: 0}, {Label: "x86", Value: 113.33, Color: 1}}, MonthlyUnit: "USD/month",
			PricePerformance: []Bar{{Label: "ARM", Value: 0.0075, Color: 0}, {Label: "x86", Value: 0.0098, Color: 1}}, PricePerformanceUnit: "USD per tps (year)",
			PerDollar: []Bar{{Label: "ARM", Value: 133.4, Color: 0}, {Label: "x86", Value: 102.2, Color: 1}}, PerDollarUnit: "tps per USD (year)"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSampleReport renders the seed fixture's report as text and Markdown
// against golden files (go test ./internal/analysis/report -update), and with -sample
// DIR writes the HTML, Markdown and PNGs there to look at.
func TestSampleReport(t *testing.T) {
	r := seedReport(t)
	var text, md bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md, "png"); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "seed000.txt.golden", text.Bytes())
	checkGolden(t, "seed000.md.golden", md.Bytes())
	if *sample == "" {
		return
	}
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*sample, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"report.html": html.Bytes(), "report.md": md.Bytes(), "report.txt": text.Bytes()} {
		if err := os.WriteFile(filepath.Join(*sample, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.WritePNGs(filepath.Join(*sample, "png")); err != nil {
		t.Fatal(err)
	}
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}
