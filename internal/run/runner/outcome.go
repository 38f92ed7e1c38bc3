package runner

import (
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// Fill copies what the run measured into res: status, phases, series, kinds,
// the workload's headline figures, the histograms, how the measured phase
// ended with --forced-shutdown (Shutdown), and the warnings of the run:
// an open-loop --rate it fell short of (result.RateWarning), TLS asked for
// and not used (result.TLSWarning, from res.Target), and the outages with what
// they make of the run (result.JudgeOutages). The caller fills in what
// the runner does not know (tool, command line, options, target with its TLS,
// machine, server), the target before calling Fill.
func (o *Outcome) Fill(res *result.Result, cfg Config, wl workload.Workload) {
	res.Status = o.Status
	res.Start, res.End = o.Start.UTC(), o.End.UTC()
	res.Threads, res.Rate = cfg.Threads, cfg.Rate
	res.Warmup, res.Totals, res.Intervals = o.Warmup, o.Totals, o.Intervals
	res.Kinds = o.Kinds
	res.Checkpoints = o.Checkpoints
	if sum, ok := wl.(workload.Summarizer); ok {
		res.Figures = sum.Figures(&res.Totals)
	}
	if sc, ok := wl.(workload.Scripted); ok {
		res.Scripts = sc.Scripts()
	}
	res.AddWarning(result.TLSWarning(res.Target))
	res.AddWarning(result.RateWarning(cfg.Rate, o.Totals))
	if len(o.Outages) > 0 {
		res.Outages = make([]result.Outage, len(o.Outages))
		for i, out := range o.Outages {
			out.Start = out.Start.UTC()
			res.Outages[i] = out
		}
		_, warning := result.JudgeOutages(cfg.Threads, res.Start, res.End, res.Outages)
		res.AddWarning(warning)
	}
	if cfg.Drain.Wait && cfg.Duration > 0 {
		sh := &result.Shutdown{GraceSeconds: o.Grace.Seconds(), Forced: o.Forced, Unfinished: o.Unfinished}
		if !cfg.Drain.Unlimited {
			limit := cfg.Drain.Limit.Seconds()
			sh.LimitSeconds = &limit
		}
		res.Shutdown = sh
	}
	if o.Err != nil && o.Status == result.StatusFailed {
		res.Error = o.Err.Error()
	}
	if o.Latency != nil && o.Latency.Count > 0 {
		if h, err := result.EncodeHistogram(o.Latency.Hist); err == nil {
			res.Totals.Latency.Histogram = h
		}
		if cfg.Rate > 0 && o.Service != nil {
			if h, err := result.EncodeHistogram(o.Service.Hist); err == nil {
				res.Totals.Service.Histogram = h
			}
		}
	}
}
