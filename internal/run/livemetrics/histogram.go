package livemetrics

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
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

// LatencyBounds are the bucket bounds, in seconds, of the histogram that
// ObserveInterval feeds: from 0.1 ms to 10 s in steps of 2 to 2.5 (1, 2.5, 5
// per decade), which hold client_golang's default buckets, so that sub-
// millisecond point selects and multi-second stalls both land in a bucket of
// their own. Each call returns a new slice.
func LatencyBounds() []float64 {
	return []float64{
		0.0001, 0.00025, 0.0005,
		0.001, 0.0025, 0.005,
		0.01, 0.025, 0.05,
		0.1, 0.25, 0.5,
		1, 2.5, 5,
		10,
	}
}

// micros returns bounds (seconds) in whole microseconds, the unit of the
// runner's HdrHistograms.
func micros(bounds []float64) []int64 {
	out := make([]int64, len(bounds))
	for i, b := range bounds {
		out[i] = int64(math.Round(b * 1e6))
	}
	return out
}

// cumulativeCounts sets dst[i] to the number of values of h (µs) at or below
// boundsUs[i] (increasing), within the histogram's precision: a value counts
// when the whole HdrHistogram bucket holding it (0.1% wide) lies at or below
// the bound, so the counts of several histograms add up to those of their
// merge. It reads h without changing it and allocates nothing: for each bound
// a binary search over ranks (ValueAtPercentile), about 20 scans of h per bound.
func cumulativeCounts(h *hdrhistogram.Histogram, boundsUs []int64, dst []uint64) {
	total := h.TotalCount()
	if total == 0 {
		clear(dst[:len(boundsUs)])
		return
	}
	// valueAt is the highest value equivalent to the k-th smallest (1 ≤ k ≤
	// total): the percentile 100k/total is rank k exactly (ranks round half up).
	valueAt := func(k int64) int64 { return h.ValueAtPercentile(100 * float64(k) / float64(total)) }
	top := valueAt(total)
	var lo int64 // values at or below the previous bound
	for i, b := range boundsUs {
		if b >= top {
			dst[i] = uint64(total)
			continue
		}
		// valueAt(lo) <= b (or lo = 0) and valueAt(hi) > b.
		hi := total
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if valueAt(mid) <= b {
				lo = mid
			} else {
				hi = mid
			}
		}
		dst[i] = uint64(lo)
	}
}
