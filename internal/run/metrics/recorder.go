package metrics

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// The ring of a Recorder holds the events completed between two sweeps. The
// more workers, the fewer events each completes in a sweep period (they share
// the machine and the server), so the rings share a budget: from maxRing
// samples (32 KiB) each up to ringBudget/maxRing workers, down to minRing
// (4 KiB) at thousands of workers, when each completes at most a few thousand
// events per second.
const (
	maxRing    = 1024
	minRing    = 128
	ringBudget = 1 << 17 // samples over all workers: 4 MiB
)

// ringSize returns the ring length for each of n workers (a power of two).
func ringSize(n int) int {
	size := maxRing
	for size > minRing && size*n > ringBudget {
		size /= 2
	}
	return size
}

// SweepEvery is how often the owner of a Collector should call Sweep. A worker
// that completes more events than its ring holds in that time (20,000 events/s
// with up to 128 workers, 2,500/s at 1,024) spills the excess into a window
// that it shares with a stripe of workers, under that stripe's lock. Bursts
// make that happen even at a modest average rate (a client thread and its
// server thread paired on one core answer each other at loopback speed), and
// a stalled collector makes every worker spill at once: a window per worker
// (~190 KB a histogram) grew 1,024 point-select workers past 260 MB, so the
// windows are few and the lock is taken only on this rare path.
//
// SweepEvery is the shortest period: the owner lengthens it while the rings
// stay nearly empty (NextSweep), so that a run at a low rate does not wake
// twenty times a second for nothing.
const SweepEvery = 50 * time.Millisecond

// SweepIdle is the longest period between sweeps (NextSweep).
const SweepIdle = time.Second

// NextSweep returns the period until the next sweep, after a sweep that came
// period after the one before and found the fullest ring holding the share
// fullest of its samples (Sweep): SweepEvery again once a ring was more than
// a quarter full, twice period (at most SweepIdle) while every ring held less
// than a sixteenth, period otherwise. A rate eight times higher than the
// last period's is needed to fill a ring before the next sweep, and a ring
// that fills spills its excess (counted all the same) for one period.
func NextSweep(period time.Duration, fullest float64) time.Duration {
	switch {
	case fullest > 1.0/4:
		return SweepEvery
	case fullest < 1.0/16:
		return min(2*period, SweepIdle)
	}
	return min(max(period, SweepEvery), SweepIdle)
}

// spillStripes bounds the spill windows of a Collector.
const spillStripes = 4

// spillStripe is the window that the workers of one stripe spill into.
type spillStripe struct {
	mu sync.Mutex
	w  *Window // nil until the first spill
}

// sample is one completed event as it waits in a ring.
type sample struct {
	latency, service      int64 // nanoseconds
	reads, writes, others uint32
	kind                  uint16
	rollback              bool
}

// Recorder is one worker's handle. Its methods are called by that worker only.
// Completed events go into a single-producer, single-consumer ring (no lock);
// errors and reconnects go under a mutex shared with the Collector alone, and
// the rare events that found the ring full under their stripe's (see
// SweepEvery).
type Recorder struct {
	_ [64]byte // head, written at every event, shares no cache line with another worker's
	// head counts the samples written; only the worker writes it.
	head atomic.Uint64
	// tailSeen is the worker's last view of tail, so that it reads the
	// collector's variable only when the ring looks full.
	tailSeen uint64
	ring     []sample // len is a power of two
	_        [64]byte
	// tail counts the samples read; only the collector writes it.
	tail atomic.Uint64

	shape Shape
	// stripe takes the events that found the ring full; spilled counts them
	// and their service time since the last drain (guarded by stripe.mu).
	stripe  *spillStripe
	spilled ThreadTotals

	mu sync.Mutex
	// other counts the statements of incomplete events, reconnects and errors
	// since the last drain (Events is unused); kindErrors the errors by kind.
	other       Counters
	kindErrors  []map[string]int64
	kindRetries [][2]int64 // per kind: retries, events retried
}

// Event is one completed event as a worker saw it.
type Event struct {
	// Latency is measured from the intended start, Service from the actual start.
	Latency, Service      time.Duration
	Reads, Writes, Others int64
	Kind                  int  // index of the event's kind (0 for single-kind workloads)
	Rollback              bool // ended in an expected rollback
}

