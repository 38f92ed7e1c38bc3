package livemetrics

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// histogramCollector exposes fairbench_event_latency_seconds as constant
// histograms built from the distributions ObserveHistogram accumulates, one
// per workload.
type histogramCollector struct {
	desc *prometheus.Desc

	mu    sync.Mutex
	byWL  map[string]*latencyHistogram
	order []string // workloads in the order they were first seen
}

// latencyHistogram is the accumulated distribution of one workload.
type latencyHistogram struct {
	bounds []float64 // finite upper bounds, seconds
	counts []uint64  // cumulative counts per bound
	count  uint64
	sum    float64
}

func newHistogramCollector() *histogramCollector {
	return &histogramCollector{
		desc: prometheus.NewDesc("fairbench_event_latency_seconds",
			"Event latency (from the intended start), accumulated over the intervals fed so far.",
			[]string{"workload"}, nil),
		byWL: map[string]*latencyHistogram{},
	}
}

// add accumulates one interval of workload wl (already checked).
func (c *histogramCollector) add(wl string, bounds []float64, cumulative []uint64, sum float64) error {
	total := cumulative[len(cumulative)-1]
	if math.IsInf(bounds[len(bounds)-1], 1) {
		bounds, cumulative = bounds[:len(bounds)-1], cumulative[:len(cumulative)-1]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.byWL[wl]
	if h == nil {
		h = &latencyHistogram{bounds: slices.Clone(bounds), counts: make([]uint64, len(bounds))}
		c.byWL[wl] = h
		c.order = append(c.order, wl)
	}
	if !slices.Equal(h.bounds, bounds) {
		return fmt.Errorf("latency histogram of %s: the bounds changed between intervals: use the same bounds for the whole run", wl)
	}
	for i, n := range cumulative {
		h.counts[i] += n
	}
	h.count += total
	h.sum += sum
	return nil
}

// Describe implements prometheus.Collector.
func (c *histogramCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *histogramCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, wl := range c.order {
		h := c.byWL[wl]
		buckets := make(map[float64]uint64, len(h.bounds))
		for i, b := range h.bounds {
			buckets[b] = h.counts[i]
		}
		ch <- prometheus.MustNewConstHistogram(c.desc, h.count, h.sum, buckets, wl)
	}
}

// LatencyBounds are bucket bounds for ObserveHistogram: 100µs doubling up to
// about 52s, enough for OLTP events on any machine.
func LatencyBounds() []float64 { return prometheus.ExponentialBuckets(0.0001, 2, 20) }
