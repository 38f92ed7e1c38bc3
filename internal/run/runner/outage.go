package runner

import (
	"sort"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
)

// outages records the spans during which some thread had no connection: a
// span opens when a thread finds its connection lost while none other is
// without one, and closes when the last thread without one has a new one.
// It is touched only when a connection is lost and when it is replaced.
type outages struct {
	mu    sync.Mutex
	down  map[int]bool // threads without a connection now
	cur   *result.Outage
	hit   map[int]bool // threads that lost their connection during cur
	spans []result.Outage
	// stalled is the stall under way (checkStall), stallWaiting how many
	// threads waited for an answer when it was last looked at.
	stalled      *result.Outage
	stallWaiting int
}

// lost records that thread found its connection lost at t.
func (o *outages) lost(thread int, t time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down == nil {
		o.down, o.hit = map[int]bool{}, map[int]bool{}
	}
	if o.cur == nil {
		o.cur = &result.Outage{Start: t}
		clear(o.hit)
	}
	o.down[thread] = true
	o.hit[thread] = true
}

// back records that thread has a connection again at t.
func (o *outages) back(thread int, t time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down[thread] {
		return
	}
	delete(o.down, thread)
	if len(o.down) == 0 && o.cur != nil {
		o.cur.Seconds = t.Sub(o.cur.Start).Seconds()
		o.cur.Threads = len(o.hit)
		o.spans = append(o.spans, *o.cur)
		o.cur = nil
	}
}

// finish closes an outage (and a stall) still open at end (the end of the measured phase),
// counting the threads still without a connection, and returns every outage.
func (o *outages) finish(end time.Time) []result.Outage {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := append([]result.Outage(nil), o.spans...)
	if o.cur != nil {
		c := *o.cur
		if end.After(c.Start) {
			c.Seconds = end.Sub(c.Start).Seconds()
		}
		c.Threads, c.Unrecovered = len(o.hit), len(o.down)
		out = append(out, c)
	}
	if o.stalled != nil {
		// Threads still waited for an answer when the phase ended.
		c := *o.stalled
		if end.After(c.Start) {
			c.Seconds = end.Sub(c.Start).Seconds()
		}
		c.Unrecovered = o.stallWaiting
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}
