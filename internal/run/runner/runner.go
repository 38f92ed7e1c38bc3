// Package runner drives a workload: one goroutine and one connection per thread
// (opened at a bounded parallelism and rate, checked beforehand by Preflight
// against the server's and the process's limits), a warm-up phase measured
// apart, a measured phase bounded by --time and/or --events, an optional
// open-loop --rate schedule, the error policy with reconnects, and a reporter
// that sweeps the workers' recorders often and closes an interval at each tick.
package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/base/gcballast"
	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/netconn"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/eventlog"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Config is the validated run configuration.
type Config struct {
	Threads  int
	Duration time.Duration // --time; 0 = no time limit (then Events must be set)
	Events   int64         // --events; 0 = no event limit
	// EventsPerThread (--events-per-thread, pgbench's -t) stops each
	// thread after this many events of the measured phase (counted as they
	// start, failed ones included); 0 = no such limit. Not with Events.
	EventsPerThread int64
	Warmup          time.Duration // --warmup-time, measured apart and excluded from Totals
	Rate            float64       // --rate: events/s over all threads; 0 = closed loop
	// LatencyLimit (--latency-limit, pgbench's -L) counts the events whose
	// latency from their intended start exceeds it as late, and with --rate
	// skips, uncounted as events, those already later than it when their
	// turn to start comes; 0 = none.
	LatencyLimit   time.Duration
	ReportInterval time.Duration // --report-interval; 0 = no interval lines
	// SeriesInterval is the length of the intervals kept in the result when no
	// report interval is asked for (default 1s).
	SeriesInterval time.Duration
	Percentiles    []float64 // as the user wrote them: 50, 95, 99.9
	Ignore         driver.ErrorPolicy
	// ConnectParallel bounds how many connections are opened at once (default 16).
	ConnectParallel int
	// ConnectRate bounds how many connections are opened per second (0 = no
	// bound), so that thousands of threads do not storm the server's listener.
	// Connected workers wait until every thread is connected: the warm-up and
	// the measured phase start with all threads running.
	ConnectRate float64
	// ReconnectTimeout bounds how long a worker tries to replace a lost
	// connection before the run fails (--reconnect-timeout, default 30s): a
	// server that died must fail the run, not leave it counting nothing
	// until --time ends. A thread still without a connection when the
	// measured phase ends fails the run too (result.JudgeOutages). It is
	// also the stall limit until the first event completes (StallLimit),
	// and without --time a stall longer than it fails the run.
	ReconnectTimeout time.Duration
	// IntervalHistograms keeps each interval's latency histogram in its
	// result.Interval (Histogram), so that the intervals of coordinated clients
	// merge with exact percentiles. It costs one encoded histogram (a few KB)
	// per interval in the result; nothing on the per-event path.
	IntervalHistograms bool
	// Checkpoints are --report-checkpoints: the moments, since the start of
	// the measured phase and in increasing order (ParseCheckpoints), at which
	// a summary of the measured phase so far is reported (cumulative, unlike
	// sysbench's) and kept in Outcome.Checkpoints.
	Checkpoints []time.Duration
	// Drain is --forced-shutdown: what becomes of the events in flight when
	// --time ends (the zero Drain abandons them, uncounted).
	Drain Drain
	// ConnectPerEvent (--connect-per-event, pgbench's -C) opens a new
	// connection for every event and closes it after: the event's latency
	// and the throughput include connecting. The threads still connect
	// once before the start (the server must take them all), and close
	// that connection when they begin.
	ConnectPerEvent bool
	// Jobs (--jobs, pgbench's -j) splits the threads into this many groups
	// of consecutive threads whose connections wait for their replies in one
	// poll, on one OS thread at a time, as a pgbench thread serves its
	// clients: when there are many connections per CPU, one wake-up serves
	// several replies. 0, or at least Threads, is one OS thread per
	// connection, and so is the embedded SQLite. Not with ConnectPerEvent.
	Jobs int
}

