package result

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Outage is a span of a run during which at least one thread had no
// connection to the server (schema 1.3): from the moment the first of them
// found its connection lost to the moment the last of them had a new one, or
// to the end of the measured phase when some never had.
type Outage struct {
	// Start is when the first thread found its connection lost.
	Start time.Time `json:"start"`
	// Seconds is how long at least one thread was without a connection.
	Seconds float64 `json:"seconds"`
	// Threads counts the threads that lost their connection during it.
	Threads int `json:"threads"`
	// Unrecovered counts those still without a connection when the measured
	// phase ended; the outage then lasted to the end of the phase.
	Unrecovered int `json:"unrecovered,omitempty"`
	// Stall marks a span during which the server kept its connections but
	// answered nothing (schema 1.4): some thread waited for an answer and
	// no thread had one for longer than the stall limit (a hung server, or
	// a network that drops packets without closing connections; see
	// runner.StallLimit). Start is the later of the last answer before it
	// and the start of the oldest call that waited through it, Threads the
	// most threads waiting at once, Unrecovered those still waiting when
	// the measured phase ended.
	Stall bool `json:"stall,omitempty"`
	// LimitSeconds is the stall limit a stall was detected with (schema
	// 1.6): how long the server may leave every call unanswered. 0 in
	// older results and for outages of connections.
	LimitSeconds float64 `json:"limit_seconds,omitempty"`
}

// End is when the outage ended (or the measured phase did, for one with
// Unrecovered threads).
func (o Outage) End() time.Time {
	return o.Start.Add(time.Duration(o.Seconds * float64(time.Second)))
}

// OutageLimit is the share of the measured phase beyond which a run whose
// server was unreachable fails, even when every thread had reconnected by
// its end (JudgeOutages).
const OutageLimit = 0.05

// OutageSeconds returns how long, within the measured phase from start to
// end, at least one thread was without a connection: the outages' spans
// clipped to the phase (spans that overlap, as those of coordinated clients
// can, counted once).
func OutageSeconds(start, end time.Time, outages []Outage) float64 {
	spans := clippedSpans(start, end, outages)
	var total time.Duration
	for _, s := range spans {
		total += s[1].Sub(s[0])
	}
	return total.Seconds()
}

