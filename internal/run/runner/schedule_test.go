package runner

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestScheduleReplays: the reporter's copy of a thread's --rate schedule
// draws the thread's arrival times, so dueBy counts exactly the arrivals the
// thread has or will have passed by then.
func TestScheduleReplays(t *testing.T) {
	r := &run{cfg: Config{Threads: 4, Rate: 400}, deps: Deps{Rand: newRand(t)}, t0: time.Unix(1000, 0)}
	thread, replay := newSchedule(r, 2), newSchedule(r, 2)
	other := newSchedule(r, 3)
	var times []time.Time
	for range 500 {
		times = append(times, thread.advance())
	}
	if times[0].Equal(other.advance()) {
		t.Error("threads 2 and 3 drew the same first arrival: their schedules must be streams of their own")
	}
	if span := times[len(times)-1].Sub(r.t0).Seconds(); span < 2.5 || span > 7.5 {
		t.Errorf("500 arrivals at 100/s per thread took %.2fs, want about 5s", span)
	}
	for _, k := range []int{0, 1, 17, 250, 499} {
		// Just before arrival k, k arrivals are due; at it, k+1.
		if got := replay.dueBy(times[k].Add(-time.Nanosecond)); got != int64(k) {
			t.Errorf("dueBy(just before arrival %d) = %d, want %d", k, got, k)
		}
		if got := replay.dueBy(times[k]); got != int64(k+1) {
			t.Errorf("dueBy(arrival %d) = %d, want %d", k, got, k+1)
		}
	}
}

// TestOpenLoopQueue runs a --rate far beyond what two threads can serve
// (each event sleeps 50 ms on the server: at most 40 events/s, 200 asked):
// every interval carries the schedule's state, the queue grows, and no more
// events are in flight than there are threads. A closed-loop run carries none.
func TestOpenLoopQueue(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	wl := &queryWorkload{longQuery: "SELECT SLEEP(0.05)"}
	cfg := Config{Threads: 2, Duration: 2 * time.Second, Rate: 200, ReportInterval: 500 * time.Millisecond, Percentiles: []float64{95}}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t)})
	if out.Status != result.StatusComplete || len(out.Intervals) < 3 {
		t.Fatalf("status %s (%v), %d intervals", out.Status, out.Err, len(out.Intervals))
	}
	busy := false
	for _, iv := range out.Intervals {
		ol := iv.OpenLoop
		if ol == nil {
			t.Fatalf("interval at %.1fs has no open-loop state", iv.At)
		}
		if ol.Concurrency < 0 || ol.Concurrency > cfg.Threads || ol.QueueLength < 0 {
			t.Errorf("interval at %.1fs: %+v, want 0..%d in flight and no negative queue", iv.At, *ol, cfg.Threads)
		}
		busy = busy || ol.Concurrency > 0
	}
	first, last := out.Intervals[0].OpenLoop.QueueLength, out.Intervals[len(out.Intervals)-2].OpenLoop.QueueLength
	if !(last > first && last > 50) {
		t.Errorf("queue %d after the first interval, %d near the end: an overloaded schedule's backlog must grow (about 160 events a second)", first, last)
	}
	if !busy {
		t.Error("no event was ever in flight at a tick, though the threads cannot keep up")
	}

	cfg.Rate = 0
	cfg.Duration = 300 * time.Millisecond
	out = Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t)})
	for _, iv := range out.Intervals {
		if iv.OpenLoop != nil {
			t.Errorf("closed-loop interval at %.1fs has open-loop state %+v", iv.At, *iv.OpenLoop)
		}
	}
}