// Validate checks the configuration and says what to change.
func (c *Config) Validate() error {
	switch {
	case c.Threads < 1:
		return fmt.Errorf("--threads must be at least 1, got %d", c.Threads)
	case c.Duration < 0:
		return fmt.Errorf("--time must not be negative")
	case c.Events < 0:
		return fmt.Errorf("--events must not be negative")
	case c.EventsPerThread < 0:
		return fmt.Errorf("--events-per-thread must not be negative")
	case c.Events > 0 && c.EventsPerThread > 0:
		return fmt.Errorf("--events and --events-per-thread both limit the run: give one of them")
	case c.Duration == 0 && c.Events == 0 && c.EventsPerThread == 0:
		return fmt.Errorf("--time=0 and --events=0 would run forever: set one of them (or --events-per-thread)")
	case c.Warmup < 0:
		return fmt.Errorf("--warmup-time must not be negative")
	case c.Rate < 0:
		return fmt.Errorf("--rate must not be negative")
	case c.ReportInterval < 0:
		return fmt.Errorf("--report-interval must not be negative")
	case c.Jobs < 0:
		return fmt.Errorf("--jobs must not be negative, got %d", c.Jobs)
	case c.Jobs > 0 && c.ConnectPerEvent:
		return fmt.Errorf("--jobs and --connect-per-event do not go together: the connection each event opens waits for its replies alone; drop --jobs")
	case c.ConnectParallel < 0:
		return fmt.Errorf("the connection parallelism must not be negative, got %d", c.ConnectParallel)
	case c.ReconnectTimeout < 0:
		return fmt.Errorf("--reconnect-timeout must not be negative, got %s", c.ReconnectTimeout)
	case c.ConnectRate < 0 || math.IsNaN(c.ConnectRate) || math.IsInf(c.ConnectRate, 0):
		return fmt.Errorf("the connection rate must be a positive number of connections per second (0 = no bound), got %v", c.ConnectRate)
	}
	if err := checkpointsPast(c.Checkpoints, c.Duration); err != nil {
		return err
	}
	for _, p := range c.Percentiles {
		if !(p > 0 && p <= 100) {
			return fmt.Errorf("--percentile values must be in (0,100], got %v", p)
		}
	}
	return nil
}

// DefaultReconnectTimeout is Config.ReconnectTimeout when none is given.
const DefaultReconnectTimeout = 30 * time.Second

// Deps are the parts a run works with.
type Deps struct {
	Driver   driver.Driver
	Workload workload.Workload
	Rand     *randgen.Factory
	// OnInterval, when set, is called from the reporter goroutine after each
	// interval (warm-up ones included, marked).
	OnInterval func(result.Interval)
	// OnIntervalHistogram, when set, is called from the reporter goroutine
	// right after OnInterval, for the same intervals, with the interval's
	// latency from the intended start (histogram in µs, exact count, sum,
	// minimum and maximum). lat belongs to the reporter and is reset after the
	// call: read it, never change or keep it. It feeds live histograms
	// (livemetrics.Exporter.ObserveInterval) at no cost per event.
	OnIntervalHistogram func(iv result.Interval, lat *metrics.Latency)
	// OnIntervalKinds, when set, is called right after OnIntervalHistogram,
	// for the same intervals of a multi-kind workload (workload.Kinded), with
	// the interval's figures per kind (Result.Kinds order; latency from the
	// intended start). kinds belong to the reporter and are reset after the
	// call: read them, never change or keep them. It feeds go-tpc's
	// per-transaction interval lines (gotpcout).
	OnIntervalKinds func(iv result.Interval, kinds []metrics.Kind)
	// OnMeasure, when set, is called once when the measured phase begins (after
	// the warm-up), from the goroutine that keeps time; it should return quickly.
	OnMeasure func()
	// OnCheckpoint, when set, is called from the reporter goroutine at each
	// --report-checkpoints moment reached, after the interval ending then.
	OnCheckpoint func(result.Checkpoint)
	// Progress, when set, shows the connections being opened while they are
	// ("opening connections: 128/256 connections (50.0%), 25.6
	// connections/s, ETA 5.0s"), and a line saying how long it took when that
	// was long enough for a progress line to be drawn.
	Progress *progress.Display
	// EventLog, when set, gets every event of the measured phase from the
	// worker that ran it (--event-log; each worker logs through its own
	// eventlog.Client). The caller closes it after Run returns.
	EventLog *eventlog.Log
}

