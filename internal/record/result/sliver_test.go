package result

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestFoldTrailingSliver(t *testing.T) {
	full := func(at float64, events int64) Interval {
		return Interval{At: at, Seconds: 10, Threads: 4, TPS: float64(events) / 10,
			Counts: Counters{Events: events, Queries: 10 * events, Reads: 10 * events}, MaxMs: 5,
			LatencyMs: map[string]float64{"95": 3}, KindEvents: []int64{events}}
	}
	// The sliver of the issue: 0.8 ms after [ 20s ], 2 events, "2,500 tps".
	sliver := Interval{At: 20.0008, Seconds: 0.0008, Threads: 4, TPS: 2500,
		Counts: Counters{Events: 2, Queries: 20, Reads: 20, Errors: map[string]int64{"1213": 1}}, MaxMs: 9,
		LatencyMs: map[string]float64{"95": 8}, KindEvents: []int64{2}}
	tests := []struct {
		name   string
		in     []Interval
		folded bool
	}{
		{"sliver after the last full interval", []Interval{full(10, 1000), full(20, 1000), sliver}, true},
		{"no sliver", []Interval{full(10, 1000), full(20, 1000)}, false},
		{"a partial last interval of --time=25", []Interval{full(10, 1000), full(20, 1000), {At: 25, Seconds: 5, Counts: Counters{Events: 500}}}, false},
		{"a sliver of the warm-up is not folded into the measured phase", []Interval{func() Interval { iv := full(10, 1000); iv.Warmup = true; return iv }(), sliver}, false},
		{"one interval", []Interval{sliver}, false},
		{"empty", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cloneIntervals(tc.in)
			got := FoldTrailingSliver(tc.in)
			if !reflect.DeepEqual(tc.in, before) {
				t.Fatal("the input series was modified")
			}
			if !tc.folded {
				if !reflect.DeepEqual(got, tc.in) {
					t.Fatalf("series changed without a sliver:\n%+v", got)
				}
				return
			}
			if len(got) != len(tc.in)-1 {
				t.Fatalf("%d intervals, want %d", len(got), len(tc.in)-1)
			}
			var inEvents, outEvents int64
			for _, iv := range tc.in {
				inEvents += iv.Counts.Events
			}
			for _, iv := range got {
				outEvents += iv.Counts.Events
			}
			if inEvents != outEvents {
				t.Errorf("events %d after folding, %d before", outEvents, inEvents)
			}
			last := got[len(got)-1]
			if last.At != sliver.At || math.Abs(last.Seconds-10.0008) > 1e-9 {
				t.Errorf("last interval at %v over %v s, want at %v over 10.0008 s", last.At, last.Seconds, sliver.At)
			}
			if want := 1002 / 10.0008; math.Abs(last.TPS-want) > 1e-9 {
				t.Errorf("tps %v, want %v (the events over the folded length)", last.TPS, want)
			}
			if last.MaxMs != 9 || last.Counts.Errors["1213"] != 1 || last.KindEvents[0] != 1002 || last.Counts.Queries != 10020 {
				t.Errorf("folded interval %+v: want max 9 ms, 1 error 1213, 1002 kind events, 10020 queries", last)
			}
		})
	}
}

// With histograms (run --interval-histograms), the folded interval's
// percentiles come from both.
func TestFoldTrailingSliverMergesHistograms(t *testing.T) {
	hist := func(values ...int64) *Histogram {
		h := hdrhistogram.New(1, 3_600_000_000, 3)
		for _, v := range values {
			if err := h.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		return enc
	}
	var many []int64
	for i := 0; i < 99; i++ {
		many = append(many, 1000) // 1 ms
	}
	prev := Interval{At: 1, Seconds: 1, Counts: Counters{Events: 99}, MaxMs: 1, LatencyMs: map[string]float64{"50": 1, "100": 1}, Histogram: hist(many...)}
	last := Interval{At: 1.001, Seconds: 0.001, Counts: Counters{Events: 1}, MaxMs: 50, LatencyMs: map[string]float64{"50": 50, "100": 50}, Histogram: hist(50_000)}
	got := FoldTrailingSliver([]Interval{prev, last})
	if len(got) != 1 {
		t.Fatalf("%d intervals, want 1", len(got))
	}
	iv := got[0]
	if iv.LatencyMs["50"] > 1.01 || iv.LatencyMs["100"] < 49.9 || iv.MaxMs != 50 {
		t.Errorf("percentiles %v max %v: want p50 about 1 ms and p100 50 ms from the merged histograms", iv.LatencyMs, iv.MaxMs)
	}
	d, err := iv.Histogram.Decode()
	if err != nil || d.TotalCount() != 100 {
		t.Errorf("folded histogram holds %v values (%v), want 100", d.TotalCount(), err)
	}
}

func cloneIntervals(in []Interval) []Interval {
	if in == nil {
		return nil
	}
	out := make([]Interval, len(in))
	for i, iv := range in {
		out[i] = iv
		out[i].LatencyMs = maps.Clone(iv.LatencyMs)
		out[i].KindEvents = slices.Clone(iv.KindEvents)
		out[i].Counts.Errors = maps.Clone(iv.Counts.Errors)
	}
	return out
}

func TestChartIntervals(t *testing.T) {
	full := func(at float64) Interval { return Interval{At: at, Seconds: 1, TPS: 100} }
	for _, tc := range []struct {
		name string
		ivs  []Interval
		want []float64 // the At of the intervals kept
	}{
		{"full intervals stay", []Interval{full(1), full(2), full(3)}, []float64{1, 2, 3}},
		{"a partial last interval is left out", []Interval{full(1), full(2), {At: 2.4, Seconds: 0.4, TPS: 30}}, []float64{1, 2}},
		{"a sliver is folded, not left out", []Interval{full(1), full(2), {At: 2.001, Seconds: 0.001, TPS: 2000}}, []float64{1, 2.001}},
		{"a jittered full interval stays", []Interval{full(1), full(2), {At: 2.97, Seconds: 0.97, TPS: 100}}, []float64{1, 2, 2.97}},
		{"the last warm-up interval is another phase", []Interval{{At: 1, Seconds: 1, Warmup: true}, {At: 1.5, Seconds: 0.5}}, []float64{1, 1.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []float64
			for _, iv := range ChartIntervals(tc.ivs) {
				got = append(got, iv.At)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}
