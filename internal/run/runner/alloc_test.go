package runner

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/workload"
)

// nopWorker's events do nothing and count one read.
type nopWorker struct{}

func (nopWorker) Event(_ context.Context, c *workload.Counts) error { c.Reads++; return nil }
func (nopWorker) Rollback(context.Context) error                    { return nil }
func (nopWorker) Close() error                                      { return nil }

// TestEventPathAllocatesNothing holds the runner's side of an event — the
// call mark and answer the stall detector reads, the clock, the recorder —
// to no allocation, as TestEventsAllocateNothing (oltp) holds the
// workload's; and the marks it leaves say the thread is between events.
func TestEventPathAllocatesNothing(t *testing.T) {
	col := metrics.NewCollector(1, metrics.Shape{})
	r := &run{col: col}
	w := &worker{wl: nopWorker{}, rec: col.Recorder(0)}
	win := col.NewWindow()
	ctx := context.Background()
	allocs := testing.AllocsPerRun(500, func() {
		if !w.event(ctx, r, time.Now(), time.Time{}) {
			t.Fatal("the event failed")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per event, want 0", allocs)
	}
	col.Drain(win, nil)
	if win.Events < 500 {
		t.Fatalf("%d events recorded, want at least 500: the check above proves nothing", win.Events)
	}
	if w.inCall() || w.answered.Load() <= w.callMark.Load() || w.callMark.Load() == 0 {
		t.Errorf("after an event: mark %d, answered %d; want a mark and a later answer (not waiting)", w.callMark.Load(), w.answered.Load())
	}
}
