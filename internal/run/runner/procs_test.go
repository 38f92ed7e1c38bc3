package runner

import (
	"context"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// procsWorkload runs SELECT 1 per event and notes the GOMAXPROCS each event
// saw.
type procsWorkload struct {
	queryWorkload
	mu   sync.Mutex
	seen map[int]bool
}

func (p *procsWorkload) NewWorker(ctx context.Context, conn driver.Conn, d driver.Dialect, r *randgen.Source) (workload.Worker, error) {
	return &procsWorker{queryWorker: queryWorker{q: &p.queryWorkload, conn: conn}, p: p}, nil
}

type procsWorker struct {
	queryWorker
	p *procsWorkload
}

func (w *procsWorker) Event(ctx context.Context, c *workload.Counts) error {
	n := runtime.GOMAXPROCS(0)
	w.p.mu.Lock()
	w.p.seen[n] = true
	w.p.mu.Unlock()
	return w.queryWorker.Event(ctx, c)
}

// A run whose connections all keep their P while they wait (Unix sockets and
// TCP) runs with one P per worker — a spare P made every pass of a worker
// through the scheduler wake an idle thread — and still reports its intervals
// (the reporter runs when the workers yield). GOMAXPROCS is restored after
// either.
func TestHeldRunHasOnePPerWorker(t *testing.T) {
	const threads = 3
	tcp := testdb.MySQL(t)
	socket := tcp
	socket.Socket = testdb.MySQLSocket()
	if _, err := os.Stat(socket.Socket); err != nil {
		t.Skipf("no MySQL socket at %s (set FAIRBENCH_TEST_MYSQL_SOCKET)", socket.Socket)
	}
	before := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name string
		cfg  driver.Config
		want int
	}{
		{"socket", socket, threads},
		{"tcp", tcp, threads},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl := &procsWorkload{queryWorkload: queryWorkload{longQuery: "SELECT 1"}, seen: map[int]bool{}}
			cfg := Config{Threads: threads, Duration: 2 * time.Second, ReportInterval: 100 * time.Millisecond, Percentiles: []float64{95}}
			out := Run(context.Background(), cfg, Deps{Driver: openDriver(t, tc.cfg), Workload: wl, Rand: newRand(t)})
			if out.Status != result.StatusComplete || out.Err != nil {
				t.Fatalf("status %s, err %v", out.Status, out.Err)
			}
			var seen []int
			for n := range wl.seen {
				seen = append(seen, n)
			}
			slices.Sort(seen)
			if !slices.Equal(seen, []int{tc.want}) {
				t.Errorf("GOMAXPROCS seen by the events: %v, want %d", seen, tc.want)
			}
			if got := runtime.GOMAXPROCS(0); got != before {
				t.Errorf("GOMAXPROCS after the run = %d, want %d as before", got, before)
			}
			// 20 intervals of 100 ms; a loaded machine may drop a few ticks.
			if len(out.Intervals) < 10 {
				t.Errorf("%d intervals reported, want about 20: the reporter did not get to run", len(out.Intervals))
			}
		})
	}
}
