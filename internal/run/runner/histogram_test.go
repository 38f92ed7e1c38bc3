package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestIntervalHistogramsAndTheirHook runs on MariaDB with IntervalHistograms:
// OnIntervalHistogram sees the intervals OnInterval sees, in order, each with
// the latency it was computed from, and each interval with events keeps that
// histogram in the result; without IntervalHistograms none is kept.
func TestIntervalHistogramsAndTheirHook(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	wl := &queryWorkload{longQuery: "SELECT 1"}
	type fed struct {
		iv     result.Interval
		count  int64
		max    time.Duration
		counts []int64 // the histogram's buckets as handed over
	}
	var plain []result.Interval
	var hooked []fed
	cfg := Config{Threads: 2, Warmup: 400 * time.Millisecond, Duration: time.Second, ReportInterval: 200 * time.Millisecond,
		Percentiles: []float64{50, 99}, IntervalHistograms: true}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t),
		OnInterval: func(iv result.Interval) { plain = append(plain, iv) },
		OnIntervalHistogram: func(iv result.Interval, lat *metrics.Latency) {
			if lat.Hist.TotalCount() != lat.Count {
				t.Errorf("interval at %vs: histogram holds %d, count %d", iv.At, lat.Hist.TotalCount(), lat.Count)
			}
			hooked = append(hooked, fed{iv, lat.Count, lat.Max, lat.Hist.Export().Counts})
		}})
	if out.Status != result.StatusComplete || out.Totals.Counts.Events == 0 {
		t.Fatalf("status %s, %d events, err %v", out.Status, out.Totals.Counts.Events, out.Err)
	}
	if len(hooked) != len(plain) || len(hooked) != len(out.Intervals) {
		t.Fatalf("OnIntervalHistogram saw %d intervals, OnInterval %d, the result holds %d", len(hooked), len(plain), len(out.Intervals))
	}
	warm := 0
	for i, h := range hooked {
		iv := out.Intervals[i]
		if h.iv.At != plain[i].At || h.iv.At != iv.At {
			t.Fatalf("interval %d: hook at %vs, OnInterval at %vs, result at %vs", i, h.iv.At, plain[i].At, iv.At)
		}
		if h.count != iv.Counts.Events || float64(h.max)/float64(time.Millisecond) != iv.MaxMs {
			t.Errorf("interval %d: hook had %d events max %v; interval %d events max %v ms", i, h.count, h.max, iv.Counts.Events, iv.MaxMs)
		}
		if iv.Warmup {
			warm++
		}
		if iv.Counts.Events == 0 {
			if iv.Histogram != nil {
				t.Errorf("interval %d has no events but a histogram", i)
			}
			continue
		}
		dec, err := iv.Histogram.Decode()
		if err != nil {
			t.Fatalf("interval %d: %v", i, err)
		}
		if dec.TotalCount() != iv.Counts.Events || !slices.Equal(dec.Export().Counts, h.counts) {
			t.Errorf("interval %d: kept histogram holds %d events, differs from the one handed over: %v", i, dec.TotalCount(), !slices.Equal(dec.Export().Counts, h.counts))
		}
		// The interval's percentiles come from that histogram (kept within
		// the exact extremes, which the file does not hold for an interval).
		for key, q := range map[string]float64{"50": 0.5, "99": 0.99} {
			if got, want := iv.LatencyMs[key], result.HistogramQuantileMs(dec, q, 0, iv.MaxMs); got < want || got > want+0.001 {
				t.Errorf("interval %d: p%s %v ms, its histogram says %v", i, key, got, want)
			}
		}
	}
	if warm == 0 || warm == len(hooked) {
		t.Errorf("%d of %d intervals are warm-up ones, want both kinds", warm, len(hooked))
	}

	cfg.IntervalHistograms, cfg.Warmup = false, 0
	out = Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t)})
	if out.Status != result.StatusComplete {
		t.Fatalf("status %s, err %v", out.Status, out.Err)
	}
	for i, iv := range out.Intervals {
		if iv.Histogram != nil {
			t.Fatalf("interval %d keeps a histogram without IntervalHistograms", i)
		}
	}
}
