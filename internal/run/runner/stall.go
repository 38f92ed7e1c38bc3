package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/record/result"
)

// The stall limit (StallLimit) is StallFactor times the 99th percentile of
// the events' time in the database so far, and never less than StallFloor.
const (
	// StallFloor is the shortest stall limit: a second without an answer is
	// a gap a reader of the interval lines sees, whatever the latency.
	StallFloor = time.Second
	// StallFactor is how many times the events' p99 the server may take to
	// answer before the run records a stall: far beyond any tail latency of
	// the workload itself, so that a slow event is never taken for one.
	StallFactor = 20
)

// stallCheckEvery is how often the stall detector looks at the threads while
// a stall is under way or could begin soon (and the reporter, at each
// interval): how late after the stall limit a stall is known. Its start and
// end are exact (stallSignal). Otherwise the detector sleeps until the
// moment the calls it saw could first become one (nextStallCheck), at most
// StallFloor: at full speed, when every thread keeps having answers, it wakes
// about once a second instead of ten times.
const stallCheckEvery = 100 * time.Millisecond

// nextStallCheck is how long the stall detector may sleep after a check at
// now that found no stall under way, given the threads' calls c then and the
// stall limit: until the limit has passed since the later of the last answer
// and the oldest call still waiting (since now when none waits: a wait that
// begins later cannot become a stall sooner), between stallCheckEvery and
// StallFloor (the limit falls when the first events' p99 replaces
// --reconnect-timeout).
func nextStallCheck(now time.Time, c calls, limit time.Duration) time.Duration {
	wait := limit
	if c.waiting > 0 {
		wait = time.Unix(0, max(c.oldest, c.answered)).Add(limit).Sub(now)
	}
	return min(max(wait, stallCheckEvery), StallFloor)
}

// StallLimit returns how long the server may leave every call unanswered
// before the run records a stall: StallFactor × p99, the 99th percentile of
// the events' time in the database so far (their service time, without
// TPC-C's keying and think times), and at least StallFloor. Before any event
// has completed (p99 is 0) nothing tells how long an event takes, and the
// limit is fallback (--reconnect-timeout).
func StallLimit(p99, fallback time.Duration) time.Duration {
	if p99 <= 0 {
		return fallback
	}
	return max(StallFloor, StallFactor*p99)
}

// stallLimit is the run's stall limit now: from the p99 the reporter last
// published.
func (r *run) stallLimit() time.Duration {
	return StallLimit(time.Duration(r.p99.Load()), r.cfg.ReconnectTimeout)
}

// calls is what the stall detector reads of the threads at one moment.
type calls struct {
	// waiting counts the threads waiting for the server: inside a
	// database call that has had no answer (not between events, on a
	// --rate schedule, in a keying or think time, or reconnecting).
	waiting int
	// oldest is when the longest of those waits began (Unix ns; 0 when
	// none waits).
	oldest int64
	// answered is the latest answer any thread had: the end of an event,
	// or an error the server returned (Unix ns; 0 before the first).
	answered int64
	// firstAfter is the earliest of the threads' latest answers after the
	// moment readCalls was given (0 when none is): the end of a stall that
	// began then, to within a check.
	firstAfter int64
}

// readCalls reads the threads' call marks (nil entries skipped); after is the
// start of the stall under way (Unix ns), 0 when none is.
func readCalls(workers []*worker, after int64) calls {
	var c calls
	for _, w := range workers {
		if w == nil {
			continue
		}
		// The mark first: a thread that got its answer in between is
		// seen answered, never waiting since a call that ended.
		m := w.callMark.Load()
		a := w.answered.Load()
		c.answered = max(c.answered, a)
		if after != 0 && a > after && (c.firstAfter == 0 || a < c.firstAfter) {
			c.firstAfter = a
		}
		if m != 0 && m >= a {
			c.waiting++
			if c.oldest == 0 || m < c.oldest {
				c.oldest = m
			}
		}
	}
	return c
}

// stallSignal lets the threads date the end of a stall exactly: while one
// is under way, from is its start (Unix ns), and the first thread to have an
// answer after it stores the answer's time in answer. A thread reads from
// at each answer; it is written only when a stall begins or ends, on a cache
// line of its own, so that the read costs no more than a private one.
type stallSignal struct {
	_            [64]byte
	from, answer atomic.Int64
	_            [64]byte
}

// answer records that the thread had an answer at t (Unix ns): the end of an
// event, or an error the server returned. The first answer after the start
// of a stall under way ends it (checkStall).
func (w *worker) answer(r *run, t int64) {
	w.answered.Store(t)
	if s := r.stallSig.from.Load(); s != 0 && t > s && r.stallSig.answer.Load() == 0 {
		r.stallSig.answer.CompareAndSwap(0, t)
	}
}

// inCall reports whether the thread waits for the server now (readCalls).
func (w *worker) inCall() bool {
	m := w.callMark.Load()
	return m != 0 && m >= w.answered.Load()
}

