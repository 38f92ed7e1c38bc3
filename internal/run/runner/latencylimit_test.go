package runner

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestLatencyLimitCountsLateEvents: events that take 20 ms are all above a
// 5 ms latency limit and none is below a 10 s one; a closed loop skips none.
func TestLatencyLimitCountsLateEvents(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	for _, tc := range []struct {
		limit    time.Duration
		wantLate bool
	}{{5 * time.Millisecond, true}, {10 * time.Second, false}} {
		cfg := Config{Threads: 2, Events: 20, LatencyLimit: tc.limit, Percentiles: []float64{95}}
		out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &deafWorkload{took: 20 * time.Millisecond}, Rand: newRand(t)})
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		c := out.Totals.Counts
		want := int64(0)
		if tc.wantLate {
			want = c.Events
		}
		if c.Events != 20 || c.Late != want || c.Skipped != 0 {
			t.Errorf("limit %v: %d events, %d late, %d skipped; want 20 events, %d late, none skipped", tc.limit, c.Events, c.Late, c.Skipped, want)
		}
	}
}

// TestLatencyLimitSkipsWithRate: one thread asked for 200 events a second of
// 20 ms each falls behind its schedule at once; with a 30 ms limit the
// events already later than that when their turn comes are skipped, not
// run, so the thread keeps up with the schedule: the events run and those
// skipped together are the schedule's, and far more are skipped than run.
func TestLatencyLimitSkipsWithRate(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	cfg := Config{Threads: 1, Duration: 2 * time.Second, Rate: 200, LatencyLimit: 30 * time.Millisecond, Percentiles: []float64{95}}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &deafWorkload{took: 20 * time.Millisecond}, Rand: newRand(t)})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	c := out.Totals.Counts
	// At most 2 s / 20 ms = 100 events run; the schedule holds about 400.
	if c.Events > 100 || c.Skipped < 2*c.Events || c.Events+c.Skipped < 200 {
		t.Errorf("%d events run, %d skipped: want at most 100 run and most of the schedule's ~400 skipped", c.Events, c.Skipped)
	}
	var skipped int64
	for _, iv := range out.Intervals {
		skipped += iv.Counts.Skipped
	}
	if skipped != c.Skipped {
		t.Errorf("the intervals skip %d, the measured phase %d", skipped, c.Skipped)
	}
}
