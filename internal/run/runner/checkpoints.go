package runner

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// ParseCheckpoints reads --report-checkpoints: a comma-separated list of
// moments, each in seconds since the start of the measured phase (whole or
// fractional, more than 0, at most workload.MaxSeconds), as sysbench's
// --report-checkpoints=10,60 lists them. An empty element or a moment given
// twice is refused; the moments are returned in increasing order.
func ParseCheckpoints(s string) ([]time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	elems := strings.Split(s, ",")
	out := make([]time.Duration, 0, len(elems))
	for i, e := range elems {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("element %d of %d is empty: give seconds separated by single commas, e.g. 10,60", i+1, len(elems))
		}
		sec, err := strconv.ParseFloat(e, 64)
		if err != nil || math.IsNaN(sec) || !(sec > 0 && sec <= float64(workload.MaxSeconds)) {
			return nil, fmt.Errorf("%q is not a moment of the run: give seconds since the start of the measured phase, more than 0 and at most %d, e.g. 10,60", e, workload.MaxSeconds)
		}
		d := time.Duration(math.Round(sec * float64(time.Second)))
		if d < time.Millisecond {
			// A moment closer to the start than the report's resolution
			// (.0000000001 rounded to 0 s, once accepted).
			return nil, fmt.Errorf("%q is too close to the start of the measured phase: give at least 0.001 seconds, e.g. 10,60", e)
		}
		if slices.Contains(out, d) {
			return nil, fmt.Errorf("checkpoint %ss is given twice", e)
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return out, nil
}

// checkpointsPast returns an error when a checkpoint falls after the end of
// a run of the given --time (0: no time limit): it would never be reported.
func checkpointsPast(cps []time.Duration, duration time.Duration) error {
	if duration <= 0 || len(cps) == 0 {
		return nil
	}
	if last := cps[len(cps)-1]; last > duration {
		return fmt.Errorf("--report-checkpoints: %gs is past --time=%g, the end of the measured phase: give checkpoints within the run, or a longer --time",
			last.Seconds(), duration.Seconds())
	}
	return nil
}

// nextCheckpoint is the moment of the next checkpoint not yet reported.
func (rep *reporter) nextCheckpoint() (time.Time, bool) {
	if len(rep.cps) == 0 {
		return time.Time{}, false
	}
	return rep.r.warmEnd.Add(rep.cps[0]), true
}

// checkpoint reports the next checkpoint: the measured phase from its start
// to now, cumulative (unlike sysbench's, which resets its counters); after
// the threads ended (final), to the end of the phase. The open interval stays
// open: the recorders are drained into it, and a copy of the phase so far
// with it is summarised.
func (rep *reporter) checkpoint(final bool) {
	at := rep.cps[0]
	rep.cps = rep.cps[1:]
	upTo := rep.measTo
	if !final {
		upTo = time.Now() // the drain below takes what ended until now
		if !rep.r.end.IsZero() && upTo.After(rep.r.end) {
			upTo = rep.r.end // nothing that ended past --time is counted
		}
	}
	rep.r.col.Drain(rep.interval, rep.perThread)
	snap := rep.r.col.NewWindow()
	snap.Merge(rep.meas)
	snap.Merge(rep.interval)
	secs := upTo.Sub(rep.measFrom).Seconds()
	cp := result.Checkpoint{At: at.Seconds(), Phase: rep.phase(snap, secs, rep.perThread)}
	rep.checkpoints = append(rep.checkpoints, cp)
	if rep.r.deps.OnCheckpoint != nil {
		rep.r.deps.OnCheckpoint(cp)
	}
}
