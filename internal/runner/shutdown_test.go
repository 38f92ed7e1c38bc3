package runner

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/randgen"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testdb"
	"github.com/fairbench/fairbench/internal/workload"
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
	took time.Duration
	conn driver.Conn
}

func (s *sleepWorkload) Validate() error                                         { return nil }
func (s *sleepWorkload) Prepare(context.Context, workload.PrepareEnv) error      { return nil }
func (s *sleepWorkload) Cleanup(context.Context, driver.Driver, io.Writer) error { return nil }
func (s *sleepWorkload) Missing(context.Context, driver.Conn, driver.Dialect) (workload.Absent, error) {
	return workload.Absent{}, nil
}
func (s *sleepWorkload) NewWorker(_ context.Context, conn driver.Conn, _ driver.Dialect, _ *randgen.Source) (workload.Worker, error) {
	return &sleepWorkload{took: s.took, conn: conn}, nil
}
func (s *sleepWorkload) Event(ctx context.Context, c *workload.Counts) error {
	if _, err := s.conn.Query(ctx, "SELECT SLEEP(?)", s.took.Seconds()); err != nil {
		return err
	}
	c.Reads++
	return nil
}
func (s *sleepWorkload) Rollback(context.Context) error { return nil }
func (s *sleepWorkload) Close() error                   { return nil }

// TestDrainCountsTheEventsInFlight runs 400 ms events for 1 s on two
// threads: the third of each thread is in flight when --time ends. With
// --forced-shutdown=5 it finishes and is counted (6 events, the measured
// phase about 1.2 s: the grace is recorded); without the option (the rule
// before --forced-shutdown, and still the default) it is abandoned (4 events,
// 1 s).
func TestDrainCountsTheEventsInFlight(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	const took = 400 * time.Millisecond
	for _, tc := range []struct {
		name   string
		drain  Drain
		events int64
	}{
		{"forced-shutdown=5", Drain{Wait: true, Limit: 5 * time.Second}, 6},
		{"forced-shutdown=off", Drain{Wait: true, Unlimited: true}, 6},
		{"without", Drain{}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Threads: 2, Duration: time.Second, Percentiles: []float64{95}, Drain: tc.drain}
			out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &sleepWorkload{took: took}, Rand: newRand(t)})
			if out.Status != result.StatusComplete || out.Forced {
				t.Fatalf("status %s, forced %v: %v", out.Status, out.Forced, out.Err)
			}
			if n := out.Totals.Counts.Events; n != tc.events {
				t.Errorf("%d events counted, want %d", n, tc.events)
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
			// The third events end at 1.2 s, give or take the machine.
			if out.Grace < 100*time.Millisecond || out.Grace > 2*took {
				t.Errorf("grace %s, want the ~200 ms the events in flight took past --time", out.Grace)
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