// watchStalls records stalls until ctx ends (at --time, or when the run
// stops); see checkStall. Without --time nothing would end a run whose server
// stopped answering, so a stall that lasts longer than --reconnect-timeout
// then fails it.
func (r *run) watchStalls(ctx context.Context) {
	timer := time.NewTimer(stallCheckEvery)
	defer timer.Stop()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-timer.C:
		}
		if !r.watching(now) {
			return // the measured phase has ended: an open stall lasts to its end
		}
		start, open := r.checkStall(now)
		if open && r.end.IsZero() && now.Sub(start) > r.cfg.ReconnectTimeout {
			r.fail(fmt.Errorf("the server stopped answering: no thread had an answer for %s (longer than --reconnect-timeout, %s); "+
				"a run without --time cannot wait for it to come back", progress.Duration(now.Sub(start)), r.cfg.ReconnectTimeout))
			return
		}
		next := stallCheckEvery
		if !open {
			next = nextStallCheck(now, r.readCalls(0), r.stallLimit())
		}
		timer.Reset(next)
	}
}

// watching reports whether stalls are still looked for at now: until --time,
// or with --forced-shutdown until the events in flight then have finished
// (the measured phase lasts until then, and their answers end a stall).
func (r *run) watching(now time.Time) bool {
	return r.end.IsZero() || now.Before(r.end) || r.cfg.Drain.Wait
}

// checkStall updates the stall state at now (while watching; after it, it
// only reports it) from the threads' call marks and the
// stall limit, and returns the start of the stall under way, if any.
//
// A stall is a span longer than the stall limit during which some thread
// waited for the server and no thread had an answer: the server kept its
// connections but answered nothing (stopped, hung, or behind a network that
// drops packets without closing connections). Threads on their --rate
// schedule or in TPC-C's keying and think times are not waiting, so a low
// rate or a think time is never one. It begins at the later of the last
// answer and the start of the oldest call still waiting, and ends at the
// first answer after it, or when no thread waits any more (their connections
// were lost: an outage of connections follows).
func (r *run) checkStall(now time.Time) (start time.Time, open bool) {
	o := &r.outages
	o.mu.Lock()
	defer o.mu.Unlock()
	if r.watching(now) {
		var after int64
		if o.stalled != nil {
			after = o.stalled.Start.UnixNano()
		}
		c := r.readCalls(after)
		was := o.stalled != nil
		o.stall(now, c, r.stallLimit())
		switch {
		case o.stalled != nil && !was:
			r.stallSig.answer.Store(0)
			r.stallSig.from.Store(o.stalled.Start.UnixNano())
		case o.stalled == nil && was:
			r.stallSig.from.Store(0)
		}
	}
	if o.stalled == nil {
		return time.Time{}, false
	}
	return o.stalled.Start, true
}

// readCalls reads the threads' calls (readCalls) with the start of the
// stall under way, after (0 when none is). The threads' latest answers date
// the end of a stall to within a check; the first answer after its start,
// when a thread saw the stall signal in time to store it, dates it exactly.
func (r *run) readCalls(after int64) calls {
	c := readCalls(r.workers, after)
	if a := r.stallSig.answer.Load(); after != 0 && a > after && (c.firstAfter == 0 || a < c.firstAfter) {
		c.firstAfter = a
	}
	return c
}

// endStall ends the stall under way, if any, at the first answer after its
// start and by end (the end of the measured phase), once every thread has
// stopped: the answers to the calls that --forced-shutdown waited for after
// --time, which the watcher, ended with the threads, did not see. A stall
// without one lasts to the end of the measured phase (outages.finish).
func (r *run) endStall(end time.Time) {
	o := &r.outages
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stalled == nil {
		return
	}
	if c := r.readCalls(o.stalled.Start.UnixNano()); c.firstAfter != 0 && c.firstAfter <= end.UnixNano() {
		o.closeStall(time.Unix(0, c.firstAfter))
	}
}

// closeStall ends the stall under way at end; o.mu is held.
func (o *outages) closeStall(end time.Time) {
	s := o.stalled
	s.Seconds = max(end.Sub(s.Start).Seconds(), 0)
	o.spans = append(o.spans, *s)
	o.stalled = nil
}

// stall updates the stall state at now from c (read with the start of the
// stall under way) and the stall limit; o.mu is held.
func (o *outages) stall(now time.Time, c calls, limit time.Duration) {
	if s := o.stalled; s != nil {
		var end time.Time
		switch {
		case c.firstAfter != 0:
			end = time.Unix(0, c.firstAfter)
		case c.waiting == 0:
			end = now
		default:
			s.Threads = max(s.Threads, c.waiting)
			o.stallWaiting = c.waiting
			return
		}
		o.closeStall(end)
		return
	}
	if c.waiting == 0 {
		return
	}
	since := time.Unix(0, max(c.oldest, c.answered))
	if now.Sub(since) <= limit {
		return
	}
	o.stalled = &result.Outage{Start: since, Threads: c.waiting, Stall: true, LimitSeconds: limit.Seconds()}
	o.stallWaiting = c.waiting
}

// stalledIn reports whether a stall, ended or under way, overlaps the span
// from..to.
func (o *outages) stalledIn(from, to time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stalled != nil && o.stalled.Start.Before(to) {
		return true
	}
	for _, s := range o.spans {
		if s.Stall && s.Start.Before(to) && s.End().After(from) {
			return true
		}
	}
	return false
}
