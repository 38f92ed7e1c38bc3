package livemetrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
)

// latencyOf records the values (µs) as the runner's metrics.Latency holds them.
func latencyOf(t *testing.T, values ...int64) *metrics.Latency {
	t.Helper()
	l := &metrics.Latency{Hist: metrics.NewHistogram()}
	for _, v := range values {
		if err := l.Hist.RecordValue(v); err != nil {
			t.Fatal(err)
		}
		d := time.Duration(v) * time.Microsecond
		if l.Count == 0 || d < l.Min {
			l.Min = d
		}
		l.Max = max(l.Max, d)
		l.Count++
		l.Sum += d
	}
	return l
}

// topOfBucket is the highest value HdrHistogram takes as equal to v: the
// oracle of which bound a value counts under.
func topOfBucket(v int64) int64 {
	h := metrics.NewHistogram()
	_ = h.RecordValue(v)
	return h.ValueAtPercentile(100)
}

func TestCumulativeCountsMatchCountingOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var values []int64
	for range 3000 {
		v := int64(50 + rng.ExpFloat64()*2000)
		if rng.IntN(100) == 0 {
			v *= 1000 // seconds-long stalls
		}
		values = append(values, v)
	}
	// Values on and next to bounds, where the bucket edges matter.
	values = append(values, 100, 250, 251, 2500, 2501, 25000, 24999, 25001, 10_000_000, 10_000_001, 3_600_000_000)
	bounds := micros(LatencyBounds())
	for _, tc := range []struct {
		name   string
		values []int64
	}{
		{"empty", nil},
		{"one value", []int64{700}},
		{"all below the first bound", []int64{1, 5, 99}},
		{"all above the last bound", []int64{20_000_000, 30_000_000}},
		{"spread", values},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]uint64, len(bounds))
			for _, v := range tc.values {
				top := topOfBucket(v)
				for i, b := range bounds {
					if top <= b {
						want[i]++
					}
				}
			}
			got := make([]uint64, len(bounds))
			for i := range got {
				got[i] = 99 // overwritten, even when empty
			}
			cumulativeCounts(latencyOf(t, tc.values...).Hist, bounds, got)
			if !slices.Equal(got, want) {
				t.Errorf("counts %v, want %v (bounds %v µs)", got, want, bounds)
			}
		})
	}
	// Below 2048 µs HdrHistogram is exact, so the counts are too.
	got := make([]uint64, len(bounds))
	cumulativeCounts(latencyOf(t, 99, 100, 101, 250, 499, 500, 501, 1000).Hist, bounds, got)
	if got[0] != 2 || got[1] != 4 || got[2] != 6 || got[3] != 8 {
		t.Errorf("exact counts at 0.1, 0.25, 0.5, 1 ms = %v, want 2, 4, 6, 8", got[:4])
	}
}

// TestCumulativeCountsAddUp checks that the counts of two intervals add up to
// those of their merge, which a Prometheus histogram fed interval by interval
// relies on.
func TestCumulativeCountsAddUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var a, b []int64
	for range 2000 {
		a = append(a, int64(100+rng.ExpFloat64()*5000))
		b = append(b, int64(100+rng.ExpFloat64()*50000))
	}
	bounds := micros(LatencyBounds())
	ca, cb, cm := make([]uint64, len(bounds)), make([]uint64, len(bounds)), make([]uint64, len(bounds))
	ha, hb := latencyOf(t, a...).Hist, latencyOf(t, b...).Hist
	cumulativeCounts(ha, bounds, ca)
	cumulativeCounts(hb, bounds, cb)
	merged := ha.Clone()
	merged.Merge(hb)
	cumulativeCounts(merged, bounds, cm)
	for i := range cm {
		if ca[i]+cb[i] != cm[i] {
			t.Fatalf("bound %d µs: %d + %d != %d of the merge", bounds[i], ca[i], cb[i], cm[i])
		}
	}
}

func TestCumulativeCountsAllocateNothing(t *testing.T) {
	h := latencyOf(t, 120, 800, 3000, 45_000, 2_000_000).Hist
	bounds := micros(LatencyBounds())
	dst := make([]uint64, len(bounds))
	if n := testing.AllocsPerRun(20, func() { cumulativeCounts(h, bounds, dst) }); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

// TestObserveIntervalFeedsTheHistogram feeds two intervals with their
// latencies: the histogram's count is the events counted, its sum the exact
// sum, its buckets those of the latencies, and every bound of LatencyBounds is
// exposed.
func TestObserveIntervalFeedsTheHistogram(t *testing.T) {
	e := New(Labels{Target: "mysql"})
	addr := serve(t, e)
	e.StartRun("oltp_point_select", 2, nil)
	first := latencyOf(t, 90, 300, 300, 1200, 7000)
	second := latencyOf(t, 40, 2_000_000, 20_000_000)
	for _, lat := range []*metrics.Latency{first, second} {
		iv := result.Interval{Threads: 2, Counts: result.Counters{Events: lat.Count}, MaxMs: float64(lat.Max) / 1e6}
		if err := e.ObserveInterval(iv, lat); err != nil {
			t.Fatal(err)
		}
	}
	s := get(t, addr)
	f := s["fairbench_event_latency_seconds"]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM || len(f.Metric) != 1 {
		t.Fatalf("fairbench_event_latency_seconds = %v, want one histogram", f)
	}
	h := f.Metric[0].GetHistogram()
	events, _ := s.value("fairbench_events_total", labels("workload=oltp_point_select"))
	wantSum := (first.Sum + second.Sum).Seconds()
	if h.GetSampleCount() != 8 || events != 8 || math.Abs(h.GetSampleSum()-wantSum) > 1e-9 {
		t.Errorf("count %d (events %v) sum %v, want 8 and %v", h.GetSampleCount(), events, h.GetSampleSum(), wantSum)
	}
	got := map[float64]uint64{}
	for _, b := range h.Bucket {
		got[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if len(got) != len(LatencyBounds())+1 {
		t.Errorf("%d buckets, want one per bound of LatencyBounds (%d) and +Inf", len(got), len(LatencyBounds()))
	}
	for le, n := range map[float64]uint64{0.0001: 2, 0.00025: 2, 0.0005: 4, 0.001: 4, 0.0025: 5, 0.01: 6, 2.5: 7, 10: 7, math.Inf(1): 8} {
		if got[le] != n {
			t.Errorf("le=%v: %d, want %d (all %v)", le, got[le], n, got)
		}
	}
	if err := e.ObserveInterval(result.Interval{}, nil); err != nil {
		t.Errorf("ObserveInterval without latencies: %v", err)
	}
}

// BenchmarkObserveInterval is the per-interval cost of feeding the live
// histogram from an interval of 100,000 events (reporter goroutine, once per
// interval; nothing per event).
func BenchmarkObserveInterval(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	lat := &metrics.Latency{Hist: metrics.NewHistogram()}
	for range 100_000 {
		v := int64(100 + rng.ExpFloat64()*3000)
		if rng.IntN(1000) == 0 {
			v *= 300
		}
		_ = lat.Hist.RecordValue(v)
		lat.Count++
		lat.Sum += time.Duration(v) * time.Microsecond
	}
	e := New(Labels{})
	e.StartRun("w", 1, nil)
	iv := result.Interval{Counts: result.Counters{Events: lat.Count}}
	b.ReportAllocs()
	for b.Loop() {
		if err := e.ObserveInterval(iv, lat); err != nil {
			b.Fatal(err)
		}
	}
}
