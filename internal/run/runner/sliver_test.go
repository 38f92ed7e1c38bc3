package runner

import (
	"math"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
)

// TestTrailingSliverFolded drives the reporter through two 10 s ticks and the
// drain after the threads stopped: a final interval of 0.8 ms (2 events that
// the last tick's drain missed) is neither printed nor kept as an interval of
// its own but folded into the last one, the totals unchanged; a final interval
// of 6 s (a --time that is not a multiple of the report interval) stays one.
func TestTrailingSliverFolded(t *testing.T) {
	tests := []struct {
		name      string
		tail      time.Duration
		intervals int
	}{
		{"sliver", 800 * time.Microsecond, 2},
		{"partial interval", 6 * time.Second, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Now()
			var printed []result.Interval
			r := &run{
				cfg:  Config{Threads: 1, ReportInterval: 10 * time.Second, Percentiles: []float64{95}},
				deps: Deps{OnInterval: func(iv result.Interval) { printed = append(printed, iv) }},
				col:  metrics.NewCollector(1, metrics.Shape{}),
			}
			r.warmEnd, r.end = t0, t0.Add(20*time.Second+tc.tail)
			rep := newReporter(r, t0)
			record := func(n int) {
				for i := 0; i < n; i++ {
					r.col.Recorder(0).Event(&metrics.Event{Latency: time.Millisecond, Service: time.Millisecond, Reads: 1})
				}
			}
			record(100)
			rep.drain(t0.Add(10*time.Second), false)
			record(100)
			rep.drain(t0.Add(20*time.Second), false)
			record(2)
			rep.drain(r.end, true)
			rep.measTo = r.end
			var out Outcome
			rep.fill(&out)

			if len(printed) != tc.intervals || len(out.Intervals) != tc.intervals {
				t.Fatalf("%d intervals printed, %d kept: want %d", len(printed), len(out.Intervals), tc.intervals)
			}
			var sum int64
			for _, iv := range out.Intervals {
				sum += iv.Counts.Events
			}
			if sum != 202 || out.Totals.Counts.Events != 202 {
				t.Errorf("intervals hold %d events, totals %d: want 202 both", sum, out.Totals.Counts.Events)
			}
			last := out.Intervals[len(out.Intervals)-1]
			if want := (20*time.Second + tc.tail).Seconds(); math.Abs(last.At-want) > 1e-9 {
				t.Errorf("last interval ends at %v s, want %v", last.At, want)
			}
			if last.TPS > 20 {
				t.Errorf("last interval %.0f tps: the tail's rate was not folded (%+v)", last.TPS, last)
			}
		})
	}
}
