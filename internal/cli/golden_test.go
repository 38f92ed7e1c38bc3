package cli

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/compat/sysbenchout"
	"github.com/fairbench/fairbench/internal/record/result"
	goldenfile "github.com/fairbench/fairbench/internal/testing/golden"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func fixedResult(rate float64) *result.Result {
	lat := func(scale float64) result.Latency {
		return result.Latency{MinMs: 0.41 * scale, AvgMs: 2.5 * scale, MaxMs: 48.2 * scale, SumMs: 50123.4 * scale,
			Percentiles: map[string]float64{"50": 2.1 * scale, "95": 6.09 * scale, "99": 11.2 * scale, "99.9": 30.5 * scale}}
	}
	r := &result.Result{
		Status:  result.StatusComplete,
		Threads: 4,
		Rate:    rate,
		Warmup:  &result.Phase{Seconds: 5, TPS: 1000, QPS: 20000, Counts: result.Counters{Events: 5000}},
		Totals: result.Phase{
			Seconds: 10.0012,
			Counts: result.Counters{Events: 20000, Queries: 400000, Reads: 280000, Writes: 80000, Others: 40000,
				Reconnects: 1, Errors: map[string]int64{"1213": 3, "1205": 1}},
			TPS: 1999.76, QPS: 39995.2,
			Latency:  lat(1),
			Service:  lat(0.5),
			Fairness: result.Fairness{EventsAvg: 5000, EventsStddev: 12.5, ExecSecAvg: 9.98, ExecSecStddev: 0.01},
		},
		Start: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
	}
	return r
}

func TestSummaryGolden(t *testing.T) {
	pcts := []float64{50, 95, 99, 99.9}
	for _, tc := range []struct {
		name string
		rate float64
	}{{"summary.golden", 0}, {"summary_rate.golden", 2000}} {
		var b bytes.Buffer
		res := fixedResult(tc.rate)
		if tc.rate > 0 {
			res.Observed = &result.Observed{Bound: result.BoundCPU, Verdict: "CPU-bound: machine CPUs 97% busy, iowait 0.4%; the client used 21% of the machine"}
		}
		summary(&b, res, pcts)
		golden(t, tc.name, b.Bytes())
	}
}

// TestSummaryWarningsGolden prints a result with warnings (an open-loop run
// at 40 % of its --rate, a TLS fall-back): they end the summary.
func TestSummaryWarningsGolden(t *testing.T) {
	r := fixedResult(5000)
	r.Target = result.Target{Driver: "mysql", SSL: "on", TLS: &result.TLS{}}
	r.AddWarning(result.TLSWarning(r.Target))
	r.AddWarning(result.RateWarning(r.Rate, r.Totals))
	if len(r.Warnings) != 2 {
		t.Fatalf("warnings %q, want the TLS fall-back and the rate shortfall", r.Warnings)
	}
	var b bytes.Buffer
	summary(&b, r, []float64{95})
	golden(t, "summary_warnings.golden", b.Bytes())
}

func TestSummaryWithKindsGolden(t *testing.T) {
	r := fixedResult(0)
	r.Warmup = nil
	r.Kinds = []string{"new_order", "payment"}
	kl := func(avg, p95, max float64) result.Latency {
		return result.Latency{AvgMs: avg, MaxMs: max, Percentiles: map[string]float64{"95": p95}}
	}
	r.Totals.Kinds = []result.KindPhase{
		{Name: "new_order", Events: 10400, Rollbacks: 104, TPS: 1039.88, Latency: kl(3.1, 7.25, 40.5)},
		{Name: "payment", Events: 9600, Errors: map[string]int64{"1213": 3}, TPS: 959.89, Latency: kl(1.9, 4.5, 30.1)},
	}
	r.Figures = []result.Figure{{Name: "tpmC", Value: 62392.5, Unit: "transactions/min"}, {Name: "efficiency", Value: 97.03, Unit: "%"}}
	var b bytes.Buffer
	summary(&b, r, []float64{95})
	golden(t, "summary_kinds.golden", b.Bytes())
}

func TestIntervalLineGolden(t *testing.T) {
	var b bytes.Buffer
	pcts := []float64{50, 95, 99}
	sysbenchout.IntervalLine(&b, result.Interval{At: 1.0004, Seconds: 1, Warmup: true, Threads: 16, TPS: 1234.56, QPS: 24691.2,
		Counts:    result.Counters{Events: 1234, Reads: 17284, Writes: 4938, Others: 2469, Queries: 24691, Errors: map[string]int64{"1213": 2}},
		LatencyMs: map[string]float64{"50": 9.1, "95": 21.89, "99": 40.1}}, pcts)
	sysbenchout.IntervalLine(&b, result.Interval{At: 10, Seconds: 1, Threads: 16, TPS: 1300, QPS: 26000,
		Counts:    result.Counters{Events: 1300, Reads: 18200, Writes: 5200, Others: 2600, Queries: 26000, Reconnects: 1},
		LatencyMs: map[string]float64{"50": 8, "95": 20, "99": 38}}, pcts)
	sysbenchout.IntervalLine(&b, result.Interval{At: 10.5, Seconds: 0.5, Threads: 16, Stall: true, LatencyMs: map[string]float64{"95": 0}}, pcts)
	sysbenchout.IntervalLine(&b, result.Interval{At: 11, Seconds: 1, Threads: 1, TPS: 10, QPS: 10,
		Counts:    result.Counters{Events: 10, Reads: 10, Queries: 10},
		LatencyMs: map[string]float64{"99.9": 1.5}}, []float64{99.9})
	golden(t, "interval.golden", b.Bytes())
}

// TestIntervalLabel pins the time label of interval lines: the reporter ends
// intervals on the --report-interval grid, so whole seconds read as sysbench
// prints them ("[ 10s ]") and half seconds as "[ 1.5s ]" (once "[ 2s ]"); a
// last, partial interval shows where it ended instead of repeating the
// previous label.
func TestIntervalLabel(t *testing.T) {
	for _, tc := range []struct {
		at   float64
		want string
	}{
		{10, "10"},
		{1.0004, "1"},
		{0.5, "0.5"},
		{1.5, "1.5"},
		{2, "2"},
		{0.25, "0.25"},
		{1.25, "1.25"},
		{3 * 0.1, "0.3"},
		{2.3015, "2.302"}, // a partial last interval
		{0.0004, "0"},
	} {
		if got := sysbenchout.IntervalLabel(tc.at); got != tc.want {
			t.Errorf("sysbenchout.IntervalLabel(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}
