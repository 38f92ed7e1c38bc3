package runner

import (
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
)

// reporter drains the recorders at every tick and at the end of the warm-up,
// builds the interval series and accumulates the two phases.
type reporter struct {
	r        *run
	t0       time.Time
	tick     time.Duration
	last     time.Time // end of the previous interval
	interval *metrics.Window

	warm, meas       *metrics.Window
	warmFrom, measTo time.Time
	measFrom         time.Time
	perThread        []metrics.ThreadTotals
	warmupDone       bool
	intervals        []result.Interval
	keyedPercentiles []string
	quantiles        []float64
	// scheds replay the threads' --rate schedules (nil in a closed loop),
	// to count the events due at each tick.
	scheds []*schedule
	// cps are the checkpoints not yet reported (Config.Checkpoints);
	// checkpoints the ones reported.
	cps         []time.Duration
	checkpoints []result.Checkpoint
	// seen holds the service time of every event so far, warm-up included:
	// its p99 sets the stall limit (StallLimit).
	seen metrics.Latency
}

func newReporter(r *run, t0 time.Time) *reporter {
	tick := r.cfg.ReportInterval
	if tick <= 0 {
		tick = r.cfg.SeriesInterval
	}
	rep := &reporter{
		r: r, t0: t0, tick: tick, last: t0,
		interval:  r.col.NewWindow(),
		meas:      r.col.NewWindow(),
		warmFrom:  t0,
		measFrom:  t0,
		perThread: make([]metrics.ThreadTotals, r.cfg.Threads),
		cps:       r.cfg.Checkpoints,
		seen:      metrics.Latency{Hist: metrics.NewHistogram()},
	}
	if r.cfg.Warmup > 0 {
		rep.warm = r.col.NewWindow()
		rep.measFrom = r.warmEnd
	} else {
		rep.warmupDone = true
	}
	if r.cfg.Rate > 0 {
		for i := range r.workers {
			rep.scheds = append(rep.scheds, newSchedule(r, i))
		}
	}
	for _, p := range r.cfg.Percentiles {
		rep.keyedPercentiles = append(rep.keyedPercentiles, result.PercentileKey(p))
		rep.quantiles = append(rep.quantiles, p/100)
	}
	return rep
}

// loop ticks until done is closed, then drains what is left.
func (rep *reporter) loop(done <-chan struct{}) {
	nextTick := rep.t0.Add(rep.tick)
	timer := time.NewTimer(0)
	defer timer.Stop()
	// Between ticks the workers' rings are swept often into the open interval,
	// so that a worker never finds its ring full (see metrics.SweepEvery),
	// and less often while they stay nearly empty (metrics.NextSweep).
	sweepEvery := metrics.SweepEvery
	sweep := time.NewTimer(sweepEvery)
	defer sweep.Stop()
	for {
		due := nextTick
		if !rep.warmupDone && rep.r.warmEnd.Before(due) {
			due = rep.r.warmEnd
		}
		wake := due
		cpAt, isCP := rep.nextCheckpoint()
		if isCP && !rep.r.end.IsZero() && !cpAt.Before(rep.r.end) {
			// A checkpoint at --time is the whole phase: the threads' end
			// reports it (below), with the events that ended just before it
			// and were still being recorded when its timer would fire.
			isCP = false
		}
		if isCP && cpAt.Before(wake) {
			wake = cpAt
		}
		if !rep.r.hard.IsZero() && wake.After(rep.r.hard) {
			// Nothing is counted past the hard deadline: no tick there
			// either, only the threads' stop (a thread deaf to the deadline
			// once left an empty interval at 1.5 s of a 1 s run).
			timer.Stop()
		} else {
			timer.Reset(time.Until(wake))
		}
	wait:
		for {
			select {
			case <-done:
				// The phase ends when the threads stopped, not after the
				// drain: that is the end of --forced-shutdown's grace. It
				// ends at the hard deadline at the latest: an event that
				// ended past it is not counted, and a thread deaf to the
				// deadline must not stretch the series (under load it once
				// made an empty interval at 1.29 s of a 1 s run).
				end := rep.r.stopped
				if end.Before(rep.last) {
					end = rep.last
				}
				if !rep.r.hard.IsZero() && end.After(rep.r.hard) {
					end = rep.r.hard
				}
				rep.drain(end, true)
				rep.measTo = end
				// A checkpoint the threads' end overtook (one at --time)
				// covers the whole phase.
				for at, ok := rep.nextCheckpoint(); ok && !at.After(rep.measTo); at, ok = rep.nextCheckpoint() {
					rep.checkpoint(true)
				}
				return
			case <-sweep.C:
				sweepEvery = metrics.NextSweep(sweepEvery, rep.r.col.Sweep(rep.interval))
				sweep.Reset(sweepEvery)
			case <-timer.C:
				break wait
			}
		}
		if !due.After(wake) {
			rep.drain(due, false)
			if !due.Before(nextTick) {
				nextTick = nextTick.Add(rep.tick)
			}
		}
		if isCP && !cpAt.After(wake) {
			rep.checkpoint(false)
		}
	}
}

