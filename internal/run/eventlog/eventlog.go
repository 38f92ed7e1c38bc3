// Package eventlog writes a run's per-event log in pgbench's -l layout
// (fairbench run --event-log, and the pgbench drop-in's -l): one line per
// event of the measured phase, or with Aggregate one line per interval, in
// files that split the clients as pgbench's -j threads split them.
//
// Every worker logs through its own Client, which formats into a buffer of
// its own; the buffer goes to the worker's file under the file's lock only
// when it fills (one lock per ~64 KB of lines) and at Close. An aggregating
// client adds its events to an interval of its own and hands the interval
// to its file once, when its first event of a later interval comes. Nothing
// is shared between workers on the per-event path.
//
// The layout, as pgbench 15 writes it (checked against its logs):
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
//
// with time the latency in µs, or "skipped", "failed", or with
// FailuresDetailed "serialization" / "deadlock"; time_epoch and time_us are
// when the event ended; schedule_lag (µs) with a --rate run; retries with
// --max-tries other than 1. Aggregated:
//
//	interval_start count sum_latency sum_latency_2 min_latency max_latency sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures
//
// where the failures are counted with FailuresDetailed only (pgbench prints
// 0 0 otherwise), and every interval from the first to the last is written,
// empty ones as zeros.
package eventlog

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/workload"
)

// Options say what to log and where.
type Options struct {
	// Path is the first file's; the others are Path.1, Path.2, ….
	Path string
	// Files is how many files the clients are split among, in contiguous
	// blocks as pgbench splits its clients among its -j threads; 0 is 1.
	Files int
	// Aggregate, when set, logs one line per interval of this length
	// (pgbench's --aggregate-interval; whole seconds) instead of one per event.
	Aggregate time.Duration
	// Sample, in (0, 1), logs that fraction of the events, chosen at random
	// (pgbench's --sampling-rate); 0 or 1 logs every one. Not with Aggregate.
	Sample float64
	// Lag adds the schedule lag column (a --rate run).
	Lag bool
	// Retries adds the retries column (--max-tries other than 1).
	Retries bool
	// FailuresDetailed writes "serialization" and "deadlock" for those
	// failures instead of "failed", and counts them in aggregated lines.
	FailuresDetailed bool
}

// Validate says what is wrong with o, in the words of fairbench's flags.
func (o Options) Validate() error {
	switch {
	case o.Path == "":
		return errors.New("--event-log: no file name given")
	case o.Files < 0 || o.Files > maxFiles:
		return fmt.Errorf("--event-log-files=%d: give 1 to %d", o.Files, maxFiles)
	case o.Aggregate < 0 || o.Aggregate%time.Second != 0:
		return fmt.Errorf("--event-log-aggregate=%v: give a whole number of seconds (0: one line per event)", o.Aggregate)
	case math.IsNaN(o.Sample) || o.Sample < 0 || o.Sample > 1:
		return fmt.Errorf("--event-log-sample=%v: give a fraction in (0, 1]", o.Sample)
	case o.Sample > 0 && o.Sample < 1 && o.Aggregate > 0:
		return errors.New("--event-log-sample with --event-log-aggregate: an aggregated log counts every event; give one of them")
	}
	return nil
}

// maxFiles bounds Files (pgbench's -j is bounded by its clients).
const maxFiles = 1 << 16

// Paths are the files o names for a run of clients: Path, Path.1, … (no
// more files than clients).
func (o Options) Paths(clients int) []string {
	n := min(max(o.Files, 1), max(clients, 1))
	paths := []string{o.Path}
	for i := 1; i < n; i++ {
		paths = append(paths, o.Path+"."+strconv.Itoa(i))
	}
	return paths
}

// Log is a run's event log being written.
type Log struct {
	opts    Options
	start   time.Time
	files   []*file
	clients []*Client
}

// file is one of the log's files with the aggregated intervals its clients
// handed over.
type file struct {
	mu  sync.Mutex
	out *outfile.File
	err error
	// intervals by index since the log's start (Aggregate).
	intervals map[int64]*interval
}

// Create checks o and creates the files for a run of clients (under
// outfile's rules: written in place of what the paths name at Close), before
// anything connects.
func Create(o Options, clients int) (*Log, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if clients < 1 {
		return nil, fmt.Errorf("event log: %d clients", clients)
	}
	l := &Log{opts: o}
	for _, p := range o.Paths(clients) {
		out, err := outfile.Create(p)
		if err != nil {
			l.Abort()
			return nil, fmt.Errorf("--event-log: %w", err)
		}
		l.files = append(l.files, &file{out: out, intervals: map[int64]*interval{}})
	}
	dealt := 0
	for i, n := range workload.Deal(clients, len(l.files)) {
		for j := 0; j < n; j++ {
			c := &Client{log: l, file: l.files[i], id: dealt + j, buf: make([]byte, 0, flushAt+256)}
			if o.Sample > 0 && o.Sample < 1 {
				c.rng = rand.New(rand.NewPCG(uint64(dealt+j), uint64(time.Now().UnixNano())))
			}
			l.clients = append(l.clients, c)
		}
		dealt += n
	}
	return l, nil
}

