// Package metrics records what workers do: one Recorder per worker (no lock shared
// between workers) holding a small ring of raw samples, swept often by a Collector
// into Windows that hold merged HdrHistograms and counters. Histograms live only
// in the collector's windows, so memory does not grow with the thread count.
//
// Latencies are recorded in microseconds in HdrHistograms covering 1 µs to 1 h with
// 3 significant digits; the exact minimum and maximum are kept beside them in
// nanoseconds.
package metrics

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The histogram geometry shared by every histogram fairbench writes.
const (
	LowestMicros  = 1
	HighestMicros = int64(time.Hour / time.Microsecond)
	SigFigs       = 3
)

// NewHistogram returns an empty histogram with fairbench's geometry.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LowestMicros, HighestMicros, SigFigs)
}

// micros converts d to whole microseconds for the histogram, clamped to its range.
func micros(d time.Duration) int64 {
	us := int64((d + 500*time.Nanosecond) / time.Microsecond)
	if us < LowestMicros {
		return LowestMicros
	}
	if us > HighestMicros {
		return HighestMicros
	}
	return us
}

// Latency is a histogram with the exact extremes and sum of what it holds.
type Latency struct {
	Hist     *hdrhistogram.Histogram
	Count    int64
	Min, Max time.Duration // exact; Min is 0 when Count is 0
	Sum      time.Duration
}

func newLatency() Latency { return Latency{Hist: NewHistogram()} }

func (l *Latency) record(d time.Duration) {
	_ = l.Hist.RecordValue(micros(d)) // clamped into range: cannot fail
	if l.Count == 0 || d < l.Min {
		l.Min = d
	}
	if d > l.Max {
		l.Max = d
	}
	l.Count++
	l.Sum += d
}

// Merge adds o into l.
func (l *Latency) Merge(o *Latency) {
	if o.Count == 0 {
		return
	}
	l.Hist.Merge(o.Hist)
	if l.Count == 0 || o.Min < l.Min {
		l.Min = o.Min
	}
	if o.Max > l.Max {
		l.Max = o.Max
	}
	l.Count += o.Count
	l.Sum += o.Sum
}

func (l *Latency) reset() {
	l.Hist.Reset()
	l.Count, l.Min, l.Max, l.Sum = 0, 0, 0, 0
}

// Mean returns the exact mean latency.
func (l *Latency) Mean() time.Duration {
	if l.Count == 0 {
		return 0
	}
	return l.Sum / time.Duration(l.Count)
}

// Quantile returns the latency at quantile q in [0,1] (0.95 for p95). It is the
// one quantile convention of the code base; q=1 returns the exact maximum.
func (l *Latency) Quantile(q float64) time.Duration {
	if l.Count == 0 {
		return 0
	}
	if q >= 1 {
		return l.Max
	}
	if q <= 0 {
		return l.Min
	}
	v := time.Duration(l.Hist.ValueAtQuantile(q*100)) * time.Microsecond
	// The histogram reports the top of a bucket; never beyond what was seen.
	if v > l.Max {
		v = l.Max
	}
	if v < l.Min {
		v = l.Min
	}
	return v
}

// Counters are the event and statement counts of a window.
type Counters struct {
	Events, Reads, Writes, Others, Reconnects int64
	// Retries counts the re-runs of events that a serialization or deadlock
	// failure made the workload retry (pgbench --max-tries); Retried counts
	// the events that were retried at least once, whether they then
	// completed or failed.
	Retries, Retried int64
	// Late counts the completed events above the latency limit; Skipped the
	// events of the --rate schedule skipped for being already later than it.
	Late, Skipped int64
	// Connects counts the connections events opened for themselves
	// (--connect-per-event) and ConnectTime the time spent opening and
	// closing them.
	Connects    int64
	ConnectTime time.Duration
	// Errors counts ignored errors by code; nil until the first one.
	Errors map[string]int64
}

// Add adds o into c.
func (c *Counters) Add(o *Counters) {
	c.Events += o.Events
	c.Reads += o.Reads
	c.Writes += o.Writes
	c.Others += o.Others
	c.Reconnects += o.Reconnects
	c.Retries += o.Retries
	c.Retried += o.Retried
	c.Late += o.Late
	c.Skipped += o.Skipped
	c.Connects += o.Connects
	c.ConnectTime += o.ConnectTime
	c.Errors = addErrors(c.Errors, o.Errors)
}