// fitsSample reports whether e can travel in a ring sample.
func fitsSample(e *Event) bool {
	return uint64(e.Reads) <= math.MaxUint32 && uint64(e.Writes) <= math.MaxUint32 &&
		uint64(e.Others) <= math.MaxUint32 && uint(e.Kind) <= math.MaxUint16
}

// Event records one completed event.
func (r *Recorder) Event(e *Event) {
	h, size := r.head.Load(), uint64(len(r.ring))
	if h-r.tailSeen >= size {
		r.tailSeen = r.tail.Load()
	}
	if h-r.tailSeen < size && fitsSample(e) {
		r.ring[h&(size-1)] = sample{
			latency: int64(e.Latency), service: int64(e.Service),
			reads: uint32(e.Reads), writes: uint32(e.Writes), others: uint32(e.Others),
			kind: uint16(e.Kind), rollback: e.Rollback,
		}
		r.head.Store(h + 1) // publishes the sample to the collector
		return
	}
	st := r.stripe
	st.mu.Lock()
	if st.w == nil {
		st.w = NewWindow(r.shape)
	}
	st.w.record(e)
	r.spilled.Events++
	r.spilled.Busy += e.Service
	st.mu.Unlock()
}

// Queries records statements of an event that did not complete (it was rolled back
// after an ignored error): they ran and are counted, as sysbench counts them.
func (r *Recorder) Queries(reads, writes, others int64) {
	r.mu.Lock()
	r.other.Reads += reads
	r.other.Writes += writes
	r.other.Others += others
	r.mu.Unlock()
}

// Error records an ignored error by code, for an event of the given kind.
func (r *Recorder) Error(kind int, code string) {
	r.mu.Lock()
	if r.other.Errors == nil {
		r.other.Errors = make(map[string]int64, 2)
	}
	r.other.Errors[code]++
	if kind >= 0 && kind < r.shape.Kinds && r.shape.Kinds > 1 {
		if r.kindErrors == nil {
			r.kindErrors = make([]map[string]int64, r.shape.Kinds)
		}
		if r.kindErrors[kind] == nil {
			r.kindErrors[kind] = make(map[string]int64, 2)
		}
		r.kindErrors[kind][code]++
	}
	r.mu.Unlock()
}

// Retries records an event of the given kind (completed or failed) that the
// workload re-ran n > 0 times after serialization or deadlock failures.
func (r *Recorder) Retries(kind int, n int64) {
	r.mu.Lock()
	r.other.Retries += n
	r.other.Retried++
	if kind >= 0 && kind < r.shape.Kinds && r.shape.Kinds > 1 {
		if r.kindRetries == nil {
			r.kindRetries = make([][2]int64, r.shape.Kinds)
		}
		r.kindRetries[kind][0] += n
		r.kindRetries[kind][1]++
	}
	r.mu.Unlock()
}

// Late records a completed event whose latency exceeded the latency limit.
func (r *Recorder) Late() {
	r.mu.Lock()
	r.other.Late++
	r.mu.Unlock()
}

// Skip records an event of the --rate schedule skipped because it was
// already later than the latency limit when its turn came.
func (r *Recorder) Skip() {
	r.mu.Lock()
	r.other.Skipped++
	r.mu.Unlock()
}

// Connected records a connection an event opened for itself
// (--connect-per-event) and the time spent opening and closing it.
func (r *Recorder) Connected(d time.Duration) {
	r.mu.Lock()
	r.other.Connects++
	r.other.ConnectTime += d
	r.mu.Unlock()
}

// Reconnect records a reconnect after a lost connection.
func (r *Recorder) Reconnect() {
	r.mu.Lock()
	r.other.Reconnects++
	r.mu.Unlock()
}

// record adds one event to w.
func (w *Window) record(e *Event) {
	w.Events++
	w.Reads += e.Reads
	w.Writes += e.Writes
	w.Others += e.Others
	w.Latency.record(e.Latency)
	if w.HasService {
		w.Service.record(e.Service)
	}
	if e.Kind < len(w.Kinds) {
		k := &w.Kinds[e.Kind]
		k.Events++
		if e.Rollback {
			k.Rollbacks++
		}
		k.Latency.record(e.Latency)
	}
}