// Outcome is what a run measured and how it ended. It is complete enough to be
// written as a result even when the run failed or was interrupted.
type Outcome struct {
	Status result.Status
	Err    error
	Start  time.Time // start of the measured phase
	End    time.Time // end of the measured phase
	// Connect is how long opening every thread's connection took (before the
	// warm-up; not part of any phase).
	Connect time.Duration
	// MaxLag is, with --rate, the longest an event of the measured phase
	// started after its intended start (pgbench's "max" schedule lag).
	MaxLag    time.Duration
	Warmup    *result.Phase
	Totals    result.Phase
	Intervals []result.Interval
	// Checkpoints are the --report-checkpoints summaries the run reached.
	Checkpoints []result.Checkpoint
	// Histograms of the measured phase, for callers that keep them.
	Latency, Service *metrics.Latency
	// Kinds names the event kinds of a multi-kind workload, in the order of
	// Phase.Kinds and Interval.KindEvents.
	Kinds []string
	// Outages are the spans during which threads had no connection (warm-up
	// included), judged by result.JudgeOutages: Status is failed when a
	// thread had none at the end of the measured phase or the server was
	// unreachable for more than result.OutageLimit of it.
	Outages []result.Outage
	// Grace is how long past --time the measured phase ran while the events
	// in flight at --time finished (Config.Drain.Wait): to the end of the
	// last one, or to the limit when the shutdown was forced.
	Grace time.Duration
	// Forced is set when events were still running at --time plus
	// Config.Drain.Limit: they were cancelled, uncounted (Unfinished of
	// them), and Status is failed; the figures cover the measured phase up
	// to then.
	Forced     bool
	Unfinished int
}

// Run executes the workload and returns what it measured. Cancelling ctx
// interrupts the run: in-flight calls are abandoned and the outcome is marked
// interrupted. A fatal database error stops every worker and marks it failed.
// At --time no event starts; the events in flight are abandoned, uncounted,
// or with Config.Drain waited for and counted (Outcome.Grace, Forced).
func Run(ctx context.Context, cfg Config, deps Deps) *Outcome {
	if cfg.SeriesInterval <= 0 {
		cfg.SeriesInterval = time.Second
	}
	if cfg.ConnectParallel <= 0 {
		cfg.ConnectParallel = 16
	}
	if cfg.ReconnectTimeout <= 0 {
		cfg.ReconnectTimeout = DefaultReconnectTimeout
	}
	shape := metrics.Shape{WithService: cfg.Rate > 0}
	var kinds []string
	if k, ok := deps.Workload.(workload.Kinded); ok && len(k.Kinds()) > 1 {
		kinds = k.Kinds()
		shape.Kinds = len(kinds)
	}
	r := &run{cfg: cfg, deps: deps, kinds: kinds, col: metrics.NewCollector(cfg.Threads, shape)}
	return r.execute(ctx)
}

type run struct {
	cfg Config
	// groups are the poll groups of Config.Jobs, one entry per thread
	// (consecutive threads share one), when the workers' connections hold
	// their Ps; nil otherwise.
	groups []*netconn.Group
	deps   Deps
	kinds  []string // names of the event kinds of a multi-kind workload
	col    *metrics.Collector

	warmEnd time.Time
	end     time.Time // zero without --time
	// hard is when the calls are cancelled (hardEnd): --time, or later with
	// --forced-shutdown; zero when nothing but Ctrl-C ends them.
	hard time.Time
	// stopped is when the last worker returned (the end of the last event).
	stopped  time.Time
	started  atomic.Int64
	fatalMu  sync.Mutex
	fatalErr error
	cancel   context.CancelFunc
	outages  outages
	// workers are the threads, for the reporter's open-loop figures.
	workers []*worker
	// t0 is the start of the run (warm-up included) and of every thread's
	// --rate schedule.
	t0 time.Time
	// p99 is the 99th percentile of the events' service time so far (ns),
	// published by the reporter at each interval for the stall limit.
	p99 atomic.Int64
	// stallSig tells the threads of a stall under way (worker.answer).
	stallSig stallSignal
}

func (r *run) fail(err error) {
	r.fatalMu.Lock()
	if r.fatalErr == nil {
		r.fatalErr = err
	}
	r.fatalMu.Unlock()
	r.cancel()
}

