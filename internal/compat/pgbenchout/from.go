package pgbenchout

import (
	"github.com/fairbench/fairbench/internal/record/result"
)

// The SQLSTATEs of the failures pgbench 15 counts (and retries under
// --max-tries); any other error aborts its client.
const (
	SQLStateSerialization = "40001"
	SQLStateDeadlock      = "40P01"
)

// failuresOf are the serialization failures and deadlocks among errors
// counted by SQLSTATE.
func failuresOf(errs map[string]int64) Failures {
	return Failures{Serialization: errs[SQLStateSerialization], Deadlock: errs[SQLStateDeadlock]}
}

// meanStddevMs are the mean and standard deviation of a latency histogram
// in milliseconds; ok is false without a histogram.
func meanStddevMs(h *result.Histogram) (mean, stddev float64, ok bool) {
	if h == nil {
		return 0, 0, false
	}
	hist, err := h.Decode()
	if err != nil || hist.TotalCount() == 0 {
		return 0, 0, false
	}
	return hist.Mean() / 1000, hist.StdDev() / 1000, true // µs → ms
}

// ProgressFrom fills a progress line from one interval of a fairbench
// result. p holds what the run's options decide (Timestamp, Throttled,
// LatencyLimit, Retrying) and, with Timestamp, the Unix time of the run's
// start in Epoch, to which the interval's end is added. The average and
// standard deviation of the latency come from the interval's histogram,
// which a result keeps with `run --interval-histograms` (they stay 0
// otherwise); failures are the interval's serialization failures and
// deadlocks; the lag (interval lag_ms, with --rate), the retries and the
// transactions skipped under --latency-limit are the interval's.
func ProgressFrom(iv result.Interval, p Progress) Progress {
	p.Elapsed = iv.At
	if p.Timestamp {
		p.Epoch += iv.At
	}
	p.TPS = iv.TPS
	if mean, sd, ok := meanStddevMs(iv.Histogram); ok {
		p.LatencyMs, p.StddevMs = mean, sd
	}
	f := failuresOf(iv.Counts.Errors)
	p.Failed = f.Total()
	p.LagMs = iv.LagMs
	p.Retried, p.Retries = iv.Counts.Retried, iv.Counts.Retries
	p.Skipped = iv.Counts.Skipped
	return p
}

// SummaryFrom fills a report from a fairbench result's measured phase. s
// holds the run's parameters, which the result does not (the scripts'
// descriptions, weights and statements, scale, query mode, clients,
// threads, tries, -T or -t, -R, -L, -C, -r, the measured-latency rule, the
// connection time); SummaryFrom sets the figures the result holds:
// transactions processed, failures (serialization failures and deadlocks by
// SQLSTATE), tps, latency (average, and the standard deviation from the
// histogram), the average lag of a -R run (latency from the intended start
// less service time), and, when the result has one kind of event per
// script, each script's transactions, failures, retries, tps and latency. The
// latency average of a run whose latency pgbench does not measure
// (!LatencyMeasured) is pgbench's: elapsed × clients / transactions.
// It also sets the retries (transactions retried, retries), the
// transactions skipped and those above --latency-limit. What the result does
// not hold keeps s's values: the largest lag, each script's skipped
// transactions; per-statement figures and the connection time are the
// caller's to give (the result's scripts, the run's connect time).
func SummaryFrom(r *result.Result, s Summary) Summary {
	t := r.Totals
	s.Processed = t.Counts.Events
	s.Failures = failuresOf(t.Counts.Errors)
	s.Retried, s.Retries = t.Counts.Retried, t.Counts.Retries
	s.Skipped, s.LatencyLate = t.Counts.Skipped, t.Counts.Late
	s.TPS = t.TPS
	s.LatencyAvgMs = t.Latency.AvgMs
	if _, sd, ok := meanStddevMs(t.Latency.Histogram); ok {
		s.LatencyStddevMs = sd
	}
	if !s.LatencyMeasured {
		if n := s.Processed + s.Skipped + s.Failures.Total(); n > 0 {
			s.LatencyAvgMs = t.Seconds * 1000 * float64(s.Clients) / float64(n)
		}
	}
	if s.Throttled {
		s.LagAvgMs = max(t.Latency.AvgMs-t.Service.AvgMs, 0)
	}
	if len(t.Kinds) == len(s.Scripts) {
		scripts := make([]Script, len(s.Scripts))
		copy(scripts, s.Scripts)
		for i, k := range t.Kinds {
			sc := &scripts[i]
			sc.Processed, sc.TPS = k.Events, k.TPS
			sc.Failures = failuresOf(k.Errors)
			sc.Retried, sc.Retries = k.Retried, k.Retries
			sc.LatencyAvgMs = k.Latency.AvgMs
			if _, sd, ok := meanStddevMs(k.Latency.Histogram); ok {
				sc.LatencyStddevMs = sd
			}
		}
		s.Scripts = scripts
	}
	return s
}
