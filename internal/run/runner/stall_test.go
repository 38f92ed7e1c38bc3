package runner

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
)

// TestStallLimit: max(StallFloor, StallFactor × p99), and --reconnect-timeout
// before the first event.
func TestStallLimit(t *testing.T) {
	const fallback = 30 * time.Second
	for _, tc := range []struct {
		p99, want time.Duration
	}{
		{0, fallback},                                    // nothing completed yet
		{200 * time.Microsecond, time.Second},            // point selects: the floor
		{50 * time.Millisecond, time.Second},             // 20 × 50 ms is the floor itself
		{51 * time.Millisecond, 1020 * time.Millisecond}, // just above it
		{400 * time.Millisecond, 8 * time.Second},        // slow events: 20 × p99
		{10 * time.Second, 200 * time.Second},            // beyond --reconnect-timeout
	} {
		if got := StallLimit(tc.p99, fallback); got != tc.want {
			t.Errorf("StallLimit(%v, %v) = %v, want %v", tc.p99, fallback, got, tc.want)
		}
	}
}

// TestReadCalls: a thread waits for the server while its call mark is not
// earlier than its last answer (a closed loop starts the next event at the
// instant the last one ended); one that never had a call, that reconnects
// (mark 0) or that answered since its mark does not.
func TestReadCalls(t *testing.T) {
	mk := func(mark, answered int64) *worker {
		w := &worker{}
		w.callMark.Store(mark)
		w.answered.Store(answered)
		return w
	}
	workers := []*worker{
		mk(0, 0),    // not started
		mk(100, 90), // waiting since 100
		mk(80, 95),  // answered at 95 (between events, on its schedule, thinking)
		mk(0, 97),   // reconnecting
		nil,         // not connected
		mk(120, 99), // waiting since 120
		mk(98, 98),  // waiting since 98, when its last event ended
	}
	c := readCalls(workers, 0)
	if want := (calls{waiting: 3, oldest: 98, answered: 99}); c != want {
		t.Errorf("readCalls = %+v, want %+v", c, want)
	}
	if c := readCalls(workers, 94); c.firstAfter != 95 {
		t.Errorf("the first answer after 94 is %d, want 95 (the earliest of the answers after it)", c.firstAfter)
	}
	if c := readCalls(workers, 99); c.firstAfter != 0 {
		t.Errorf("an answer after 99 is %d: there is none", c.firstAfter)
	}
	if !workers[1].inCall() || !workers[6].inCall() || workers[2].inCall() || workers[3].inCall() || workers[0].inCall() {
		t.Errorf("inCall disagrees with readCalls")
	}
}