func (r *run) execute(parent context.Context) *Outcome {
	out := &Outcome{Status: result.StatusComplete}
	spare, restore := raiseProcs(r.cfg.Threads)
	defer restore()
	// The workers allocate little per query but the live heap is small too:
	// without a ballast the collector would run every few megabytes, several
	// times a second, on the CPUs the server needs.
	defer gcballast.Hold()()
	// Every worker has a P of its own (or every group of workers, with
	// Config.Jobs): its connection may wait for replies without giving it
	// up (netconn.Hold).
	procs := r.cfg.Threads
	if jobs := r.jobs(); jobs > 0 {
		procs = jobs
	}
	hold := procs <= spare
	if hold {
		defer netconn.Hold(r.cfg.Threads)()
		for _, n := range workload.Deal(r.cfg.Threads, r.jobs()) {
			g, err := netconn.NewGroup()
			if err != nil {
				out.Status, out.Err = result.StatusFailed, fmt.Errorf("--jobs: %w", err)
				out.Start, out.End = time.Now(), time.Now()
				return out
			}
			defer g.Close()
			for range n {
				r.groups = append(r.groups, g)
			}
		}
	}
	connStart := time.Now()
	workers, err := r.connectAll(parent)
	out.Connect = time.Since(connStart)
	// Every connection took a slot: none is left unused.
	if hold && netconn.Unused() == 0 {
		// The workers keep their Ps while they wait, so the spare Ps only
		// cost: every time a worker passes through the scheduler (its
		// yield, or the runtime's preemption), the runtime wakes an idle
		// OS thread to look for work for a spare P, which finds none and
		// sleeps again — two futex calls and context switches. With one
		// P per worker there is none to wake. The reporter, the stall
		// watcher and the collector run when a worker yields (every
		// yieldEvery). Measured on oltp_update_index over MariaDB's
		// socket, 4 threads (strace -c -f): futex calls 0.28 → 0.03 per
		// query, preemption signals (tgkill) 0.10 → 0.03, voluntary
		// context switches 1.21 → 1.03-1.09 per query (sysbench's: 1.00).
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	if err != nil {
		out.Status, out.Err = result.StatusFailed, err
		if parent.Err() != nil {
			out.Status = result.StatusInterrupted
		}
		out.Start, out.End = time.Now(), time.Now()
		return out
	}

	t0 := time.Now()
	r.t0, r.workers = t0, workers
	r.warmEnd = t0.Add(r.cfg.Warmup)
	if r.deps.EventLog != nil {
		r.deps.EventLog.Begin(r.warmEnd)
	}
	if st, ok := r.deps.Workload.(workload.StatementTimer); ok {
		st.MeasureFrom(r.warmEnd)
	}
	runCtx, cancel := context.WithCancel(parent)
	r.cancel = cancel
	callCtx := runCtx
	if r.cfg.Duration > 0 {
		r.end = r.warmEnd.Add(r.cfg.Duration)
	}
	if r.hard = r.hardEnd(); !r.hard.IsZero() {
		var cancelDeadline context.CancelFunc
		callCtx, cancelDeadline = context.WithDeadline(runCtx, r.hard)
		defer cancelDeadline()
	}
	defer cancel()

	if r.cfg.Warmup <= 0 && r.deps.OnMeasure != nil {
		r.deps.OnMeasure()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.loop(callCtx, r)
		}(w)
	}
	go func() {
		wg.Wait()
		r.stopped = r.stopTime(workers) // read by the reporter after done closes
		close(done)
	}()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		r.watchStalls(callCtx)
	}()

	rep := newReporter(r, t0)
	rep.loop(done)

	cancel() // ends the stall watcher when the workers ended before --time (--events)
	<-watched
	closeAll(workers, r.cfg.ConnectParallel)

	rep.fill(out)
	for _, w := range workers {
		out.MaxLag = max(out.MaxLag, w.maxLag)
	}
	r.endStall(out.End)
	out.Outages = r.outages.finish(out.End)
	result.MarkStalls(out.Intervals, t0, out.Outages)
	unfinished := 0
	if r.cfg.Drain.Wait && !r.end.IsZero() {
		out.Grace = max(out.End.Sub(r.end), 0)
		for _, w := range workers {
			if w.cut {
				unfinished++
			}
		}
	}
	switch {
	case r.fatalErr != nil:
		out.Status, out.Err = result.StatusFailed, r.fatalErr
	case parent.Err() != nil:
		out.Status, out.Err = result.StatusInterrupted, errors.New("interrupted")
	case unfinished > 0: // only the deadline cut them
		out.Forced, out.Unfinished = true, unfinished
		out.Status, out.Err = result.StatusFailed, forcedError(unfinished, r.cfg.Drain.Limit)
	default:
		// A server that went away and stayed away (or long enough) leaves
		// figures that do not measure it: the run fails, its figures kept.
		if failure, _ := result.JudgeOutages(r.cfg.Threads, out.Start, out.End, out.Outages); failure != "" {
			out.Status, out.Err = result.StatusFailed, errors.New(failure)
		}
	}
	return out
}

