package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// stallCheckEvery is how often the stall detector looks at the threads.
const stallCheckEvery = 250 * time.Millisecond

// stallLimit is how long every thread may wait inside a call, with no event
// starting or ending on any of them, before the run records a stall: the
// reconnect timeout (a hung server is as gone as a dead one), plus the
// longest sleep a workload takes on purpose inside an event (TPC-C's keying
// and think times with --wait).
func stallLimit(cfg Config, workers []*worker) time.Duration {
	var wait time.Duration
	for _, w := range workers {
		wait = max(wait, w.maxWait)
	}
	return cfg.ReconnectTimeout + wait
}

// watchStalls records stalls until ctx ends (at --time, or when the run
// stops): spans during which every thread was inside a call and none had
// started or finished one for longer than limit — a server that keeps its
// connections open but answers nothing (stopped, hung, or behind a network
// that drops packets without closing connections). A stall lasts until some
// thread starts a new event (it finished one) or stops waiting (its
// connection was lost: that is an outage of connections). Without --time
// nothing would end such a run, so a stall then fails it at once.
func (r *run) watchStalls(ctx context.Context, workers []*worker, limit time.Duration) {
	tick := time.NewTicker(stallCheckEvery)
	defer tick.Stop()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}
		if !r.end.IsZero() && !now.Before(r.end) {
			return // the measured phase has ended: an open stall lasts to its end
		}
		var latest int64
		busy := 0
		for _, w := range workers {
			if s := w.busySince.Load(); s != 0 {
				busy++
				latest = max(latest, s)
			}
		}
		if r.outages.stall(now, busy == len(workers), time.Unix(0, latest), limit) && r.end.IsZero() {
			r.fail(fmt.Errorf("the server stopped answering: all %d threads waited for an answer and no event started or ended for %s "+
				"(--reconnect-timeout; the stall limit); a run without --time cannot wait for it to come back", len(workers), limit))
			return
		}
	}
}

// stall updates the stall state at now: waiting tells whether every thread is
// inside a call, latest is when the most recent of those calls began. It
// reports whether a stall began.
func (o *outages) stall(now time.Time, waiting bool, latest time.Time, limit time.Duration) (began bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stalled != nil {
		switch {
		case !waiting:
			o.stalled.Seconds = now.Sub(o.stalled.Start).Seconds()
		case latest.After(o.stalled.Start):
			o.stalled.Seconds = latest.Sub(o.stalled.Start).Seconds() // an event ended just before
		default:
			return false
		}
		o.spans = append(o.spans, *o.stalled)
		o.stalled = nil
		return false
	}
	if !waiting || now.Sub(latest) <= limit {
		return false
	}
	o.stalled = &result.Outage{Start: latest, Threads: o.threads, Stall: true}
	return true
}