// ErrorCount is the sum of the ignored errors.
func (c *Counters) ErrorCount() int64 {
	var n int64
	for _, v := range c.Errors {
		n += v
	}
	return n
}

func (c *Counters) reset() {
	clear(c.Errors)
	*c = Counters{Errors: c.Errors}
}

// Window is what happened during one span of time: counters and latencies.
// Latency is measured from each event's intended start (with --rate, queueing
// included); Service from its actual start. Without a rate they are the same and
// Service is left empty (HasService false).
type Window struct {
	Counters
	Latency    Latency
	Service    Latency
	HasService bool
	// Kinds holds one entry per kind of event for multi-kind workloads (TPC-C's
	// transactions); nil otherwise.
	Kinds []Kind
}

// Kind is what the events of one kind did within a window.
type Kind struct {
	Events, Rollbacks int64
	// Retries and Retried are this kind's as Counters holds them (retries
	// in all, events retried at least once).
	Retries, Retried int64
	// Errors counts ignored errors of this kind's events by code; nil until the first.
	Errors  map[string]int64
	Latency Latency // from the intended start, as Window.Latency
}

// Shape says which histograms a window keeps.
type Shape struct {
	// WithService keeps a service-time histogram apart from latency (needed with --rate).
	WithService bool
	// Kinds is the number of event kinds; 0 or 1 keeps no per-kind figures.
	Kinds int
}

// NewWindow returns an empty window of the given shape.
func NewWindow(shape Shape) *Window {
	w := &Window{Latency: newLatency(), HasService: shape.WithService}
	if shape.WithService {
		w.Service = newLatency()
	}
	if shape.Kinds > 1 {
		w.Kinds = make([]Kind, shape.Kinds)
		for i := range w.Kinds {
			w.Kinds[i].Latency = newLatency()
		}
	}
	return w
}

// Merge adds o into w.
func (w *Window) Merge(o *Window) {
	w.Counters.Add(&o.Counters)
	w.Latency.Merge(&o.Latency)
	if w.HasService && o.HasService {
		w.Service.Merge(&o.Service)
	}
	for i := range w.Kinds {
		if i >= len(o.Kinds) {
			break
		}
		to, from := &w.Kinds[i], &o.Kinds[i]
		to.Events += from.Events
		to.Rollbacks += from.Rollbacks
		to.Retries += from.Retries
		to.Retried += from.Retried
		to.Latency.Merge(&from.Latency)
		to.Errors = addErrors(to.Errors, from.Errors)
	}
}

// addErrors adds the counts of from into to, allocating to when needed.
func addErrors(to, from map[string]int64) map[string]int64 {
	for code, n := range from {
		if to == nil {
			to = make(map[string]int64, len(from))
		}
		to[code] += n
	}
	return to
}

// ServiceLatency returns the service-time latency: Service when kept separately,
// otherwise Latency (they are equal without a rate).
func (w *Window) ServiceLatency() *Latency {
	if w.HasService {
		return &w.Service
	}
	return &w.Latency
}

// Reset empties w for reuse.
func (w *Window) Reset() {
	w.Counters.reset()
	w.Latency.reset()
	if w.HasService {
		w.Service.reset()
	}
	for i := range w.Kinds {
		k := &w.Kinds[i]
		clear(k.Errors)
		k.Events, k.Rollbacks, k.Retries, k.Retried = 0, 0, 0, 0
		k.Latency.reset()
	}
}

// ThreadTotals is one worker's share of a phase, for the fairness figures.
type ThreadTotals struct {
	Events int64
	Busy   time.Duration
}

// Fairness returns the mean and population standard deviation of events and busy
// seconds per thread.
func Fairness(t []ThreadTotals) (eventsAvg, eventsStd, busyAvg, busyStd float64) {
	if len(t) == 0 {
		return
	}
	n := float64(len(t))
	for _, x := range t {
		eventsAvg += float64(x.Events)
		busyAvg += x.Busy.Seconds()
	}
	eventsAvg /= n
	busyAvg /= n
	for _, x := range t {
		de := float64(x.Events) - eventsAvg
		db := x.Busy.Seconds() - busyAvg
		eventsStd += de * de
		busyStd += db * db
	}
	return eventsAvg, math.Sqrt(eventsStd / n), busyAvg, math.Sqrt(busyStd / n)
}