// connectAll opens one connection and one workload worker per thread, at most
// ConnectParallel at a time and, with a ConnectRate, no faster than that. It
// returns when every thread is connected (the start barrier) or, after the first
// failure, when the attempts under way have ended; no new one is started then.
func (r *run) connectAll(ctx context.Context) ([]*worker, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if th, ok := r.deps.Workload.(workload.Threaded); ok {
		th.SetRun(workload.RunInfo{Threads: r.cfg.Threads, Seed: r.deps.Rand.Config().Seed, Describe: r.deps.Driver.Describe})
	}
	workers := make([]*worker, r.cfg.Threads)
	errs := make([]error, r.cfg.Threads)
	sem := make(chan struct{}, r.cfg.ConnectParallel)
	var (
		wg     sync.WaitGroup
		failed atomic.Bool
	)
	start := time.Now()
	opened := progress.NewCounter(int64(len(workers)))
	if r.deps.Progress != nil {
		label := "opening connections:"
		if r.cfg.ConnectRate > 0 {
			// The pacing alone takes this long: say so before it starts.
			if least := time.Duration(float64(len(workers)-1) / r.cfg.ConnectRate * float64(time.Second)); least >= time.Second {
				r.deps.Progress.Println(fmt.Sprintf("opening %d connections at %g/s (--connect-rate): at least %s", len(workers), r.cfg.ConnectRate, progress.Duration(least)))
			}
		}
		drew := atomic.Bool{}
		stopProgress := r.deps.Progress.Start(ctx, func() string {
			drew.Store(true)
			return opened.Line(label, progress.Connections)
		})
		defer func() {
			stopProgress()
			if drew.Load() {
				done, _, took := opened.Snapshot()
				r.deps.Progress.Println(fmt.Sprintf("opened %d of %d connections in %s", done, len(workers), progress.Duration(took)))
			}
		}()
	}
	launched := 0
	for i := range workers {
		if r.cfg.ConnectRate > 0 {
			at := start.Add(time.Duration(float64(i) / r.cfg.ConnectRate * float64(time.Second)))
			if !sleepUntil(ctx, at) {
				break
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || failed.Load() {
			break
		}
		launched++
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			w := &worker{id: i, rec: r.col.Recorder(i), rng: r.deps.Rand.Source(uint64(i))}
			if r.groups != nil {
				w.member = r.groups[i].Member()
			}
			if r.deps.EventLog != nil {
				w.log = r.deps.EventLog.Client(i)
			}
			if err := w.open(ctx, r.deps); err != nil {
				if !failed.Swap(true) || ctx.Err() == nil {
					errs[i] = fmt.Errorf("thread %d: %w", i, err)
				}
				stop() // abandon the attempts under way: the run cannot start
				return
			}
			workers[i] = w
			opened.Add(1)
		}(i)
	}
	wg.Wait()
	var first error
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
			if first == nil {
				first = err
			}
		}
	}
	if first == nil && launched < len(workers) {
		first = fmt.Errorf("connecting thread %d of %d: %w", launched+1, len(workers), context.Cause(ctx))
	}
	if first == nil {
		return workers, nil
	}
	closeAll(workers, r.cfg.ConnectParallel)
	if code := r.deps.Driver.Describe(first).Code; code == "1040" || code == "53300" {
		first = fmt.Errorf("%w: the server refuses more connections; raise its max_connections or run fewer threads", first)
	}
	if n > 1 {
		return nil, fmt.Errorf("%w (and %d more of %d threads failed)", first, n-1, len(workers))
	}
	return nil, first
}

// sleepUntil waits until t or until ctx ends, and reports whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// closeAll closes the workers' connections (nil entries skipped), parallel at
// most at a time: closing thousands one by one would delay the end of a run.
func closeAll(workers []*worker, parallel int) {
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for _, w := range workers {
		if w == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			w.close()
		}()
	}
	wg.Wait()
}

// jobs is how many poll groups the threads' connections share (Config.Jobs):
// 0 when each waits alone (and on the embedded SQLite).
func (r *run) jobs() int {
	// The embedded SQLite has no connection to wait for: its threads only
	// compute, and a group would only serialise them.
	if r.cfg.Jobs <= 0 || r.cfg.Jobs >= r.cfg.Threads || r.deps.Driver.Kind() == driver.KindSQLite {
		return 0
	}
	return r.cfg.Jobs
}

// yieldEvery is how often a worker passes through the scheduler (see loop): well
// under the runtime's 10 ms preemption threshold, yet rare enough to cost nothing.
const yieldEvery = 5 * time.Millisecond

// maxProcs bounds the GOMAXPROCS a run asks for.
const maxProcs = 256