// Begin sets the start of the measured phase: aggregated intervals count
// from it.
func (l *Log) Begin(start time.Time) { l.start = start }

// Client is the log of worker id (0-based, as pgbench's client_id); it must
// be used by that worker only.
func (l *Log) Client(id int) *Client {
	if id < 0 || id >= len(l.clients) {
		return nil
	}
	return l.clients[id]
}

// Paths are the log's files, as given.
func (l *Log) Paths() []string {
	out := make([]string, len(l.files))
	for i, f := range l.files {
		out[i] = f.out.Name()
	}
	return out
}

// Close writes what the clients still hold and the aggregated intervals and
// makes the files; it must be called after every worker stopped. A log is
// kept however the run ended: what was measured is not thrown away.
func (l *Log) Close() error {
	var errs []error
	for _, c := range l.clients {
		c.flush()
		if c.agg != nil {
			c.file.add(c.aggIdx, c.agg)
			c.agg = nil
		}
	}
	for _, f := range l.files {
		if l.opts.Aggregate > 0 && f.err == nil {
			f.writeIntervals(l)
		}
		if f.err != nil {
			f.out.Abort()
			errs = append(errs, fmt.Errorf("event log %s: %w", f.out.Name(), f.err))
			continue
		}
		if err := f.out.Commit(); err != nil {
			errs = append(errs, fmt.Errorf("event log: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Abort removes the files created so far: for a run that measured nothing.
func (l *Log) Abort() {
	for _, f := range l.files {
		f.out.Abort()
	}
}

// flushAt is the size of a client's buffer of lines.
const flushAt = 64 << 10

// Client is one worker's part of the log.
type Client struct {
	log  *Log
	file *file
	id   int
	cnt  int64 // transaction_no of the last event
	buf  []byte
	rng  *rand.Rand // sampling, when Sample < 1
	// The interval being aggregated, by index since the log's start.
	agg    *interval
	aggIdx int64
}

// Outcomes of an event other than completion, as pgbench names them.
const (
	outcomeSkipped = "skipped"
	outcomeFailed  = "failed"
)

// Done logs a completed event of script (kind) kind that ended at end, with
// its latency (from the intended start), its lag behind its schedule and the
// retries it took.
func (c *Client) Done(kind int, end time.Time, latency, lag time.Duration, retries int64) {
	c.cnt++
	if c.log.opts.Aggregate > 0 {
		iv := c.interval(end)
		iv.cnt++
		iv.latency.add(micros(latency))
		if c.log.opts.Lag {
			iv.lag.add(micros(lag))
		}
		iv.retried(retries)
		return
	}
	if !c.sampled() {
		return
	}
	c.head()
	c.buf = strconv.AppendFloat(c.buf, micros(latency), 'f', 0, 64)
	c.tail(kind, end, lag, retries)
}

// Failed logs an event that ended at end with error code (a SQLSTATE or
// server error number) after retries retries.
func (c *Client) Failed(kind int, code string, end time.Time, lag time.Duration, retries int64) {
	c.cnt++
	class := failureOf(code)
	if c.log.opts.Aggregate > 0 {
		iv := c.interval(end)
		iv.retried(retries)
		if c.log.opts.FailuresDetailed {
			switch class {
			case failureSerialization:
				iv.serialization++
			case failureDeadlock:
				iv.deadlock++
			}
		}
		return
	}
	if !c.sampled() {
		return
	}
	word := outcomeFailed
	if c.log.opts.FailuresDetailed && class != "" {
		word = class
	}
	c.word(word, kind, end, lag, retries)
}

// Skipped logs an event of the --rate schedule skipped at at because it was
// already later than the latency limit when its turn came.
func (c *Client) Skipped(kind int, at time.Time, lag time.Duration) {
	c.cnt++
	if c.log.opts.Aggregate > 0 {
		c.interval(at).skipped++
		return
	}
	if !c.sampled() {
		return
	}
	c.word(outcomeSkipped, kind, at, lag, 0)
}

// word writes a line whose time field is a word.
func (c *Client) word(word string, kind int, at time.Time, lag time.Duration, retries int64) {
	c.head()
	c.buf = append(c.buf, word...)
	c.tail(kind, at, lag, retries)
}

// head writes the start of a line: client and event number.
func (c *Client) head() {
	c.buf = strconv.AppendInt(c.buf, int64(c.id), 10)
	c.buf = append(c.buf, ' ')
	c.buf = strconv.AppendInt(c.buf, c.cnt, 10)
	c.buf = append(c.buf, ' ')
}

// tail writes the rest of a line: script, time stamp, the optional columns.
func (c *Client) tail(kind int, at time.Time, lag time.Duration, retries int64) {
	us := at.UnixMicro()
	c.buf = append(c.buf, ' ')
	c.buf = strconv.AppendInt(c.buf, int64(kind), 10)
	c.buf = append(c.buf, ' ')
	c.buf = strconv.AppendInt(c.buf, us/1e6, 10)
	c.buf = append(c.buf, ' ')
	c.buf = strconv.AppendInt(c.buf, us%1e6, 10)
	if c.log.opts.Lag {
		c.buf = append(c.buf, ' ')
		c.buf = strconv.AppendFloat(c.buf, micros(lag), 'f', 0, 64)
	}
	if c.log.opts.Retries {
		c.buf = append(c.buf, ' ')
		c.buf = strconv.AppendInt(c.buf, retries, 10)
	}
	c.buf = append(c.buf, '\n')
	if len(c.buf) >= flushAt {
		c.flush()
	}
}

// sampled says whether this event is logged (Sample).
func (c *Client) sampled() bool { return c.rng == nil || c.rng.Float64() <= c.log.opts.Sample }

// flush hands the client's lines to its file.
func (c *Client) flush() {
	if len(c.buf) == 0 {
		return
	}
	f := c.file
	f.mu.Lock()
	if f.err == nil {
		_, f.err = f.out.Write(c.buf)
	}
	f.mu.Unlock()
	c.buf = c.buf[:0]
}

// interval is the client's interval holding at, handing the one before to
// the file when at is in a later one.
func (c *Client) interval(at time.Time) *interval {
	idx := int64(at.Sub(c.log.start) / c.log.opts.Aggregate)
	if idx < 0 {
		idx = 0
	}
	if c.agg != nil && idx != c.aggIdx {
		c.file.add(c.aggIdx, c.agg)
		c.agg = nil
	}
	if c.agg == nil {
		c.agg, c.aggIdx = &interval{}, idx
	}
	return c.agg
}

// micros is d in microseconds, as pgbench's logs count time.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Failure classes of pgbench's --failures-detailed.
const (
	failureSerialization = "serialization"
	failureDeadlock      = "deadlock"
)

// failureOf is the class of a failure with error code code: PostgreSQL's
// SQLSTATEs, and MySQL's deadlock (1213), whose SQLSTATE is 40001.
func failureOf(code string) string {
	switch code {
	case "40001":
		return failureSerialization
	case "40P01", "1213":
		return failureDeadlock
	}
	return ""
}

// interval is one aggregated interval.
type interval struct {
	cnt, skipped, retriedTx, retries int64
	serialization, deadlock          int64
	latency, lag                     simpleStats
}

func (iv *interval) retried(retries int64) {
	if retries > 0 {
		iv.retriedTx++
		iv.retries += retries
	}
}

func (iv *interval) merge(o *interval) {
	iv.cnt += o.cnt
	iv.skipped += o.skipped
	iv.retriedTx += o.retriedTx
	iv.retries += o.retries
	iv.serialization += o.serialization
	iv.deadlock += o.deadlock
	iv.latency.merge(o.latency)
	iv.lag.merge(o.lag)
}

// simpleStats are pgbench's SimpleStats: count, sum, sum of squares, min, max.
type simpleStats struct {
	n                 int64
	sum, sum2, lo, hi float64
}

func (s *simpleStats) add(v float64) {
	if s.n == 0 || v < s.lo {
		s.lo = v
	}
	if s.n == 0 || v > s.hi {
		s.hi = v
	}
	s.n++
	s.sum += v
	s.sum2 += v * v
}

func (s *simpleStats) merge(o simpleStats) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.lo < s.lo {
		s.lo = o.lo
	}
	if s.n == 0 || o.hi > s.hi {
		s.hi = o.hi
	}
	s.n += o.n
	s.sum += o.sum
	s.sum2 += o.sum2
}

// add merges a client's interval idx into the file's.
func (f *file) add(idx int64, iv *interval) {
	f.mu.Lock()
	if have := f.intervals[idx]; have != nil {
		have.merge(iv)
	} else {
		f.intervals[idx] = iv
	}
	f.mu.Unlock()
}

// writeIntervals writes the file's aggregated intervals, every one from the
// first to the last.
func (f *file) writeIntervals(l *Log) {
	idxs := make([]int64, 0, len(f.intervals))
	for i := range f.intervals {
		idxs = append(idxs, i)
	}
	if len(idxs) == 0 {
		return
	}
	slices.Sort(idxs)
	var buf []byte
	empty := &interval{}
	for i := idxs[0]; i <= idxs[len(idxs)-1]; i++ {
		iv := f.intervals[i]
		if iv == nil {
			iv = empty
		}
		start := l.start.Add(time.Duration(i) * l.opts.Aggregate).Unix()
		buf = appendInterval(buf[:0], start, iv)
		if _, err := f.out.Write(buf); err != nil {
			f.err = err
			return
		}
	}
}

// appendInterval appends one aggregated line.
func appendInterval(b []byte, start int64, iv *interval) []byte {
	b = strconv.AppendInt(b, start, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, iv.cnt, 10)
	for _, v := range []float64{iv.latency.sum, iv.latency.sum2, iv.latency.lo, iv.latency.hi, iv.lag.sum, iv.lag.sum2, iv.lag.lo, iv.lag.hi} {
		b = append(b, ' ')
		b = strconv.AppendFloat(b, v, 'f', 0, 64)
	}
	for _, v := range []int64{iv.skipped, iv.retriedTx, iv.retries, iv.serialization, iv.deadlock} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, '\n')
}
