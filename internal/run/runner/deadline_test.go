package runner

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// deafWorkload's events take a fixed time and never look at their context,
// like a call that does not notice the hard deadline.
type deafWorkload struct{ took time.Duration }

func (d *deafWorkload) Validate() error                                         { return nil }
func (d *deafWorkload) Prepare(context.Context, workload.PrepareEnv) error      { return nil }
func (d *deafWorkload) Cleanup(context.Context, driver.Driver, io.Writer) error { return nil }
func (d *deafWorkload) Missing(context.Context, driver.Conn, driver.Dialect) (workload.Absent, error) {
	return workload.Absent{}, nil
}
func (d *deafWorkload) NewWorker(context.Context, driver.Conn, driver.Dialect, *randgen.Source) (workload.Worker, error) {
	return d, nil
}
func (d *deafWorkload) Event(_ context.Context, c *workload.Counts) error {
	time.Sleep(d.took)
	c.Others++
	return nil
}
func (d *deafWorkload) Rollback(context.Context) error { return nil }
func (d *deafWorkload) Close() error                   { return nil }

// TestEventPastTheDeadlineIsNotCounted runs 300 ms events for 1 s: the fourth
// ends 0.2 s past --time. It is not counted, and no last interval of one
// event over a sliver of time (once printed "[ 1s ]" a second time, with a
// rate of its own) follows the one that ends at the deadline.
func TestEventPastTheDeadlineIsNotCounted(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	cfg := Config{Threads: 1, Duration: time.Second, ReportInterval: 500 * time.Millisecond, Percentiles: []float64{95}}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &deafWorkload{took: 300 * time.Millisecond}, Rand: newRand(t)})
	if out.Status != result.StatusComplete {
		t.Fatalf("status %s: %v", out.Status, out.Err)
	}
	// At most 3 events end within the second (fewer when the machine is
	// slow: a 300 ms sleep has taken 670 ms under load); a fourth ends past it.
	if n := out.Totals.Counts.Events; n < 1 || n > 3 {
		t.Errorf("%d events counted, want 1 to 3: those that ended within the second", n)
	}
	var sum int64
	for _, iv := range out.Intervals {
		sum += iv.Counts.Events
		if iv.At > cfg.Duration.Seconds()+1e-9 {
			t.Errorf("an interval ends at %vs, past --time=%v, with %d events", iv.At, cfg.Duration, iv.Counts.Events)
		}
	}
	if len(out.Intervals) != 2 || sum != out.Totals.Counts.Events {
		t.Errorf("intervals %+v: want 2, at 0.5 s and 1 s, holding the %d events", out.Intervals, out.Totals.Counts.Events)
	}
}

// TestDeafThreadDoesNotStretchTheSeries: a 1 s run of 800 ms events that do
// not notice the deadline; the second ends 0.6 s past --time, past the next
// tick and more than half a report interval. No interval ends past --time
// (one did, empty: at 1.5 s, the tick, or at the thread's stop), and the
// measured span is the second.
func TestDeafThreadDoesNotStretchTheSeries(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	cfg := Config{Threads: 1, Duration: time.Second, ReportInterval: 500 * time.Millisecond, Percentiles: []float64{95}}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &deafWorkload{took: 800 * time.Millisecond}, Rand: newRand(t)})
	if out.Status != result.StatusComplete {
		t.Fatalf("status %s: %v", out.Status, out.Err)
	}
	for _, iv := range out.Intervals {
		if iv.At > cfg.Duration.Seconds()+1e-9 {
			t.Errorf("an interval ends at %vs, past --time=%v, with %d events", iv.At, cfg.Duration, iv.Counts.Events)
		}
	}
	if got := out.End.Sub(out.Start); got > cfg.Duration {
		t.Errorf("measured span %v, longer than --time=%v", got, cfg.Duration)
	}
}