// drain closes the interval ending at now; final is the drain after the
// threads stopped. A final interval that is a trailing sliver of the one
// before it (result.IsSliver: the moments between the last tick and the
// threads' stop) is not reported as an interval: fill folds it into the last.
func (rep *reporter) drain(now time.Time, final bool) {
	inWarmup := !rep.warmupDone
	per := rep.perThread
	if inWarmup {
		per = nil
	}
	rep.r.col.Drain(rep.interval, per) // adds to what the sweeps brought in
	defer rep.interval.Reset()
	secs := now.Sub(rep.last).Seconds()
	if !final {
		rep.r.checkStall(time.Now()) // the interval's line says whether it lies in one
	}
	if rep.interval.Events > 0 || rep.interval.Reconnects > 0 || rep.interval.ErrorCount() > 0 || secs >= rep.tick.Seconds()/2 {
		iv := rep.toInterval(rep.interval, now, secs, inWarmup)
		iv.Stall = rep.r.outages.stalledIn(rep.last, now)
		if rep.scheds != nil {
			// Counted now, not at the tick: a thread may have begun an event
			// due since.
			at := time.Now()
			if final && !rep.r.end.IsZero() && at.After(rep.r.end) {
				at = rep.r.end // nothing starts after --time
			}
			iv.OpenLoop = openLoop(at, rep.r.workers, rep.scheds)
		}
		sliver := final && len(rep.intervals) > 0 && result.IsSliver(rep.intervals[len(rep.intervals)-1], iv)
		rep.intervals = append(rep.intervals, iv)
		if (rep.r.cfg.ReportInterval > 0 || iv.Warmup) && !sliver {
			if rep.r.deps.OnInterval != nil {
				rep.r.deps.OnInterval(iv)
			}
			if rep.r.deps.OnIntervalHistogram != nil {
				rep.r.deps.OnIntervalHistogram(iv, &rep.interval.Latency)
			}
			if rep.r.deps.OnIntervalKinds != nil && len(rep.interval.Kinds) > 0 {
				rep.r.deps.OnIntervalKinds(iv, rep.interval.Kinds)
			}
		}
	}
	if s := rep.interval.ServiceLatency(); s.Count > 0 {
		rep.seen.Merge(s)
		rep.r.p99.Store(int64(rep.seen.Quantile(0.99)))
	}
	if inWarmup {
		rep.warm.Merge(rep.interval)
		if !now.Before(rep.r.warmEnd) {
			rep.warmupDone = true
			rep.measFrom = now
			if rep.r.deps.OnMeasure != nil {
				rep.r.deps.OnMeasure()
			}
		}
	} else {
		rep.meas.Merge(rep.interval)
	}
	rep.last = now
}

