package runner

import (
	"context"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

func TestParseForcedShutdown(t *testing.T) {
	const d = 10 * time.Second
	for _, tc := range []struct {
		in   string
		time time.Duration
		want Drain
		err  string
	}{
		{"off", d, Drain{Wait: true, Unlimited: true}, ""},
		{"OFF", d, Drain{Wait: true, Unlimited: true}, ""},
		{"0", d, Drain{Wait: true}, ""},
		{"5", d, Drain{Wait: true, Limit: 5 * time.Second}, ""},
		{"2.5", d, Drain{Wait: true, Limit: 2500 * time.Millisecond}, ""},
		{"90s", d, Drain{Wait: true, Limit: 90 * time.Second}, ""},
		{"50%", d, Drain{Wait: true, Limit: 5 * time.Second}, ""},
		{"5%", d, Drain{Wait: true, Limit: 500 * time.Millisecond}, ""}, // sysbench: 0 (whole seconds)
		{"", d, Drain{Wait: true, Limit: 500 * time.Millisecond}, ""},   // alone: 5 % of --time
		{"5", 0, Drain{}, ""}, // no --time: no effect
		{"-1", d, Drain{}, "give the seconds"},
		{"soon", d, Drain{}, "give the seconds"},
		{"x%", d, Drain{}, "not a share of --time"},
		{"-5%", d, Drain{}, "not a share of --time"},
		{"99999999999", d, Drain{}, "at most"},
	} {
		got, err := ParseForcedShutdown(tc.in, tc.time)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case got != tc.want:
			t.Errorf("%q with --time=%s: %+v, want %+v", tc.in, tc.time, got, tc.want)
		}
	}
}

// sleepWorkload's event is one real SELECT SLEEP(took) on a MySQL-protocol
// server: an event that takes long on the server, cancelled like any call
// when its context ends.
type sleepWorkload struct {
	took    time.Duration
	conn    driver.Conn
	started *atomic.Int64 // events begun, over all threads (nil: not counted)
}

func (s *sleepWorkload) Validate() error                                         { return nil }
func (s *sleepWorkload) Prepare(context.Context, workload.PrepareEnv) error      { return nil }
func (s *sleepWorkload) Cleanup(context.Context, driver.Driver, io.Writer) error { return nil }
func (s *sleepWorkload) Missing(context.Context, driver.Conn, driver.Dialect) (workload.Absent, error) {
	return workload.Absent{}, nil
}
func (s *sleepWorkload) NewWorker(_ context.Context, conn driver.Conn, _ driver.Dialect, _ *randgen.Source) (workload.Worker, error) {
	return &sleepWorkload{took: s.took, conn: conn, started: s.started}, nil
}
func (s *sleepWorkload) Event(ctx context.Context, c *workload.Counts) error {
	if s.started != nil {
		s.started.Add(1)
	}
	if _, err := s.conn.Query(ctx, "SELECT SLEEP(?)", s.took.Seconds()); err != nil {
		return err
	}
	c.Reads++
	return nil
}
func (s *sleepWorkload) Rollback(context.Context) error { return nil }
func (s *sleepWorkload) Close() error                   { return nil }

