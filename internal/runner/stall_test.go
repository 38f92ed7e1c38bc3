package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// runWithStall runs threads threads of SELECT 1 through a proxy to the shared
// server, with a stall limit of limit, and calls stall once the measured phase
// has run for at. It returns the outcome, its result, and how long after the
// end of the measured phase (or, without --time, after the stall began) Run
// returned.
func runWithStall(t *testing.T, threads int, d time.Duration, events int64, limit, at time.Duration, stall func(*tcpProxy)) (*Outcome, *result.Result, time.Duration) {
	t.Helper()
	drv, p := proxied(t)
	cfg := Config{Threads: threads, Duration: d, Events: events, Percentiles: []float64{95}, ReconnectTimeout: limit}
	wl := &queryWorkload{longQuery: "SELECT 1"}
	var (
		timer  *time.Timer
		frozen = make(chan time.Time, 1)
	)
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t),
		OnMeasure: func() { timer = time.AfterFunc(at, func() { frozen <- time.Now(); stall(p) }) }})
	returned := time.Now()
	if timer != nil {
		timer.Stop()
	}
	p.thaw()
	res := &result.Result{}
	out.Fill(res, cfg, wl)
	late := returned.Sub(out.End)
	if d == 0 {
		select {
		case at := <-frozen:
			late = returned.Sub(at)
		default:
			t.Fatalf("the run ended before the stall (status %s, %v)", out.Status, out.Err)
		}
	}
	return out, res, late
}

// TestStallUntilTheEndFails: a server that keeps its connections but answers
// nothing until --time ends (stopped, hung) fails the run instead of leaving
// it complete with few events; the stall is recorded with every thread still
// waiting, and the calls in flight are abandoned at --time, so that the run
// ends (and its result is written) soon after.
func TestStallUntilTheEndFails(t *testing.T) {
	const threads = 3
	out, res, late := runWithStall(t, threads, 3*time.Second, 0, 500*time.Millisecond, 500*time.Millisecond, (*tcpProxy).freeze)
	t.Logf("Run returned %v after the end of the measured phase", late)
	if out.Status != result.StatusFailed || out.Err == nil || !strings.Contains(out.Err.Error(), "3 of 3 threads were still waiting for an answer when the measured phase ended") {
		t.Fatalf("status %s, err %v; want failed for a stall to the end", out.Status, out.Err)
	}
	if late > 15*time.Second {
		t.Errorf("Run returned %v after --time ended: the calls blocked on the hung server were not abandoned", late)
	}
	if out.Totals.Counts.Events == 0 {
		t.Errorf("no events kept: what ran before the stall must stay in the result")
	}
	if len(res.Outages) != 1 {
		t.Fatalf("outages %+v, want one stall", res.Outages)
	}
	o := res.Outages[0]
	if !o.Stall || o.Threads != threads || o.Unrecovered != threads {
		t.Errorf("outage %+v: want a stall of %d threads, unrecovered", o, threads)
	}
	if d := o.End().Sub(res.End); d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("stall ends at %v, want the end of the measured phase %v", o.End(), res.End)
	}
	if o.Start.Before(res.Start) || !o.Start.Before(res.End) {
		t.Errorf("stall starts at %v, outside the measured phase %v..%v", o.Start, res.Start, res.End)
	}
	if !hasWarning(res, "the server stopped answering") {
		t.Errorf("warnings %q: want the stall described", res.Warnings)
	}
}

// TestLongStallFails: a server that answers nothing for more than 5 % of the
// measured phase and then answers again fails the run, with the stall
// recorded and no thread left waiting.
func TestLongStallFails(t *testing.T) {
	const threads = 2
	// Frozen for 1.5 s of 4 (about 37 %); the stall limit is 0.3 s.
	out, res, _ := runWithStall(t, threads, 4*time.Second, 0, 300*time.Millisecond, 500*time.Millisecond, func(p *tcpProxy) {
		p.freeze()
		time.AfterFunc(1500*time.Millisecond, p.thaw)
	})
	if out.Status != result.StatusFailed || out.Err == nil || !strings.Contains(out.Err.Error(), "unreachable or answered nothing") {
		t.Fatalf("status %s, err %v; want failed for a stall over 5 %% of the phase", out.Status, out.Err)
	}
	if len(res.Outages) != 1 || !res.Outages[0].Stall || res.Outages[0].Unrecovered != 0 {
		t.Fatalf("outages %+v, want one stall the threads came back from", res.Outages)
	}
	if s := res.Outages[0].Seconds; s < 1 {
		t.Errorf("stall of %.3fs, want about the 1.5s the proxy held every answer", s)
	}
	if out.Totals.Counts.Reconnects != 0 {
		t.Errorf("reconnects %d: no connection was lost", out.Totals.Counts.Reconnects)
	}
}

// TestStallWithoutTimeFails: without --time nothing would end a run whose
// server stopped answering, so the stall fails it once it passes the limit.
func TestStallWithoutTimeFails(t *testing.T) {
	out, res, late := runWithStall(t, 2, 0, 1<<40, 500*time.Millisecond, 300*time.Millisecond, (*tcpProxy).freeze)
	t.Logf("Run returned %v after the server stopped answering", late)
	if out.Status != result.StatusFailed || out.Err == nil || !strings.Contains(out.Err.Error(), "the server stopped answering") {
		t.Fatalf("status %s, err %v; want failed for the stall", out.Status, out.Err)
	}
	if late > 15*time.Second {
		t.Errorf("Run returned %v after the stall began", late)
	}
	if len(res.Outages) != 1 || !res.Outages[0].Stall || res.Outages[0].Unrecovered != 2 {
		t.Errorf("outages %+v, want one stall with both threads waiting", res.Outages)
	}
}
