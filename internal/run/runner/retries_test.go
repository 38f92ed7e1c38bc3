package runner

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// retryingWorkload's every fourth event says it was retried twice before it
// completed, as pgbench's --max-tries worker does after serialization failures;
// its events alternate between two kinds (pgbench's scripts).
type retryingWorkload struct{ queryWorkload }

func (q *retryingWorkload) Kinds() []string { return []string{"a", "b"} }

func (q *retryingWorkload) NewWorker(_ context.Context, conn driver.Conn, _ driver.Dialect, _ *randgen.Source) (workload.Worker, error) {
	return &retryingWorker{queryWorker: queryWorker{q: &q.queryWorkload, conn: conn}}, nil
}

type retryingWorker struct {
	queryWorker
	n int
}

func (w *retryingWorker) Event(ctx context.Context, c *workload.Counts) error {
	if err := w.queryWorker.Event(ctx, c); err != nil {
		return err
	}
	c.Kind = w.n % 2
	if w.n++; w.n%4 == 0 {
		c.Retries = 2
	}
	return nil
}

// TestRetriesAreCounted: the retries a workload reports with its events reach
// the measured phase's counts — retries in all, and transactions retried.
func TestRetriesAreCounted(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	const threads, events = 2, 400
	cfg := Config{Threads: threads, Events: events, Percentiles: []float64{95}}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &retryingWorkload{queryWorkload{longQuery: "SELECT 1"}}, Rand: newRand(t)})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	c := out.Totals.Counts
	if c.Events != events {
		t.Fatalf("%d events, want %d", c.Events, events)
	}
	// Each thread retried every fourth of its own events: between
	// events/4 - threads and events/4 of them in all.
	if c.Retried < events/4-threads || c.Retried > events/4 || c.Retries != 2*c.Retried {
		t.Errorf("retried %d transactions with %d retries; want about %d with twice as many retries", c.Retried, c.Retries, events/4)
	}
	var inIntervals int64
	for _, iv := range out.Intervals {
		inIntervals += iv.Counts.Retries
	}
	if inIntervals != c.Retries {
		t.Errorf("the intervals count %d retries, the measured phase %d", inIntervals, c.Retries)
	}
	// Every fourth event is the second of a pair: all retries are kind b's.
	if k := out.Totals.Kinds; len(k) != 2 || k[0].Retries != 0 || k[1].Retries != c.Retries || k[1].Retried != c.Retried {
		t.Errorf("kinds %+v: want kind b to hold all %d retries of %d events", k, c.Retries, c.Retried)
	}
}