// TestDrainCountsTheEventsInFlight runs 400 ms events for 1 s on two
// threads, each always inside one, so both are in flight when --time ends.
// With --forced-shutdown=5 (or off) they finish and are counted — every
// event begun is — and the measured phase lasts until the last ended: the
// grace is recorded. Without the option (the rule before --forced-shutdown,
// and still the default) they are abandoned: one event per thread begun and
// not counted, the phase 1 s.
func TestDrainCountsTheEventsInFlight(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	const took = 400 * time.Millisecond
	for _, tc := range []struct {
		name  string
		drain Drain
		lost  int64 // events begun and not counted
	}{
		{"forced-shutdown=5", Drain{Wait: true, Limit: 5 * time.Second}, 0},
		{"forced-shutdown=off", Drain{Wait: true, Unlimited: true}, 0},
		{"without", Drain{}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Threads: 2, Duration: time.Second, Percentiles: []float64{95}, Drain: tc.drain}
			var started atomic.Int64
			out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &sleepWorkload{took: took, started: &started}, Rand: newRand(t)})
			if out.Status != result.StatusComplete || out.Forced {
				t.Fatalf("status %s, forced %v: %v", out.Status, out.Forced, out.Err)
			}
			// Each thread counts one at least when it waits for its events
			// (without, a loaded machine may finish none within the second).
			if n := out.Totals.Counts.Events; n != started.Load()-tc.lost || (tc.drain.Wait && n < 2) {
				t.Errorf("%d events counted of %d begun, want all but %d", n, started.Load(), tc.lost)
			}
			if got, want := out.Totals.Seconds, (cfg.Duration + out.Grace).Seconds(); math.Abs(got-want) > 0.02 {
				t.Errorf("measured phase %.3fs, want --time plus the grace, %.3fs", got, want)
			}
			if !tc.drain.Wait {
				if out.Grace != 0 {
					t.Errorf("grace %s without --forced-shutdown", out.Grace)
				}
				return
			}
			// The events in flight end within one event's time past --time,
			// give or take the machine.
			if out.Grace <= 0 || out.Grace > 4*time.Second {
				t.Errorf("grace %s, want the time the events in flight took past --time (under 400 ms on a quiet machine)", out.Grace)
			}
			var res result.Result
			out.Fill(&res, cfg, &sleepWorkload{})
			sh := res.Shutdown
			if sh == nil || sh.GraceSeconds != out.Grace.Seconds() || sh.Forced {
				t.Fatalf("result shutdown %+v, want the grace %s, not forced", sh, out.Grace)
			}
			if limited := sh.LimitSeconds != nil; limited == tc.drain.Unlimited || (limited && *sh.LimitSeconds != tc.drain.Limit.Seconds()) {
				t.Errorf("result limit %v, want %s (none for off)", sh.LimitSeconds, tc.drain.Limit)
			}
		})
	}
}

// TestForcedShutdownCancelsStuckEvents runs 30 s events for 1 s with
// --forced-shutdown=0.5: at 1.5 s both threads' events are cancelled,
// uncounted, and the run ends forced and failed, its figures (none here)
// kept, the measured phase ending at the limit.
func TestForcedShutdownCancelsStuckEvents(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	cfg := Config{Threads: 2, Duration: time.Second, Percentiles: []float64{95},
		Drain: Drain{Wait: true, Limit: 500 * time.Millisecond}}
	start := time.Now()
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &sleepWorkload{took: 30 * time.Second}, Rand: newRand(t)})
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run took %s: the stuck events were not cancelled at --time plus 0.5 s", took)
	}
	if !out.Forced || out.Status != result.StatusFailed || out.Unfinished != 2 {
		t.Fatalf("forced %v, status %s, unfinished %d: want a forced shutdown of 2 events", out.Forced, out.Status, out.Unfinished)
	}
	if out.Err == nil || !strings.Contains(out.Err.Error(), "forced shutdown: 2 events were still running 0.5s after --time") {
		t.Errorf("error %v, want it to say the shutdown was forced", out.Err)
	}
	if math.Abs(out.Totals.Seconds-1.5) > 0.05 || out.Grace != 500*time.Millisecond {
		t.Errorf("measured phase %.3fs with grace %s, want 1.5 s: --time plus the limit", out.Totals.Seconds, out.Grace)
	}
	var res result.Result
	out.Fill(&res, cfg, &sleepWorkload{})
	if sh := res.Shutdown; sh == nil || !sh.Forced || sh.Unfinished != 2 || sh.GraceSeconds != 0.5 {
		t.Errorf("result shutdown %+v, want forced with 2 unfinished after 0.5 s", sh)
	}
	if res.Status != result.StatusFailed || !strings.Contains(res.Error, "forced shutdown") {
		t.Errorf("result status %s, error %q: want failed, saying the shutdown was forced", res.Status, res.Error)
	}
}

// TestRateRunWaitsForTimeWithDrain: on a --rate schedule whose next event is
// due after --time (0.001 events/s: the first is due after about 1000 s),
// the thread starts none, yet the measured phase still lasts --time, with
// --forced-shutdown as without (a thread that stopped at once would end it
// at 0 s).
func TestRateRunWaitsForTimeWithDrain(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	for _, drain := range []Drain{{}, {Wait: true, Limit: 5 * time.Second}, {Wait: true, Unlimited: true}} {
		cfg := Config{Threads: 1, Duration: 500 * time.Millisecond, Rate: 0.001, Percentiles: []float64{95}, Drain: drain}
		out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &deafWorkload{took: time.Millisecond}, Rand: newRand(t)})
		if out.Status != result.StatusComplete {
			t.Fatalf("%+v: status %s: %v", drain, out.Status, out.Err)
		}
		if math.Abs(out.Totals.Seconds-0.5) > 0.05 {
			t.Errorf("%+v: measured phase %.3fs, want --time, 0.5 s", drain, out.Totals.Seconds)
		}
	}
}
