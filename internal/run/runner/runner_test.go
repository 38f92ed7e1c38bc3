package runner

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// queryWorkload runs one query per event: the first `short` events of each
// worker run shortQuery, the rest longQuery (nothing to prepare).
type queryWorkload struct {
	shortQuery, longQuery string
	short                 int
}

func (q *queryWorkload) Validate() error                                         { return nil }
func (q *queryWorkload) Prepare(context.Context, workload.PrepareEnv) error      { return nil }
func (q *queryWorkload) Cleanup(context.Context, driver.Driver, io.Writer) error { return nil }
func (q *queryWorkload) Missing(context.Context, driver.Conn, driver.Dialect) (workload.Absent, error) {
	return workload.Absent{}, nil
}
func (q *queryWorkload) NewWorker(_ context.Context, conn driver.Conn, _ driver.Dialect, _ *randgen.Source) (workload.Worker, error) {
	return &queryWorker{q: q, conn: conn}, nil
}

type queryWorker struct {
	q    *queryWorkload
	conn driver.Conn
	done int
}

func (w *queryWorker) Event(ctx context.Context, c *workload.Counts) error {
	query := w.q.longQuery
	if w.done < w.q.short {
		query = w.q.shortQuery
	}
	if _, err := w.conn.Query(ctx, query); err != nil {
		return err
	}
	w.done++
	c.Reads++
	return nil
}
func (w *queryWorker) Rollback(context.Context) error { return nil }
func (w *queryWorker) Close() error                   { return nil }

func newRand(t *testing.T) *randgen.Factory {
	t.Helper()
	f, err := randgen.NewFactory(randgen.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func openDriver(t *testing.T, cfg driver.Config) driver.Driver {
	t.Helper()
	d, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// privateMariaDB starts a MariaDB of its own with room for many connections.
func privateMariaDB(t *testing.T, maxConnections int) *localserver.Server {
	t.Helper()
	testdb.SkipShort(t, "a private MariaDB")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := localserver.Start(ctx, localserver.Options{
		Flavor: localserver.FlavorMariaDB, Profile: localserver.ProfileCustom, Dir: t.TempDir() + "/srv",
		Settings: map[string]string{"max_connections": strconv.Itoa(maxConnections), "innodb_buffer_pool_size": "64M"},
	})
	if err != nil {
		t.Fatalf("start a private MariaDB: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := localserver.Stop(ctx, srv.Dir); err != nil {
			t.Errorf("stop the private MariaDB: %v", err)
		}
	})
	return srv
}

// TestTimeIsRespectedAtManyThreads runs 512 threads whose events soon block for
// a minute: the run must end at --time, not when the events end, and count only
// what completed before. Whether the wait for the long events is a stall
// depends on this machine's speed (the limit is max(1 s, 20 × the p99 of the
// short events, which 512 threads on a few CPUs may push past the 2-s
// phase)): the run either completes or fails for one stall that no thread
// came back from, recorded as such.
func TestTimeIsRespectedAtManyThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private MariaDB")
	}
	const threads = 512
	began := time.Now()
	srv := privateMariaDB(t, 600)
	t.Logf("private MariaDB started in %v", time.Since(began))
	drv := openDriver(t, srv.DriverConfig())
	if err := Preflight(context.Background(), drv, threads); err != nil {
		t.Fatalf("Preflight(%d threads, max_connections 600) = %v", threads, err)
	}
	err := Preflight(context.Background(), drv, 700)
	if err == nil || !strings.Contains(err.Error(), "SET GLOBAL max_connections = ") {
		t.Fatalf("Preflight(700 threads, max_connections 600) = %v, want advice to raise max_connections", err)
	}

	// More threads than the server allows: the run fails with the server's
	// error and closes what it opened.
	over := Run(context.Background(), Config{Threads: 650, Duration: time.Second, Percentiles: []float64{95}, ConnectParallel: 32},
		Deps{Driver: drv, Workload: &queryWorkload{longQuery: "SELECT 1"}, Rand: newRand(t)})
	if over.Status != result.StatusFailed || over.Err == nil || !strings.Contains(over.Err.Error(), "thread") {
		t.Fatalf("650 threads, max_connections 600: status %s, err %v; want a failed run naming a thread", over.Status, over.Err)
	}

	t.Logf("650 threads failed after %v: %v", over.Connect, over.Err)
	cfg := Config{Threads: threads, Duration: 2 * time.Second, Percentiles: []float64{95}, ConnectParallel: 32}
	var measureFrom atomic.Int64
	wl := &queryWorkload{shortQuery: "SELECT SLEEP(0.01)", longQuery: "SELECT SLEEP(60)", short: 3}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t),
		OnMeasure: func() { measureFrom.Store(time.Now().UnixNano()) }})
	returned := time.Now()
	t.Logf("%d threads: connected in %v, %d events, returned %v after the measured phase began", threads, out.Connect, out.Totals.Counts.Events, returned.Sub(time.Unix(0, measureFrom.Load())))
	stalled := out.Status == result.StatusFailed && out.Err != nil && len(out.Outages) == 1 && out.Outages[0].Stall && out.Outages[0].Unrecovered == threads
	if !stalled && (out.Status != result.StatusComplete || out.Err != nil || len(out.Outages) > 0) {
		t.Fatalf("status %s, err %v, outages %+v; want complete, or failed for one stall no thread came back from", out.Status, out.Err, out.Outages)
	}
	// The events in flight at the deadline would last a minute more: a run
	// that waited for them would take over 60 s.
	if took := returned.Sub(time.Unix(0, measureFrom.Load())); took > cfg.Duration+20*time.Second {
		t.Fatalf("the run took %v after the measured phase began, want about --time=%v", took, cfg.Duration)
	}
	if got := out.End.Sub(out.Start); got > cfg.Duration {
		t.Fatalf("measured phase %v, longer than --time=%v", got, cfg.Duration)
	}
	if out.Totals.Counts.Events > threads*3 || out.Totals.Counts.Events == 0 {
		t.Fatalf("events = %d, want between 1 and %d (only the short ones can complete)", out.Totals.Counts.Events, threads*3)
	}
	if out.Connect <= 0 {
		t.Fatalf("connect time = %v", out.Connect)
	}
}

// TestConnectRatePacesConnections opens 6 connections at 10 per second: the
// last cannot start before 0.5 s, and the run still measures every thread.
func TestConnectRatePacesConnections(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	cfg := Config{Threads: 6, Duration: 300 * time.Millisecond, Percentiles: []float64{95}, ConnectRate: 10}
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &queryWorkload{longQuery: "SELECT 1"}, Rand: newRand(t)})
	if out.Status != result.StatusComplete {
		t.Fatalf("status %s, err %v", out.Status, out.Err)
	}
	if out.Connect < 500*time.Millisecond {
		t.Fatalf("6 connections at 10/s took %v, want at least 500ms", out.Connect)
	}
	if out.Totals.Counts.Events == 0 || out.Totals.Latency.Percentiles["95"] <= 0 {
		t.Fatalf("totals = %+v", out.Totals)
	}
}
