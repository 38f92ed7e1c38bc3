package result

import (
	"fmt"
	"slices"
	"sort"
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
	// answered nothing (schema 1.4): every thread was inside a call and no
	// event completed for longer than the stall limit (a hung server, or a
	// network that drops packets without closing connections). Start is when
	// the last event before it began or ended, Threads the threads waiting,
	// Unrecovered those still waiting when the measured phase ended.
	Stall bool `json:"stall,omitempty"`
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
// thread had no connection (or, in a stall, no answer) when the measured
// phase ended, or when the server was unreachable or stalled for more than
// OutageLimit of the phase: its figures then measure a server that was down,
// not its speed. warning describes the outages whenever there were any,
// failed or not; both are "" without outages.
func JudgeOutages(threads int, start, end time.Time, outages []Outage) (failure, warning string) {
	if len(outages) == 0 {
		return "", ""
	}
	phase := end.Sub(start).Seconds()
	down := OutageSeconds(start, end, outages)
	affected, unrecovered, stalls, stuck := 0, 0, 0, 0
	for _, o := range outages {
		if o.Stall {
			stalls++
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
	when := fmt.Sprintf("%.1fs into the measured phase", first.Start.Sub(start).Seconds())
	if first.Start.Before(start) {
		when = fmt.Sprintf("%.1fs before the measured phase, in the warm-up", start.Sub(first.Start).Seconds())
	}
	lost := fmt.Sprintf("%d of %d threads lost their connection", affected, threads)
	if len(outages)-stalls > 1 {
		lost = fmt.Sprintf("up to %d of %d threads lost their connection in one", affected, threads)
	}
	switch stalls {
	case 0:
		warning = fmt.Sprintf("the server went away: %d outage(s), the first %s; %s; "+
			"at least one thread had no connection for %.1fs of the %.1fs measured phase (%.1f %%)",
			len(outages), when, lost, down, phase, 100*share)
	case len(outages):
		warning = fmt.Sprintf("the server stopped answering: %d stall(s) (connections open, every thread waiting, no event completed for longer than the stall limit), the first %s; "+
			"it answered nothing for %.1fs of the %.1fs measured phase (%.1f %%)",
			stalls, when, down, phase, 100*share)
	default:
		warning = fmt.Sprintf("the server went away or stopped answering: %d outage(s), %d of them stall(s) (connections open, every thread waiting, no event completed for longer than the stall limit), the first %s; %s; "+
			"it was unreachable or answered nothing for %.1fs of the %.1fs measured phase (%.1f %%)",
			len(outages), stalls, when, lost, down, phase, 100*share)
	}
	switch {
	case stuck > 0:
		warning += fmt.Sprintf(", and %d thread(s) still waited for an answer when it ended", stuck)
		failure = fmt.Sprintf("%d of %d threads were still waiting for an answer when the measured phase ended: the server stopped answering (the first outage %s) and did not answer again in time; "+
			"the figures cover the time it answered and are kept in the result, but they do not measure the server (a stall is no event completing on any thread for longer than --reconnect-timeout)",
			stuck, threads, when)
	case unrecovered > 0:
		warning += fmt.Sprintf(", and %d thread(s) still had none when it ended", unrecovered)
		failure = fmt.Sprintf("%d of %d threads had no connection when the measured phase ended: the server went away (the first outage %s) and was not back in time; "+
			"the figures cover the time it was up and are kept in the result, but they do not measure the server (--reconnect-timeout bounds how long a thread tries to reconnect)",
			unrecovered, threads, when)
	case share > OutageLimit:
		what := "unreachable"
		if stalls > 0 {
			what = "unreachable or answered nothing"
		}
		failure = fmt.Sprintf("the server was %s for %.1fs of the %.1fs measured phase (%.1f %%, more than %.0f %%): "+
			"the figures mix the time it was up with the time it was down and are kept in the result, but they do not measure the server",
			what, down, phase, 100*share, 100*OutageLimit)
	case stalls > 0:
		warning += fmt.Sprintf(" — the server answered again and the run counts as complete (within %.0f %%), but its figures include the stall", 100*OutageLimit)
	default:
		warning += fmt.Sprintf(" — every thread reconnected and the run counts as complete (within %.0f %%), but its figures include the outage and whatever the server lost with it (cold caches after a restart)", 100*OutageLimit)
	}
	return failure, warning
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
	}
	return out
}