// TestStallRule steps the stall state through what the detector may see:
// a stall begins when some thread has waited and no thread has had an
// answer for longer than the limit, from the later of the two; it ends at
// the first answer after its start, or when no thread waits any more.
func TestStallRule(t *testing.T) {
	base := time.Unix(1000, 0)
	ns := func(s float64) int64 { return base.Add(time.Duration(s * float64(time.Second))).UnixNano() }
	at := func(s float64) time.Time { return time.Unix(0, ns(s)) }
	const limit = time.Second
	type step struct {
		now  float64
		c    calls
		open bool    // a stall is under way after the step
		from float64 // its start
	}
	for _, tc := range []struct {
		name  string
		steps []step
		spans [][2]float64 // closed stalls (start, end)
	}{
		{name: "a slow call while others answer", steps: []step{
			{now: 5, c: calls{waiting: 1, oldest: ns(1), answered: ns(4.9)}},
			{now: 10, c: calls{waiting: 1, oldest: ns(1), answered: ns(9.5)}},
		}},
		{name: "nothing waits: a low --rate or a think time", steps: []step{
			{now: 60, c: calls{answered: ns(1)}},
		}},
		{name: "at the limit is not over it", steps: []step{
			{now: 3, c: calls{waiting: 2, oldest: ns(1.5), answered: ns(2)}},
		}},
		{name: "every thread waits, then the server answers", steps: []step{
			{now: 3.1, c: calls{waiting: 2, oldest: ns(1.5), answered: ns(2)}, open: true, from: 2},
			{now: 4, c: calls{waiting: 2, oldest: ns(1.5), answered: ns(2)}, open: true, from: 2},
			{now: 5.2, c: calls{waiting: 1, oldest: ns(5.05), answered: ns(5.1), firstAfter: ns(5.02)}},
		}, spans: [][2]float64{{2, 5.02}}},
		{name: "a call older than the last answer starts it at the answer", steps: []step{
			{now: 9, c: calls{waiting: 1, oldest: ns(7.5), answered: ns(3)}, open: true, from: 7.5},
		}},
		{name: "the waiting threads lose their connections", steps: []step{
			{now: 4, c: calls{waiting: 1, oldest: ns(2), answered: ns(1)}, open: true, from: 2},
			{now: 4.5, c: calls{answered: ns(1)}},
		}, spans: [][2]float64{{2, 4.5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o outages
			for i, st := range tc.steps {
				o.stall(at(st.now), st.c, limit)
				if open := o.stalled != nil; open != st.open {
					t.Fatalf("step %d: stall under way %v, want %v", i, open, st.open)
				}
				if st.open && !o.stalled.Start.Equal(at(st.from)) {
					t.Errorf("step %d: stall from %v, want %v", i, o.stalled.Start.Sub(base), at(st.from).Sub(base))
				}
				if st.open && (!o.stalled.Stall || o.stalled.LimitSeconds != limit.Seconds() || o.stalled.Threads != st.c.waiting) {
					t.Errorf("step %d: stall %+v, want one of %d threads with the limit", i, *o.stalled, st.c.waiting)
				}
			}
			if len(o.spans) != len(tc.spans) {
				t.Fatalf("stalls %+v, want %v", o.spans, tc.spans)
			}
			for i, sp := range tc.spans {
				got := o.spans[i]
				if !got.Start.Equal(at(sp[0])) || math.Abs(got.Seconds-(sp[1]-sp[0])) > 1e-9 {
					t.Errorf("stall %d: %v for %.3fs, want %v for %.3fs", i, got.Start.Sub(base), got.Seconds, at(sp[0]).Sub(base), sp[1]-sp[0])
				}
			}
		})
	}
}

// TestStallOpenAtTheEnd: a stall under way when the measured phase ends
// lasts to its end, with the threads still waiting then as unrecovered.
func TestStallOpenAtTheEnd(t *testing.T) {
	base := time.Unix(1000, 0)
	var o outages
	o.stall(base.Add(3*time.Second), calls{waiting: 1, oldest: base.Add(time.Second).UnixNano()}, time.Second)
	o.stall(base.Add(4*time.Second), calls{waiting: 3, oldest: base.Add(time.Second).UnixNano()}, time.Second)
	got := o.finish(base.Add(5 * time.Second))
	if len(got) != 1 || !got[0].Stall || got[0].Seconds != 4 || got[0].Threads != 3 || got[0].Unrecovered != 3 {
		t.Errorf("outages %+v, want one stall of 4s, 3 threads still waiting", got)
	}
}

// TestStallEndsAtTheFirstAnswer: the first answer after a stall's start
// ends it, although by the next check every thread has had later ones.
func TestStallEndsAtTheFirstAnswer(t *testing.T) {
	base := time.Now()
	w1, w2 := &worker{}, &worker{}
	r := &run{cfg: Config{ReconnectTimeout: time.Second}, workers: []*worker{w1, w2}}
	w1.callMark.Store(base.UnixNano())
	w2.callMark.Store(base.UnixNano())
	if from, open := r.checkStall(base.Add(1500 * time.Millisecond)); !open || !from.Equal(time.Unix(0, base.UnixNano())) {
		t.Fatalf("stall under way %v from %v, want one from the calls' start", open, from)
	}
	first := base.Add(2 * time.Second).UnixNano()
	w1.answer(r, first)
	w1.callMark.Store(first) // its next event
	w1.answer(r, first+int64(50*time.Millisecond))
	w2.answer(r, first+int64(80*time.Millisecond))
	if _, open := r.checkStall(base.Add(2100 * time.Millisecond)); open {
		t.Fatal("the stall is still under way after the server answered")
	}
	got := r.outages.finish(base.Add(3 * time.Second))
	if len(got) != 1 || got[0].Seconds != 2 || got[0].Unrecovered != 0 {
		t.Errorf("outages %+v, want one stall of exactly 2s (to the first answer), recovered", got)
	}
	if r.stallSig.from.Load() != 0 {
		t.Errorf("the stall signal is still up after the stall ended")
	}
}

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
	// 5.5 s of the 6-s phase stay after the freeze: a stall is recorded
	// whenever the limit (StallFactor × the p99 before it, at least
	// StallFloor) is under that, that is with a p99 up to 275 ms. With 3 s
	// (p99 under 125 ms) a loaded machine, the test streams at once beside
	// other work, once left the run complete.
	out, res, late := runWithStall(t, threads, 6*time.Second, 0, 500*time.Millisecond, 500*time.Millisecond, (*tcpProxy).freeze)
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
	if out.Status != result.StatusFailed || out.Err == nil || !strings.Contains(out.Err.Error(), "the server answered nothing for") {
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

// TestNextStallCheck: the stall detector sleeps until the calls it saw could
// first become a stall, within stallCheckEvery..StallFloor.
func TestNextStallCheck(t *testing.T) {
	now := time.Unix(1000, 0)
	at := func(d time.Duration) int64 { return now.Add(d).UnixNano() }
	for _, tc := range []struct {
		name  string
		c     calls
		limit time.Duration
		want  time.Duration
	}{
		{"none waits: a new wait needs the limit, at most StallFloor", calls{answered: at(0)}, 5 * time.Second, StallFloor},
		{"none waits, short limit", calls{answered: at(0)}, 300 * time.Millisecond, 300 * time.Millisecond},
		{"a call since 400ms, answered before", calls{waiting: 1, oldest: at(-400 * time.Millisecond), answered: at(-time.Second)}, time.Second, 600 * time.Millisecond},
		{"a call since 2s, answered 200ms ago", calls{waiting: 2, oldest: at(-2 * time.Second), answered: at(-200 * time.Millisecond)}, time.Second, 800 * time.Millisecond},
		{"about to become a stall", calls{waiting: 1, oldest: at(-990 * time.Millisecond)}, time.Second, stallCheckEvery},
		{"past the limit already", calls{waiting: 1, oldest: at(-3 * time.Second)}, time.Second, stallCheckEvery},
		{"long limit", calls{waiting: 1, oldest: at(0)}, 20 * time.Second, StallFloor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextStallCheck(now, tc.c, tc.limit); got != tc.want {
				t.Errorf("nextStallCheck = %v, want %v", got, tc.want)
			}
		})
	}
}
