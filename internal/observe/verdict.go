package observe

import (
	"fmt"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// The thresholds of the verdict (see the package documentation).
const (
	ioWaitBoundPct     = 20  // machine iowait at or above this: IO-bound
	cpuBusyBoundPct    = 85  // machine CPUs busy at or above this: CPU-bound
	hitRatioBoundPct   = 95  // server cache hit ratio below this …
	diskReadsBoundRate = 100 // … with at least this many disk reads/s: IO-bound
	stealNotePct       = 5   // steal at or above this is mentioned
	pageCacheIOWaitPct = 5   // server cache misses with iowait below this came from the OS page cache
)

// verdict classifies an observed phase and says why in one line.
func verdict(o *result.Observed) (bound, line string) {
	m, s := o.Machine, o.Server
	serverIO := s != nil && s.BufferPoolHitPct != nil && s.DiskReadsPerSec != nil &&
		*s.BufferPoolHitPct < hitRatioBoundPct && *s.DiskReadsPerSec >= diskReadsBoundRate
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	serverFigures := func() {
		if s == nil {
			return
		}
		if s.DiskReadsPerSec != nil {
			add("%s disk reads/s", grouped(*s.DiskReadsPerSec))
		}
		if s.BufferPoolHitPct != nil {
			add("buffer-pool hit ratio %.1f%%", *s.BufferPoolHitPct)
		}
	}
	client := func() string {
		if o.Client == nil {
			return ""
		}
		return fmt.Sprintf("; client used %.0f%% of the machine", o.Client.MachinePct)
	}
	steal := func() string {
		if m == nil || m.StealPct < stealNotePct {
			return ""
		}
		return fmt.Sprintf("; steal %.0f%% (the hypervisor takes CPU)", m.StealPct)
	}

	switch {
	case m != nil && m.IOWaitPct >= ioWaitBoundPct:
		add("iowait %.0f%%", m.IOWaitPct)
		serverFigures()
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + client()
	case serverIO:
		// Reads that miss the cache bound the run even when the CPUs are busy:
		// much of that CPU time is spent on the reads.
		serverFigures()
		pageCache := ""
		if m != nil {
			add("iowait %.0f%%", m.IOWaitPct)
			add("CPUs %.0f%% busy", m.BusyPct)
			if m.IOWaitPct < pageCacheIOWaitPct {
				// The misses were not waited for: the OS page cache served
				// them, at a CPU cost, not the disk.
				pageCache = " — the reads that missed the server's cache came from the OS page cache, not the disk"
			}
		}
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + client() + pageCache
	case m != nil && m.BusyPct >= cpuBusyBoundPct:
		return result.BoundCPU, fmt.Sprintf("CPU-bound: machine CPUs %.0f%% busy, iowait %.0f%%", m.BusyPct, m.IOWaitPct) + steal() + client()
	case m != nil:
		return result.BoundNeither, fmt.Sprintf("neither: CPUs %.0f%% busy, iowait %.0f%%", m.BusyPct, m.IOWaitPct) + steal() + client() +
			" — the client, the network or locking may limit"
	}
	serverFigures()
	line = "unknown: the machine's CPU use could not be read"
	if len(parts) > 0 {
		line += "; " + strings.Join(parts, ", ")
	}
	return result.BoundUnknown, line + client()
}

// withUnreadServer adds to a verdict line that the server's counters, which
// would have shown reads missing its cache, could not be read, and why.
func withUnreadServer(line, why string) string {
	return line + "; the server's counters could not be read (" + why + "), so reads missing its cache were not judged"
}

// grouped formats a non-negative rate rounded to a whole number with thousands
// separators: 1240.4 → "1,240".
func grouped(f float64) string { return workload.GroupDigits(int64(math.Round(f))) }
