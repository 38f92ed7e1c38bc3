package analysis

import (
	"testing"

	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// TestDefaultMetric: tpmC for TPC-C alone, tps for anything else and for a
// mix (one metric per comparison).
func TestDefaultMetric(t *testing.T) {
	for _, c := range []struct {
		workloads []string
		want      Metric
	}{
		{[]string{"tpcc"}, MetricTpmC},
		{[]string{"oltp_read_only"}, MetricTPS},
		{[]string{"oltp_point_select", "oltp_read_write"}, MetricTPS},
		{[]string{"tpcc", "oltp_read_write"}, MetricTPS},
		{nil, MetricTPS},
	} {
		if got := DefaultMetric(c.workloads); got != c.want {
			t.Errorf("DefaultMetric(%v) = %s, want %s", c.workloads, got.Name, c.want.Name)
		}
	}
}

// TestCompareDefaultsToTheFigureOfItsRows: without a metric, a comparison
// of TPC-C rows shows tpmC, of OLTP rows tps, and of both tps — and
// selecting the TPC-C rows alone shows tpmC again; without a center, the
// mean.
func TestCompareDefaultsToTheFigureOfItsRows(t *testing.T) {
	tpcc := func(tpmC float64) fakeRun {
		return fakeRun{machine: armMachine, server: mysql8, workload: "tpcc", warehouses: 10, threads: 8, tps: tpmC / 27, tpmC: tpmC}
	}
	oltp := fakeRun{machine: armMachine, server: mysql8, workload: "oltp_read_only", tables: 4, size: 1000, threads: 8, tps: 500, qps: 8000}
	onlyTPCC := mustSystem(t, "arm", tpcc(1000), tpcc(1300), tpcc(1900))
	both := mustSystem(t, "arm", tpcc(1000), oltp)
	tpccRows, err := ParseSelector("tpcc")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sys  *System
		sel  []Selector
		want Metric
	}{
		{"tpcc", onlyTPCC, nil, MetricTpmC},
		{"oltp", mustSystem(t, "arm", oltp), nil, MetricTPS},
		{"both", both, nil, MetricTPS},
		{"both, tpcc selected", both, []Selector{tpccRows}, MetricTpmC},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp, err := Compare([]*System{c.sys}, CompareOptions{Select: c.sel})
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Metric != c.want || cmp.Center != CenterMean {
				t.Errorf("compared %s, %s of rounds; want %s, mean", cmp.Metric.Name, cmp.Center, c.want.Name)
			}
		})
	}
	cmp, err := Compare([]*System{onlyTPCC}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := cmp.Rows[0].Cells[0].Value; !near(v, 1400) {
		t.Errorf("the TPC-C cell's figure is %g, want the mean tpmC 1400 (median 1300)", v)
	}
}

// TestSummarySample: a manifest's cell summary gives every metric what the
// cell's result gives it, and lacks what the result lacked.
func TestSummarySample(t *testing.T) {
	s := SummarySample(&suitedir.Summary{TPS: 100, QPS: 2000, P95Ms: 1.5, TpmC: 2700})
	for _, c := range []struct {
		m    Metric
		want float64
	}{{MetricTPS, 100}, {MetricQPS, 2000}, {MetricTpmC, 2700}, {LatencyMetric("95"), 1.5}} {
		if v, ok := c.m.Value(s); !ok || v != c.want {
			t.Errorf("%s = %g, %v; want %g", c.m.Name, v, ok, c.want)
		}
	}
	bare := SummarySample(&suitedir.Summary{TPS: 100, QPS: 2000})
	for _, m := range []Metric{MetricTpmC, LatencyMetric("95")} {
		if v, ok := m.Value(bare); ok {
			t.Errorf("a summary without %s gives %g", m.Name, v)
		}
	}
}

// TestOfRounds: tables name their center and how many rounds it is of.
func TestOfRounds(t *testing.T) {
	for _, c := range []struct {
		center Center
		n      int
		want   string
	}{{CenterMean, 3, "mean of 3 rounds"}, {CenterMedian, 5, "median of 5 rounds"}, {CenterMean, 1, "1 round"}} {
		if got := c.center.OfRounds(c.n); got != c.want {
			t.Errorf("%s.OfRounds(%d) = %q, want %q", c.center, c.n, got, c.want)
		}
	}
}