// clippedSpans returns the outages' spans within [start, end], merged where
// they overlap, in time order.
func clippedSpans(start, end time.Time, outages []Outage) [][2]time.Time {
	var spans [][2]time.Time
	for _, o := range outages {
		a, b := o.Start, o.End()
		if a.Before(start) {
			a = start
		}
		if b.After(end) {
			b = end
		}
		if b.After(a) {
			spans = append(spans, [2]time.Time{a, b})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0].Before(spans[j][0]) })
	var out [][2]time.Time
	for _, s := range spans {
		if n := len(out); n > 0 && !s[0].After(out[n-1][1]) {
			if s[1].After(out[n-1][1]) {
				out[n-1][1] = s[1]
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// JudgeOutages judges the outages of a run with threads threads whose measured
// phase ran from start to end. A run fails (failure is its reason) when some
// thread had no connection when the measured phase ended, or when the server
// was unreachable or stalled for more than OutageLimit of the phase (a stall
// still under way at the end included): its figures then measure a server
// that was down, not its speed. warning describes the outages whenever there
// were any, failed or not, naming each stall (when it began, how long it
// lasted); both are "" without outages.
func JudgeOutages(threads int, start, end time.Time, outages []Outage) (failure, warning string) {
	if len(outages) == 0 {
		return "", ""
	}
	phase := end.Sub(start).Seconds()
	down := OutageSeconds(start, end, outages)
	affected, unrecovered, stuck := 0, 0, 0
	var stalls []Outage
	for _, o := range outages {
		if o.Stall {
			stalls = append(stalls, o)
			stuck += o.Unrecovered
			continue
		}
		affected = max(affected, o.Threads)
		unrecovered += o.Unrecovered
	}
	first := outages[0]
	for _, o := range outages[1:] {
		if o.Start.Before(first.Start) {
			first = o
		}
	}
	share := 0.0
	if phase > 0 {
		share = down / phase
	}
	when := sinceStart(start, first.Start)
	lost := fmt.Sprintf("%d of %d threads lost their connection", affected, threads)
	if len(outages)-len(stalls) > 1 {
		lost = fmt.Sprintf("up to %d of %d threads lost their connection in one", affected, threads)
	}
	switch len(stalls) {
	case 0:
		warning = fmt.Sprintf("the server went away: %d outage(s), the first %s; %s; "+
			"at least one thread had no connection for %.1fs of the %.1fs measured phase (%.1f %%)",
			len(outages), when, lost, down, phase, 100*share)
	case len(outages):
		warning = fmt.Sprintf("the server stopped answering: %s; "+
			"it answered nothing for %.1fs of the %.1fs measured phase (%.1f %%)",
			describeStalls(start, stalls), down, phase, 100*share)
	default:
		warning = fmt.Sprintf("the server went away or stopped answering: %d outage(s), the first %s; %s; %s; "+
			"it was unreachable or answered nothing for %.1fs of the %.1fs measured phase (%.1f %%)",
			len(outages)-len(stalls), sinceStart(start, firstOf(outages, false).Start), lost, describeStalls(start, stalls), down, phase, 100*share)
	}
	if stuck > 0 {
		warning += fmt.Sprintf(", and %d thread(s) still waited for an answer when it ended", stuck)
	}
	switch {
	case unrecovered > 0:
		warning += fmt.Sprintf(", and %d thread(s) still had none when it ended", unrecovered)
		failure = fmt.Sprintf("%d of %d threads had no connection when the measured phase ended: the server went away (the first outage %s) and was not back in time; "+
			"the figures cover the time it was up and are kept in the result, but they do not measure the server (--reconnect-timeout bounds how long a thread tries to reconnect)",
			unrecovered, threads, when)
	case share > OutageLimit && stuck > 0:
		failure = fmt.Sprintf("%d of %d threads were still waiting for an answer when the measured phase ended: the server stopped answering (the first outage %s) and did not answer again in time; "+
			"it answered nothing for %.1fs of the %.1fs measured phase (%.1f %%, more than %.0f %%): the figures cover the time it answered and are kept in the result, but they do not measure the server",
			stuck, threads, when, down, phase, 100*share, 100*OutageLimit)
	case share > OutageLimit:
		what := "was unreachable"
		switch len(stalls) {
		case len(outages):
			what = "answered nothing"
		case 0:
		default:
			what = "was unreachable or answered nothing"
		}
		failure = fmt.Sprintf("the server %s for %.1fs of the %.1fs measured phase (%.1f %%, more than %.0f %%): "+
			"the figures mix the time it was up with the time it was down and are kept in the result, but they do not measure the server",
			what, down, phase, 100*share, 100*OutageLimit)
	case len(stalls) > 0:
		warning += fmt.Sprintf(" — within %.0f %% of the measured phase, the run counts as complete, but its figures include the time the server answered nothing", 100*OutageLimit)
	default:
		warning += fmt.Sprintf(" — every thread reconnected and the run counts as complete (within %.0f %%), but its figures include the outage and whatever the server lost with it (cold caches after a restart)", 100*OutageLimit)
	}
	return failure, warning
}

// sinceStart says where t lies against the measured phase that began at
// start: "3.2s into the measured phase", or "20.0s before the measured phase,
// in the warm-up".
func sinceStart(start, t time.Time) string {
	if t.Before(start) {
		return fmt.Sprintf("%.1fs before the measured phase, in the warm-up", start.Sub(t).Seconds())
	}
	return fmt.Sprintf("%.1fs into the measured phase", t.Sub(start).Seconds())
}

// firstOf returns the earliest of outages that are stalls (or not).
func firstOf(outages []Outage, stall bool) Outage {
	var first Outage
	for _, o := range outages {
		if o.Stall == stall && (first.Start.IsZero() || o.Start.Before(first.Start)) {
			first = o
		}
	}
	return first
}

// stallsNamed is how many stalls a warning names one by one.
const stallsNamed = 3

// describeStalls names stalls (at least one, in time order) for a warning:
// "1 stall (some thread waited for an answer and none came for longer than
// the stall limit, 1.0s): 3.2s into the measured phase, for 3.1s".
func describeStalls(start time.Time, stalls []Outage) string {
	lo, hi := 0.0, 0.0
	for i, s := range stalls {
		if i == 0 || s.LimitSeconds < lo {
			lo = s.LimitSeconds
		}
		hi = max(hi, s.LimitSeconds)
	}
	limit := "the stall limit"
	switch {
	case lo > 0 && lo == hi:
		limit += fmt.Sprintf(", %.1fs", lo)
	case lo > 0:
		limit += fmt.Sprintf(", %.1fs to %.1fs", lo, hi)
	}
	each := make([]string, 0, stallsNamed+1)
	for i, s := range stalls {
		if i == stallsNamed {
			each = append(each, fmt.Sprintf("and %d more", len(stalls)-stallsNamed))
			break
		}
		each = append(each, fmt.Sprintf("%s, for %.1fs", sinceStart(start, s.Start), s.Seconds))
	}
	n := "1 stall"
	if len(stalls) > 1 {
		n = fmt.Sprintf("%d stalls", len(stalls))
	}
	return fmt.Sprintf("%s (some thread waited for an answer and none came for longer than %s): %s", n, limit, strings.Join(each, "; "))
}

// MarkStalls sets Stall on each of intervals that overlaps a stall among
// outages, and clears it on the others; runStart is the moment the
// intervals' At counts from (the start of the run, warm-up included).
func MarkStalls(intervals []Interval, runStart time.Time, outages []Outage) {
	for i := range intervals {
		iv := &intervals[i]
		to := runStart.Add(time.Duration(iv.At * float64(time.Second)))
		from := to.Add(-time.Duration(iv.Seconds * float64(time.Second)))
		iv.Stall = slices.ContainsFunc(outages, func(o Outage) bool {
			return o.Stall && o.Start.Before(to) && o.End().After(from)
		})
	}
}

// MergeOutages combines the outages of coordinated clients, which saw one
// server: outages that overlap in time become one, with their threads (and
// unrecovered threads) summed; the others are kept as they are, in time order.
func MergeOutages(lists ...[]Outage) []Outage {
	var all []Outage
	for _, l := range lists {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return nil
	}
	all = slices.Clone(all)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Start.Before(all[j].Start) })
	out := []Outage{all[0]}
	for _, o := range all[1:] {
		last := &out[len(out)-1]
		if o.Start.After(last.End()) {
			out = append(out, o)
			continue
		}
		end := last.End()
		if o.End().After(end) {
			end = o.End()
		}
		last.Seconds = end.Sub(last.Start).Seconds()
		last.Threads += o.Threads
		last.Unrecovered += o.Unrecovered
		last.Stall = last.Stall && o.Stall // a stall merged with lost connections counts as an outage of connections
		last.LimitSeconds = max(last.LimitSeconds, o.LimitSeconds)
		if !last.Stall {
			last.LimitSeconds = 0
		}
	}
	return out
}
