package pgbench

import (
	"time"

	"github.com/fairbench/fairbench/internal/workload/pgbench/script"
)

// commandStats are one worker's per-command figures (pgbench -r): counts,
// summed latencies, failures and retries of each command of each script,
// over the measured phase. Each worker has its own: no lock on the path.
type commandStats struct {
	timing bool
	from   time.Time // the start of the measured phase, once known
	known  bool
	cmds   [][]commandStat // per script, per command
}

// commandStat is one command's figures.
type commandStat struct {
	count, failures, retries int64
	total                    time.Duration
}

func newCommandStats(scripts []*script.Script, timing bool) *commandStats {
	cs := &commandStats{timing: timing, cmds: make([][]commandStat, len(scripts))}
	for i, s := range scripts {
		cs.cmds[i] = make([]commandStat, len(s.Commands))
	}
	return cs
}

// startEvent learns the start of the measured phase once the runner has
// told it (before the first event of any worker).
func (cs *commandStats) startEvent(w *Workload) {
	if cs.known || !cs.timing {
		return
	}
	if from := w.measuredFrom(); !from.IsZero() {
		cs.from, cs.known = from, true
	}
}

// add counts a run of command j of script i from start to end, when it
// started in the measured phase.
func (cs *commandStats) add(i, j int, start, end time.Time) {
	if !cs.known || start.Before(cs.from) {
		return
	}
	c := &cs.cmds[i][j]
	c.count++
	c.total += end.Sub(start)
}

// failure counts a serialization failure or deadlock of command j of script
// i: retried, or the end of its transaction.
func (cs *commandStats) failure(i, j int, retried bool) {
	if !cs.known {
		return
	}
	c := &cs.cmds[i][j]
	if retried {
		c.retries++
	} else {
		c.failures++
	}
}
