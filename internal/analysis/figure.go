package analysis

import (
	"fmt"
	"slices"

	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// The figure that stands for a cell — a metric and a center of its rounds —
// is chosen here once for every table fairbench prints: compare, report and
// cost, and the suite's own tables (internal/run/suite), so that one cell reads
// the same everywhere.

// DefaultCenter is the statistic of rounds every table shows unless told
// otherwise (--center): the mean, which is what throughput tables and the
// seeds show, and what the confidence intervals are of.
const DefaultCenter = CenterMean

// TPCCWorkload is the name of the TPC-C workload, whose headline figure is
// tpmC (the new-order transactions per minute) rather than tps.
const TPCCWorkload = "tpcc"

// DefaultMetric is the metric every table shows for workloads unless told
// otherwise (--metric): tpmC when every one of them is TPC-C, tps otherwise
// (one metric for all the rows of a comparison, so that rows of different
// workloads read alike). Queries per second are not the default even for
// the read-only cases: a table of several workloads would mix units.
func DefaultMetric(workloads []string) Metric {
	if len(workloads) > 0 && !slices.ContainsFunc(workloads, func(w string) bool { return w != TPCCWorkload }) {
		return MetricTpmC
	}
	return MetricTPS
}

// DefaultMetricOf is DefaultMetric of the workloads of the rows a
// comparison of systems under opts would hold (its Workloads and Select
// applied).
func DefaultMetricOf(systems []*System, opts CompareOptions) Metric {
	var workloads []string
	for _, s := range systems {
		for _, smp := range s.Samples {
			if opts.keeps(smp) && !slices.Contains(workloads, smp.Key.Workload) {
				workloads = append(workloads, smp.Key.Workload)
			}
		}
	}
	return DefaultMetric(workloads)
}

// keeps reports whether a sample is among the rows opts select.
func (o CompareOptions) keeps(smp Sample) bool {
	if len(o.Workloads) > 0 && !slices.Contains(o.Workloads, smp.Key.Workload) {
		return false
	}
	return len(o.Select) == 0 || slices.ContainsFunc(o.Select, func(s Selector) bool { return s.Matches(smp.Key) })
}

// OfRounds says which figure of n rounds a table shows: "mean of 3
// rounds"; with one round, "1 round" (every center is that round).
func (c Center) OfRounds(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%s of %d rounds", c, n)
}

// FormatFigure prints a figure as compare's tables do: three significant
// digits, integers from 100 up; NaN is "-".
func FormatFigure(v float64) string { return fmtNum(v) }

// SummarySample is the sample of a suite manifest's cell summary, for
// tables drawn from the manifest without reading the result files: the
// same figures Load reads from the cell's result (Totals.TPS, Totals.QPS,
// the tpmC figure, the p95 latency), so that Metric.Value gives the same
// value from either.
func SummarySample(s *suitedir.Summary) Sample {
	smp := Sample{TPS: s.TPS, QPS: s.QPS, Outages: s.Outages, OutageSeconds: s.OutageSeconds}
	if s.TpmC > 0 {
		smp.Figures = map[string]float64{"tpmC": s.TpmC}
	}
	if s.P95Ms > 0 {
		smp.LatencyMs = map[string]float64{"95": s.P95Ms}
	}
	return smp
}
