package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/workload"
)

// Drain says what becomes of the events in flight when --time ends: sysbench's
// --forced-shutdown (ParseForcedShutdown). The zero value is fairbench's
// default: they are abandoned at --time, uncounted.
type Drain struct {
	// Wait lets the events in flight at --time finish and counts them; no
	// event starts after --time, and the measured phase ends when the last
	// one does (Outcome.Grace says how long after --time that was).
	Wait bool
	// Limit bounds the wait: the events still running Limit after --time
	// are cancelled, uncounted, and the run ends forced (Outcome.Forced),
	// as sysbench's alarm ends its run. 0 forces the shutdown at --time.
	Limit time.Duration
	// Unlimited waits for them however long they take (sysbench's
	// --forced-shutdown=off); Ctrl-C and SIGTERM still interrupt.
	Unlimited bool
}

// ForcedShutdownDefault is the share of --time sysbench waits when
// --forced-shutdown is given without a value: 5 %.
const ForcedShutdownDefault = "5%"

// ParseForcedShutdown reads --forced-shutdown for a run of --time d, as
// sysbench 1.0 reads it: "off" waits without limit, N seconds (whole or
// fractional, or a Go duration: "90s"), or N% of --time; "" (the option
// alone) is 5 % of --time. sysbench rounds the wait down to whole seconds
// (alarm(2) takes no fraction: 5% of --time=10 is 0 there); fairbench keeps
// the fraction. Without --time (d 0) the option has no effect, as in
// sysbench: the zero Drain.
func ParseForcedShutdown(s string, d time.Duration) (Drain, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		v = ForcedShutdownDefault
	}
	var dr Drain
	if strings.EqualFold(v, "off") {
		dr = Drain{Wait: true, Unlimited: true}
	} else if pct, isPct := strings.CutSuffix(v, "%"); isPct {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		secs := p / 100 * d.Seconds()
		if err != nil || math.IsNaN(p) || p < 0 || secs > float64(workload.MaxSeconds) {
			return Drain{}, fmt.Errorf("%q is not a share of --time: give a percentage such as 5%%, seconds such as 30, or off", s)
		}
		dr = Drain{Wait: true, Limit: time.Duration(math.Round(secs * float64(time.Second)))}
	} else {
		limit, err := parseSeconds(v)
		if err != nil {
			return Drain{}, fmt.Errorf("%q: give the seconds to wait after --time before forcing the shutdown (30, 2.5, 90s; at most %d), a share of --time (5%%), or off to wait without limit", s, workload.MaxSeconds)
		}
		dr = Drain{Wait: true, Limit: limit}
	}
	if d <= 0 {
		return Drain{}, nil
	}
	return dr, nil
}

// parseSeconds reads seconds (30, 2.5) or a Go duration ("90s"), from 0 to
// workload.MaxDuration.
func parseSeconds(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(f) || f < 0 || f > float64(workload.MaxSeconds) {
			return 0, fmt.Errorf("out of range")
		}
		return time.Duration(math.Round(f * float64(time.Second))), nil
	}
	dur, err := time.ParseDuration(v)
	if err != nil || dur < 0 || dur > workload.MaxDuration {
		return 0, fmt.Errorf("not a duration")
	}
	return dur, nil
}

// hardEnd is when the calls of the measured phase are cancelled: --time
// without --forced-shutdown, --time plus its limit with one, never (zero)
// with --forced-shutdown=off or without --time.
func (r *run) hardEnd() time.Time {
	switch {
	case r.end.IsZero() || (r.cfg.Drain.Wait && r.cfg.Drain.Unlimited):
		return time.Time{}
	case r.cfg.Drain.Wait:
		return r.end.Add(r.cfg.Drain.Limit)
	}
	return r.end
}

// forcedError says why a run whose shutdown was forced failed.
func forcedError(unfinished int, limit time.Duration) error {
	events := "1 event was"
	if unfinished != 1 {
		events = fmt.Sprintf("%d events were", unfinished)
	}
	return fmt.Errorf("forced shutdown: %s still running %ss after --time (--forced-shutdown) and cancelled, uncounted; "+
		"the figures cover the measured phase up to then: look for what held them (locks, a hung server), or allow a longer wait",
		events, strconv.FormatFloat(limit.Seconds(), 'f', -1, 64))
}