// raiseProcs gives every worker a P of its own, so that a worker returning from a
// blocking read never waits for another to give one up, and returns a function
// that restores the previous setting, with how many Ps there are beyond
// NumCPU (what the workers may keep while they wait). The workers spend their time blocked in the
// kernel, so more Ps than CPUs costs nothing but lets the kernel, not the Go
// scheduler, decide who runs — as it does for sysbench's threads.
func raiseProcs(threads int) (spare int, restore func()) {
	want := min(threads+runtime.NumCPU(), maxProcs)
	prev := runtime.GOMAXPROCS(0)
	if want <= prev {
		return prev - runtime.NumCPU(), func() {}
	}
	runtime.GOMAXPROCS(want)
	return want - runtime.NumCPU(), func() { runtime.GOMAXPROCS(prev) }
}

// worker is one thread: its connection, its workload state and its recorder.
type worker struct {
	id     int
	conn   driver.Conn
	wl     workload.Worker
	rec    *metrics.Recorder
	rng    *randgen.Source
	done   metrics.Event   // the last completed event, reused to keep it off the heap
	counts workload.Counts // the queries of the event in progress, reused likewise
	// waiter reports the deliberate sleep inside the last event (TPC-C --wait).
	waiter workload.Waiter
	// retrier is set when the workload retries serialization failures and
	// deadlocks itself: one that still ends an event is counted, not fatal.
	retrier bool
	// callMark is when the thread's current wait for the server began (Unix
	// ns): the start of its event, or, for a worker that marks it itself
	// (marks: workload.CallMarker), the end of its sleep. The thread waits
	// for the server while callMark is not earlier than answered, when it
	// last had an answer (the end of an event, an error the server
	// returned; in a closed loop the next event starts at that instant);
	// callMark is 0 while it reconnects and once it stopped. The stall
	// detector (readCalls) and the --rate queue (openLoop) read them: two
	// stores per event on the thread's own words, no lock.
	callMark, answered atomic.Int64
	marks              bool
	// begun counts the events of the --rate schedule this thread has started.
	begun atomic.Int64
	// cut is set when the run ended (the hard deadline, an interrupt, a
	// failure) during an event of this thread's, which was not counted.
	cut bool
	// lastFin is when the worker's last counted event ended.
	lastFin time.Time
	// maxLag is the longest a counted event of the measured phase started
	// after its intended start (--rate).
	maxLag time.Duration
	// log is the worker's part of the event log (Deps.EventLog), or nil.
	log *eventlog.Client
	// member is the worker's place in its poll group (Config.Jobs), or nil.
	member *netconn.Member
	// own counts the events of the measured phase the worker started
	// (Config.EventsPerThread).
	own int64
}

func (w *worker) open(ctx context.Context, deps Deps) error {
	// The connection waits for its replies in the worker's group, if it has one.
	conn, err := deps.Driver.Connect(netconn.WithMember(ctx, w.member), w.id)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	wl, err := deps.Workload.NewWorker(ctx, conn, deps.Driver.Dialect(), w.rng)
	if err != nil {
		conn.Close()
		return fmt.Errorf("prepare statements: %w", err)
	}
	w.conn, w.wl = conn, wl
	w.waiter, _ = wl.(workload.Waiter)
	if rt, ok := deps.Workload.(workload.Retrier); ok {
		w.retrier = rt.RetriesFailures()
	}
	w.marks = false
	if cm, ok := wl.(workload.CallMarker); ok {
		w.marks = cm.MarkCalls(&w.callMark)
	}
	return nil
}