// Collector owns the Recorders of a run and drains them. Sweep and Drain must
// be called from one goroutine at a time (the reporter's).
type Collector struct {
	shape   Shape
	recs    []*Recorder
	stripes []spillStripe // recorder i spills into stripes[i%len]
	// swept holds each worker's events and busy time swept since the last Drain.
	swept []ThreadTotals
}

// NewCollector makes n Recorders whose windows have the given shape.
func NewCollector(n int, shape Shape) *Collector {
	c := &Collector{shape: shape, recs: make([]*Recorder, n), swept: make([]ThreadTotals, n),
		stripes: make([]spillStripe, max(min(n, spillStripes), 1))}
	size := ringSize(n)
	for i := range c.recs {
		c.recs[i] = &Recorder{shape: shape, ring: make([]sample, size), stripe: &c.stripes[i%len(c.stripes)]}
	}
	return c
}

// Recorder returns worker i's recorder.
func (c *Collector) Recorder(i int) *Recorder { return c.recs[i] }

// NewWindow returns an empty window of this collector's shape.
func (c *Collector) NewWindow() *Window { return NewWindow(c.shape) }

// Sweep moves the events waiting in the workers' rings into into, so that the
// rings have room again, and returns the share of its ring the fullest one
// held (0 to 1). Call it every SweepEvery, or as NextSweep says; what it
// moves is counted in the per-thread totals at the next Drain.
func (c *Collector) Sweep(into *Window) (fullest float64) {
	most := 0
	for i, r := range c.recs {
		most = max(most, c.sweep(i, r, into))
	}
	if len(c.recs) == 0 {
		return 0
	}
	return float64(most) / float64(len(c.recs[0].ring))
}

// sweep moves worker i's waiting events into into and returns how many.
func (c *Collector) sweep(i int, r *Recorder, into *Window) int {
	t, h := r.tail.Load(), r.head.Load()
	if t == h {
		return 0
	}
	n := int(h - t)
	per := &c.swept[i]
	mask := uint64(len(r.ring) - 1)
	var e Event
	for ; t != h; t++ {
		s := &r.ring[t&mask]
		e = Event{Latency: time.Duration(s.latency), Service: time.Duration(s.service),
			Reads: int64(s.reads), Writes: int64(s.writes), Others: int64(s.others),
			Kind: int(s.kind), Rollback: s.rollback}
		into.record(&e)
		per.Events++
		per.Busy += e.Service
	}
	r.tail.Store(h) // hands the slots back to the worker
	return n
}

// Drain moves everything recorded since the last drain into into, and adds each
// worker's events and busy time to perThread (len = workers) when it is not nil.
func (c *Collector) Drain(into *Window, perThread []ThreadTotals) {
	c.Sweep(into)
	// A stripe's window and its workers' spill counts move under one lock
	// hold, so that the per-thread totals add up to the window's events.
	for s := range c.stripes {
		st := &c.stripes[s]
		st.mu.Lock()
		if st.w != nil && st.w.Events > 0 {
			into.Merge(st.w)
			st.w.Reset()
		}
		for i := s; i < len(c.recs); i += len(c.stripes) {
			r := c.recs[i]
			c.swept[i].Events += r.spilled.Events
			c.swept[i].Busy += r.spilled.Busy
			r.spilled = ThreadTotals{}
		}
		st.mu.Unlock()
	}
	for i, r := range c.recs {
		per := c.swept[i]
		r.mu.Lock()
		into.Counters.Add(&r.other)
		r.other.reset()
		for k, m := range r.kindErrors {
			if k < len(into.Kinds) {
				into.Kinds[k].Errors = addErrors(into.Kinds[k].Errors, m)
			}
			clear(m)
		}
		for k, n := range r.kindRetries {
			if k < len(into.Kinds) {
				into.Kinds[k].Retries += n[0]
				into.Kinds[k].Retried += n[1]
			}
			r.kindRetries[k] = [2]int64{}
		}
		r.mu.Unlock()
		if perThread != nil {
			perThread[i].Events += per.Events
			perThread[i].Busy += per.Busy
		}
		c.swept[i] = ThreadTotals{}
	}
}
