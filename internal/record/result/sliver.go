package result

import (
	"math"
	"slices"
)

// SliverFraction bounds a trailing sliver: a last interval shorter than this
// fraction of the interval before it (in the same phase) is not an interval of
// its own but the few milliseconds between the last tick and the moment the
// run's threads had stopped. Its rate (a handful of events over a millisecond)
// means nothing, and charted it looks like a plunge or a spike.
const SliverFraction = 0.05

// IsSliver reports whether last, the interval that follows prev at the end of
// a series, is a trailing sliver to fold into prev.
func IsSliver(prev, last Interval) bool {
	return prev.Warmup == last.Warmup && prev.Seconds > 0 && last.Seconds >= 0 &&
		last.Seconds < SliverFraction*prev.Seconds
}

// FoldTrailingSliver returns the series with a trailing sliver (IsSliver)
// folded into the interval before it: that interval then ends where the
// sliver ended, holds its counts and its length, and its rates are recomputed.
// The totals of the run are not touched (they always held the sliver's
// events). Interval percentiles are recomputed from the merged histograms
// when both intervals carry one; otherwise they stay those of the longer
// interval (the sliver holds a few events at most) and the maximum is exact.
// ivs is not modified; a series without a sliver is returned as is.
func FoldTrailingSliver(ivs []Interval) []Interval {
	n := len(ivs)
	if n < 2 || !IsSliver(ivs[n-2], ivs[n-1]) {
		return ivs
	}
	prev, last := ivs[n-2], ivs[n-1]
	out := slices.Clone(ivs[:n-2])
	iv := prev
	iv.At = last.At
	iv.Seconds = prev.Seconds + last.Seconds
	iv.Counts = prev.Counts
	iv.Counts.Errors = addErrorCounts(addErrorCounts(nil, prev.Counts.Errors), last.Counts.Errors)
	addCounters(&iv.Counts, &Counters{Events: last.Counts.Events, Queries: last.Counts.Queries, Reads: last.Counts.Reads,
		Writes: last.Counts.Writes, Others: last.Counts.Others, Reconnects: last.Counts.Reconnects})
	iv.Threads = max(prev.Threads, last.Threads)
	iv.MaxMs = math.Max(prev.MaxMs, last.MaxMs)
	if last.OpenLoop != nil {
		iv.OpenLoop = last.OpenLoop // the state where the folded interval ends
	}
	iv.TPS = float64(iv.Counts.Events) / iv.Seconds
	iv.QPS = float64(iv.Counts.Queries) / iv.Seconds
	if len(last.KindEvents) > 0 {
		kinds := make([]int64, max(len(prev.KindEvents), len(last.KindEvents)))
		copy(kinds, prev.KindEvents)
		for k, e := range last.KindEvents {
			kinds[k] += e
		}
		iv.KindEvents = kinds
	}
	if last.Histogram != nil && (prev.Histogram != nil || prev.Counts.Events == 0) {
		if folded, ok := foldHistograms(prev, last); ok {
			iv.LatencyMs, iv.Histogram = folded.LatencyMs, folded.Histogram
		}
	}
	return append(out, iv)
}

// foldHistograms gives the interval with prev's and last's histograms merged
// and the percentiles prev reported recomputed from them; ok is false when a
// histogram does not decode (the percentiles are then left as they were).
func foldHistograms(prev, last Interval) (Interval, bool) {
	h, err := addHistogram(nil, last.Histogram)
	if err == nil && prev.Histogram != nil {
		h, err = addHistogram(h, prev.Histogram)
	}
	if err != nil {
		return Interval{}, false
	}
	keys := make([]string, 0, len(prev.LatencyMs)+len(last.LatencyMs))
	for k := range prev.LatencyMs {
		keys = append(keys, k)
	}
	for k := range last.LatencyMs {
		if _, ok := prev.LatencyMs[k]; !ok {
			keys = append(keys, k)
		}
	}
	iv := Interval{MaxMs: math.Max(prev.MaxMs, last.MaxMs), LatencyMs: make(map[string]float64, len(keys))}
	if err := intervalPercentiles(&iv, h, keys); err != nil {
		return Interval{}, false
	}
	return iv, true
}

// PartialFraction bounds a full interval: a last interval shorter than this
// fraction of the one before it (in the same phase) is partial — the run
// ended between two ticks.
const PartialFraction = 0.9

// ChartIntervals returns the series as a chart shows it: a trailing sliver
// folded into the interval before it (FoldTrailingSliver), then a last
// interval that is partial (PartialFraction) left out, since its rate rests
// on a fraction of an interval and reads as a plunge or a spike. The run's
// totals hold its events either way. ivs is not modified.
func ChartIntervals(ivs []Interval) []Interval {
	ivs = FoldTrailingSliver(ivs)
	n := len(ivs)
	if n >= 2 && ivs[n-1].Warmup == ivs[n-2].Warmup && ivs[n-1].Seconds < PartialFraction*ivs[n-2].Seconds {
		return ivs[:n-1]
	}
	return ivs
}