func (w *worker) close() {
	if w.wl != nil {
		w.wl.Close()
		w.wl = nil
	}
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

// reconnect replaces a lost connection, backing off from 10 ms to 1 s, until it
// succeeds or ctx ends; when that takes longer than Config.ReconnectTimeout the
// run fails. The time without a connection is recorded as an outage; a thread
// that returns false has none.
func (w *worker) reconnect(ctx context.Context, r *run) bool {
	w.callMark.Store(0)
	if w.member.Leave() { // its back-off must not keep the group from polling
		defer w.member.Enter()
	}
	w.close()
	lost := time.Now()
	r.outages.lost(w.id, lost)
	backoff := 10 * time.Millisecond
	giveUp := lost.Add(r.cfg.ReconnectTimeout)
	for {
		err := w.open(ctx, r.deps)
		if err == nil {
			r.outages.back(w.id, time.Now())
			w.rec.Reconnect()
			return true
		}
		if ctx.Err() == nil && time.Now().After(giveUp) {
			r.fail(fmt.Errorf("thread %d lost its connection and could not reconnect within %s (--reconnect-timeout): %w", w.id, r.cfg.ReconnectTimeout, err))
			return false
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		if backoff < time.Second {
			backoff *= 2
		}
	}
}

// stopTime is when the measured phase stopped, called once every worker
// returned: now, except past --time, where it is --time or the end of the
// last event counted after it (--forced-shutdown's grace), so that a thread
// that woke late with nothing in flight (a --rate thread waiting for --time,
// on a loaded machine) does not lengthen the phase; a worker cut while in
// flight ends it now (the reporter stops it at the hard deadline).
func (r *run) stopTime(workers []*worker) time.Time {
	now := time.Now()
	if r.end.IsZero() || !now.After(r.end) {
		return now
	}
	last := r.end
	for _, w := range workers {
		if w.cut {
			return now
		}
		if w.lastFin.After(last) {
			last = w.lastFin
		}
	}
	return last
}

// connect opens the connection of an event (Config.ConnectPerEvent); one
// that fails is replaced as a lost one is (reconnect). It reports false
// when the worker must stop.
func (w *worker) connect(ctx context.Context, r *run) bool {
	if err := w.open(ctx, r.deps); err != nil {
		if ctx.Err() != nil {
			return false
		}
		return w.reconnect(ctx, r)
	}
	return true
}

// disconnect closes the connection of an event that took connecting to
// open (Config.ConnectPerEvent) and records it with the time spent opening
// and closing it.
func (w *worker) disconnect(connecting time.Duration) {
	t := time.Now()
	w.close()
	w.rec.Connected(connecting + time.Since(t))
}

// loop runs events until the run ends. ctx carries the hard deadline.
func (w *worker) loop(ctx context.Context, r *run) {
	defer w.callMark.Store(0) // waiting for nothing any more
	if w.member != nil {
		// Its deliberate sleeps leave the group (workload.Sleeper).
		ctx = workload.WithShared(ctx, w.member)
		w.member.Enter()
		defer w.member.Leave()
	}
	if r.cfg.ConnectPerEvent {
		w.close() // each event opens its own
	}
	lastYield := time.Now()
	now := lastYield
	var (
		sched *schedule // the --rate schedule; nil in a closed loop
		// sleeper waits for the schedule's next event: precisely at the
		// end, and out of the thread's poll group (workload.Sleeper).
		sleeper workload.Sleeper
	)
	if r.cfg.Rate > 0 {
		sched = newSchedule(r, w.id)
		defer sleeper.Stop()
	}
	for {
		if ctx.Err() != nil || (!r.end.IsZero() && !now.Before(r.end)) {
			return
		}
		if r.cfg.Events > 0 && !now.Before(r.warmEnd) && r.started.Add(1) > r.cfg.Events {
			return
		}
		if r.cfg.EventsPerThread > 0 && !now.Before(r.warmEnd) {
			if w.own >= r.cfg.EventsPerThread {
				return
			}
			w.own++
		}
		// In a closed loop the event is due, and starts, now: the end of the
		// previous one (a clock read per event instead of three; time.Now
		// is two vDSO calls, ~2 % of the client's CPU on point selects).
		intended, start := now, now
		if sched != nil {
			intended = sched.advance()
			// An event due after --time never starts: the thread waits for
			// --time (the measured phase lasts until then) and stops, even
			// when --forced-shutdown keeps the calls going past it.
			late := !r.end.IsZero() && !intended.Before(r.end)
			until := intended
			if late {
				until = r.end
			}
			if sleeper.Until(ctx, until) != nil {
				return
			}
			if late {
				return
			}
			w.begun.Add(1)
			start = time.Time{} // after the wait: read afresh
			if lim := r.cfg.LatencyLimit; lim > 0 {
				if now = time.Now(); now.Sub(intended) > lim {
					w.rec.Skip() // already late: pgbench -R -L skips it
					if w.log != nil && !intended.Before(r.warmEnd) {
						w.log.Skipped(0, now, now.Sub(intended))
					}
					continue
				}
			}
		}
		var connecting time.Duration
		if r.cfg.ConnectPerEvent {
			// The event's time includes its connection, not the closing of
			// the one before (as pgbench -C measures).
			start = time.Now()
			if sched == nil {
				intended = start
			}
			if !w.connect(ctx, r) {
				return
			}
			connecting = time.Since(start)
		}
		ok := w.event(ctx, r, intended, start)
		if r.cfg.ConnectPerEvent {
			w.disconnect(connecting)
		}
		if !ok {
			w.cut = w.cut || ctx.Err() != nil
			return
		}
		now = w.lastFin
		// A goroutine that only ever blocks in system calls never passes through
		// the scheduler, so after 10 ms the runtime takes it for a long-running one
		// and hands its P to another thread at the next syscall; a yield every few
		// milliseconds avoids those hand-offs (measured: up to 2x CPU per query).
		// A connection that keeps its P while it waits (netconn.Hold) is not in
		// a system call for the runtime, but it is preempted every 10 ms (a
		// signal, an interrupted poll and its retry); with no spare P (see
		// execute) its yield wakes no other thread and costs less than that.
		if now.Sub(lastYield) > yieldEvery {
			runtime.Gosched()
			now = time.Now() // other goroutines may have run
			lastYield = now
		}
	}
}

// event runs one event to completion, re-running it after an ignored error or a
// reconnect; it returns false when the worker must stop. start is when the
// event starts, zero to read the clock; a re-run reads it afresh.
func (w *worker) event(ctx context.Context, r *run, intended, start time.Time) bool {
	for ; ; start = (time.Time{}) {
		c := &w.counts // a worker field: a local passed to Event would escape, once per event
		*c = workload.Counts{}
		if start.IsZero() {
			start = time.Now()
		}
		if !w.marks {
			w.callMark.Store(start.UnixNano())
		}
		err := w.wl.Event(ctx, c)
		if err == nil {
			fin := time.Now()
			w.answer(r, fin.UnixNano())
			if !r.hard.IsZero() && fin.After(r.hard) {
				// Ended past the hard deadline (a call that did not notice it):
				// not counted, as the measured phase ends there; counted, it
				// would make a last interval of a few events over microseconds.
				w.cut = true
				return false
			}
			var slept time.Duration
			if w.waiter != nil {
				slept = w.waiter.Waited()
			}
			w.lastFin = fin
			if lag := start.Sub(intended); lag > w.maxLag && !intended.Before(r.warmEnd) {
				w.maxLag = lag
			}
			w.done = metrics.Event{Latency: fin.Sub(intended) - slept, Service: fin.Sub(start) - slept,
				Reads: c.Reads, Writes: c.Writes, Others: c.Others, Kind: c.Kind, Rollback: c.Rollback}
			w.rec.Event(&w.done)
			if w.log != nil && !intended.Before(r.warmEnd) {
				w.log.Done(c.Kind, fin, w.done.Latency, start.Sub(intended), c.Retries)
			}
			if c.Retries > 0 {
				w.rec.Retries(c.Kind, c.Retries)
			}
			if lim := r.cfg.LatencyLimit; lim > 0 && w.done.Latency > lim {
				w.rec.Late()
			}
			return true
		}
		if ctx.Err() != nil {
			return false // deadline or interrupt: the unfinished event is not counted
		}
		w.rec.Queries(c.Reads, c.Writes, c.Others)
		info := r.deps.Driver.Describe(err)
		if !info.ConnectionLost {
			w.answer(r, time.Now().UnixNano()) // the server answered, with an error
		}
		switch {
		case info.ConnectionLost:
			if !w.reconnect(ctx, r) {
				return false
			}
		case r.cfg.Ignore.Ignores(info.Code) || (info.Retryable && w.retrier):
			code := info.Code
			if code == "" {
				code = "client"
			}
			w.rec.Error(c.Kind, code)
			if w.log != nil && !intended.Before(r.warmEnd) {
				w.log.Failed(c.Kind, code, time.Now(), start.Sub(intended), c.Retries)
			}
			if c.Retries > 0 {
				w.rec.Retries(c.Kind, c.Retries)
			}
			if rbErr := w.wl.Rollback(ctx); rbErr != nil {
				if ctx.Err() != nil {
					return false
				}
				if !r.deps.Driver.Describe(rbErr).ConnectionLost {
					r.fail(fmt.Errorf("thread %d: rollback after ignored error %s: %w", w.id, code, rbErr))
					return false
				}
				if !w.reconnect(ctx, r) {
					return false // the run ended or failed while it was without a connection
				}
			}
		default:
			r.fail(fatalError(w.id, r.deps.Driver.Kind(), info.Code, err))
			return false
		}
	}
}

func fatalError(thread int, kind, code string, err error) error {
	if code == "" {
		return fmt.Errorf("thread %d: %w", thread, err)
	}
	flag := "--mysql-ignore-errors"
	switch kind {
	case driver.KindPgSQL:
		flag = "--pgsql-ignore-errors"
	case driver.KindSQLite:
		flag = "--sqlite-ignore-errors"
	}
	return fmt.Errorf("thread %d: %w (error %s is not ignored; add it to %s to roll back and retry such events)", thread, err, code, flag)
}
