package result

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// giveIntervalHistograms fills every interval of r with a histogram of its
// events' pseudo-random latencies, its exact maximum and its percentiles keyed
// keys, as a run with --interval-histograms writes them.
func giveIntervalHistograms(t *testing.T, r *Result, seed uint64, keys map[string]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	for i := range r.Intervals {
		iv := &r.Intervals[i]
		h := hdrhistogram.New(1, 3_600_000_000, 3)
		var maxUs int64
		for range iv.Counts.Events {
			v := int64(200 + rng.ExpFloat64()*float64(300*(i%4+1)))
			if rng.IntN(500) == 0 {
				v *= 40
			}
			if err := h.RecordValue(v); err != nil {
				t.Fatal(err)
			}
			maxUs = max(maxUs, v)
		}
		iv.MaxMs = float64(maxUs) / 1000
		iv.LatencyMs = map[string]float64{}
		for k, q := range keys {
			iv.LatencyMs[k] = HistogramQuantileMs(h, q, 0, iv.MaxMs)
		}
		iv.Histogram = nil
		if iv.Counts.Events > 0 {
			enc, err := EncodeHistogram(h)
			if err != nil {
				t.Fatal(err)
			}
			iv.Histogram = enc
		}
	}
}

// TestMergeIntervalHistogramsGivesExactPercentiles merges three clients whose
// intervals carry histograms: each merged interval's histogram is the pooled
// one of the intervals in its slot, and its percentiles (every key a client
// reported) and maximum are those of the pooled histogram.
func TestMergeIntervalHistogramsGivesExactPercentiles(t *testing.T) {
	parts := threeClients(t) // one interval per second; skews of 0, 120 and 300 ms snap to the same slots
	for _, p := range parts {
		keys := map[string]float64{"50": 0.5, "95": 0.95, "99": 0.99}
		if p.Result.Client.ID == 2 {
			keys["99.9"] = 0.999
		}
		giveIntervalHistograms(t, p.Result, uint64(p.Result.Client.ID+1), keys)
	}
	// An interval without events carries no histogram and does not stop the merge.
	parts[1].Result.Intervals[3].Counts = Counters{}
	giveIntervalHistograms(t, parts[1].Result, 1, map[string]float64{"50": 0.5, "95": 0.95, "99": 0.99})
	if parts[1].Result.Intervals[3].Histogram != nil {
		t.Fatal("test setup: an interval without events got a histogram")
	}

	var warnings []string
	m, err := Merge(parts, MergeOptions{Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	if len(m.Intervals) != 10 {
		t.Fatalf("%d merged intervals, want 10", len(m.Intervals))
	}
	quantiles := map[string]float64{"50": 0.5, "95": 0.95, "99": 0.99, "99.9": 0.999}
	for slot, iv := range m.Intervals {
		pooled := hdrhistogram.New(1, 3_600_000_000, 3)
		var events int64
		maxMs := 0.0
		for _, p := range parts {
			if slot >= len(p.Result.Intervals) {
				continue // client 1 measured 9.9 s: nine intervals
			}
			in := p.Result.Intervals[slot]
			events += in.Counts.Events
			maxMs = math.Max(maxMs, in.MaxMs)
			if in.Histogram == nil {
				continue
			}
			h, err := in.Histogram.Decode()
			if err != nil {
				t.Fatal(err)
			}
			pooled.Merge(h)
		}
		if iv.Counts.Events != events || pooled.TotalCount() != events || iv.MaxMs != maxMs {
			t.Fatalf("slot %d: %d events (pooled histogram %d, parts %d), max %v want %v",
				slot, iv.Counts.Events, pooled.TotalCount(), events, iv.MaxMs, maxMs)
		}
		if len(iv.LatencyMs) != len(quantiles) {
			t.Errorf("slot %d: percentiles %v, want the keys %v", slot, iv.LatencyMs, quantiles)
		}
		for k, q := range quantiles {
			if want := HistogramQuantileMs(pooled, q, 0, maxMs); iv.LatencyMs[k] != want {
				t.Errorf("slot %d: p%s = %v, pooled interval histograms say %v", slot, k, iv.LatencyMs[k], want)
			}
		}
		got, err := iv.Histogram.Decode()
		if err != nil {
			t.Fatalf("slot %d: %v", slot, err)
		}
		sameCounts(t, got, pooled)
	}
	// Averaging the clients' interval p99 would not give the pooled one.
	var avg float64
	for _, p := range parts {
		avg += p.Result.Intervals[0].LatencyMs["99"] / 3
	}
	if m.Intervals[3].Counts.Events != parts[0].Result.Intervals[3].Counts.Events+parts[2].Result.Intervals[3].Counts.Events {
		t.Fatalf("slot 3 holds %d events", m.Intervals[3].Counts.Events)
	}
	if avg == m.Intervals[0].LatencyMs["99"] {
		t.Fatal("test data too uniform: averaged interval p99 equals the pooled one")
	}
}

// TestMergeIntervalsWithoutHistograms keeps the behaviour of results without
// interval histograms: summed counts, no percentiles, no warning; with only
// some clients' intervals carrying histograms, no percentiles and a warning
// that names the client without.
func TestMergeIntervalsWithoutHistograms(t *testing.T) {
	keys := map[string]float64{"95": 0.95}
	for _, tc := range []struct {
		name  string
		with  []int // indexes into threeClients' parts given histograms
		warns []string
	}{
		{"none", nil, nil},
		{"some", []int{0, 2}, []string{"the merged intervals have no percentiles", "intervals of c0.json carry no latency histograms", "unlike those of c1.json, c2.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := threeClients(t)
			for _, i := range tc.with {
				giveIntervalHistograms(t, parts[i].Result, uint64(i), keys)
			}
			var warnings []string
			m, err := Merge(parts, MergeOptions{Warn: func(s string) { warnings = append(warnings, s) }})
			if err != nil {
				t.Fatal(err)
			}
			var events int64
			for _, iv := range m.Intervals {
				events += iv.Counts.Events
				if len(iv.LatencyMs) != 0 || iv.Histogram != nil {
					t.Fatalf("interval at %v has percentiles %v / a histogram %v; want none", iv.At, iv.LatencyMs, iv.Histogram != nil)
				}
			}
			if events != m.Totals.Counts.Events {
				t.Errorf("merged intervals hold %d events, totals %d", events, m.Totals.Counts.Events)
			}
			if len(tc.warns) == 0 && len(warnings) > 0 {
				t.Errorf("warnings %q, want none", warnings)
			}
			if len(tc.warns) > 0 {
				if len(warnings) != 1 {
					t.Fatalf("warnings %q, want one", warnings)
				}
				for _, w := range tc.warns {
					if !strings.Contains(warnings[0], w) {
						t.Errorf("warning %q lacks %q", warnings[0], w)
					}
				}
			}
		})
	}
}

// TestMergeFractionalIntervalsSitOnTheGrid merges clients with 0.1 s
// intervals: the merged at_s are the grid's, to the millisecond (0.3, not
// 0.30000000000000004), so that they read and print as the run's did.
func TestMergeFractionalIntervalsSitOnTheGrid(t *testing.T) {
	var parts []Part
	for i := range 2 {
		r := clientResult(t, clientSpec{id: i, of: 2, seed: uint64(i + 1), n: 1000, seconds: 1, perThread: []int64{1000}, busy: []float64{1}})
		r.Options["report-interval"] = "0.1"
		r.Intervals = nil
		for k := 1; k <= 10; k++ {
			r.Intervals = append(r.Intervals, Interval{At: float64(k)*0.1 + 0.0000137, Seconds: 0.1, Threads: 1,
				Counts: Counters{Events: 100, Reads: 100, Queries: 100}})
		}
		parts = append(parts, Part{File: strconv.Itoa(i) + ".json", Result: r})
	}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Intervals) != 10 {
		t.Fatalf("%d merged intervals, want 10", len(m.Intervals))
	}
	for k, iv := range m.Intervals {
		if got, want := strconv.FormatFloat(iv.At, 'f', -1, 64), strconv.FormatFloat(float64(k+1)/10, 'f', -1, 64); got != want {
			t.Errorf("merged interval %d at_s = %s, want %s", k+1, got, want)
		}
		if iv.Counts.Events != 200 {
			t.Errorf("merged interval %d: %d events, want 200", k+1, iv.Counts.Events)
		}
	}
}