func (rep *reporter) toInterval(w *metrics.Window, now time.Time, secs float64, warmup bool) result.Interval {
	iv := result.Interval{
		At:        now.Sub(rep.t0).Seconds(),
		Seconds:   secs,
		Warmup:    warmup,
		Threads:   rep.r.cfg.Threads,
		Counts:    toCounters(&w.Counters),
		LatencyMs: make(map[string]float64, len(rep.quantiles)),
		MaxMs:     ms(w.Latency.Max),
	}
	if secs > 0 {
		iv.TPS = float64(w.Events) / secs
		iv.QPS = float64(iv.Counts.Queries) / secs
	}
	for i, q := range rep.quantiles {
		iv.LatencyMs[rep.keyedPercentiles[i]] = ms(w.Latency.Quantile(q))
	}
	if s := w.ServiceLatency(); s.Count > 0 && w.Latency.Count > 0 {
		// With --rate: how long the events waited past their intended start.
		iv.LagMs = max(ms(w.Latency.Mean())-ms(s.Mean()), 0)
	}
	if len(w.Kinds) > 0 {
		iv.KindEvents = make([]int64, len(w.Kinds))
		for i := range w.Kinds {
			iv.KindEvents[i] = w.Kinds[i].Events
		}
	}
	if rep.r.cfg.IntervalHistograms && w.Latency.Count > 0 {
		// Encoding cannot fail on a histogram of ours; if it did, the interval
		// would lack its histogram and merge would leave interval percentiles
		// out rather than get them wrong.
		iv.Histogram, _ = result.EncodeHistogram(w.Latency.Hist)
	}
	return iv
}

// fill writes the phases and the series into out.
func (rep *reporter) fill(out *Outcome) {
	out.Start, out.End = rep.measFrom, rep.measTo
	if out.End.Before(out.Start) {
		out.End = out.Start
	}
	out.Intervals = result.FoldTrailingSliver(rep.intervals)
	out.Checkpoints = rep.checkpoints
	out.Kinds = rep.r.kinds
	out.Totals = rep.phase(rep.meas, out.End.Sub(out.Start).Seconds(), rep.perThread)
	out.Latency, out.Service = &rep.meas.Latency, rep.meas.ServiceLatency()
	if rep.warm != nil {
		end := rep.r.warmEnd
		if rep.measTo.Before(end) {
			end = rep.measTo
		}
		p := rep.phase(rep.warm, end.Sub(rep.warmFrom).Seconds(), nil)
		out.Warmup = &p
	}
}

func (rep *reporter) phase(w *metrics.Window, secs float64, per []metrics.ThreadTotals) result.Phase {
	p := result.Phase{
		Seconds: secs,
		Counts:  toCounters(&w.Counters),
		Latency: rep.latency(&w.Latency),
		Service: rep.latency(w.ServiceLatency()),
	}
	if secs > 0 {
		p.TPS = float64(w.Events) / secs
		p.QPS = float64(p.Counts.Queries) / secs
	}
	for i := range w.Kinds {
		k := &w.Kinds[i]
		kp := result.KindPhase{Name: rep.r.kinds[i], Events: k.Events, Rollbacks: k.Rollbacks,
			Retries: k.Retries, Retried: k.Retried, Errors: copyErrors(k.Errors), Latency: rep.latency(&k.Latency)}
		if secs > 0 {
			kp.TPS = float64(k.Events) / secs
		}
		p.Kinds = append(p.Kinds, kp)
	}
	if per != nil {
		p.Fairness.EventsAvg, p.Fairness.EventsStddev, p.Fairness.ExecSecAvg, p.Fairness.ExecSecStddev = metrics.Fairness(per)
	}
	return p
}

func (rep *reporter) latency(l *metrics.Latency) result.Latency {
	out := result.Latency{
		MinMs:       ms(l.Min),
		AvgMs:       ms(l.Mean()),
		MaxMs:       ms(l.Max),
		SumMs:       ms(l.Sum),
		Percentiles: make(map[string]float64, len(rep.quantiles)),
	}
	for i, q := range rep.quantiles {
		out.Percentiles[rep.keyedPercentiles[i]] = ms(l.Quantile(q))
	}
	return out
}

func toCounters(c *metrics.Counters) result.Counters {
	out := result.Counters{
		Events: c.Events, Reads: c.Reads, Writes: c.Writes, Others: c.Others,
		Queries: c.Reads + c.Writes + c.Others, Reconnects: c.Reconnects,
		Retries: c.Retries, Retried: c.Retried, Late: c.Late, Skipped: c.Skipped,
		Connects: c.Connects, ConnectMs: float64(c.ConnectTime) / float64(time.Millisecond),
	}
	out.Errors = copyErrors(c.Errors)
	return out
}

// copyErrors returns a copy of m, nil when it is empty.
func copyErrors(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
