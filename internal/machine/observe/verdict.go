package observe

import (
	"fmt"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
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

	commitFlushesPerTxn = 0.5 // log flushes per transaction at or above this …
	commitMinTxns       = 20  // … over at least this many transactions: commit-bound
	commitFlushTimePct  = 50  // or a log flush time share at or above this (PostgreSQL with track_wal_io_timing)
)

// minJudgedSeconds is the shortest phase that gets a verdict. The machines'
// CPU shares come from /proc/stat, which counts in clock ticks of 10 ms: a
// phase of a few ticks would be called "100% busy" or "not observed" by
// chance, so a shorter phase keeps its figures and is not judged. Half a
// second is 50 ticks a CPU (shares to 2%), and lets --time=1 be judged.
const minJudgedSeconds = 0.5

// tooShort says why a phase of the given length is not judged, or "" when
// it is long enough.
func tooShort(seconds float64) string {
	if seconds >= minJudgedSeconds {
		return ""
	}
	return fmt.Sprintf("not judged: the measured phase lasted %.3f s, and the CPU counters need at least %g s to tell CPU- or IO-bound",
		seconds, minJudgedSeconds)
}

// verdict classifies an observed phase and says why in one line.
func verdict(o *result.Observed) (bound, line string) {
	if why := tooShort(o.Seconds); why != "" {
		return result.BoundUnknown, why
	}
	m, s := o.Machine, o.Server
	cacheFigures, serverIO := serverCacheFigures(s)
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	serverFigures := func() { parts = append(parts, cacheFigures...) }
	client := func() string {
		if o.Client == nil {
			return ""
		}
		return "; client " + ClientShare(o.Client)
	}
	steal := func() string {
		if m == nil || m.StealPct < stealNotePct {
			return ""
		}
		return fmt.Sprintf("; steal %.0f%% (the hypervisor takes CPU)", m.StealPct)
	}

	others := func() string { return othersClause(m, "the machine") }

	switch {
	case commitBound(s):
		line := "commit-bound (log flushes): " + strings.Join(commitFigures(s), ", ")
		if m != nil {
			line += fmt.Sprintf(", iowait %.0f%%, CPUs %.0f%% busy", m.IOWaitPct, m.BusyPct)
		}
		return result.BoundCommit, line + steal() + others() + client()
	case m != nil && m.IOWaitPct >= ioWaitBoundPct:
		add("iowait %.0f%%", m.IOWaitPct)
		serverFigures()
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + others() + client()
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
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + others() + client() + pageCache
	case m != nil && m.BusyPct >= cpuBusyBoundPct:
		return result.BoundCPU, cpuBoundBy(m) + fmt.Sprintf("machine CPUs %.0f%% busy, iowait %.0f%%", m.BusyPct, m.IOWaitPct) + steal() + others() + client()
	case m != nil:
		return result.BoundNeither, fmt.Sprintf("neither: CPUs %.0f%% busy, iowait %.0f%%", m.BusyPct, m.IOWaitPct) + steal() + others() + client() +
			" — the client, the network or locking may limit"
	}
	serverFigures()
	line = "unknown: the machine's CPU use could not be read"
	if len(parts) > 0 {
		line += "; " + strings.Join(parts, ", ")
	}
	return result.BoundUnknown, line + client()
}

// ClientShare says the client's share of the machine as the verdict does
// ("used 18% of the machine"), for the lines that speak of it.
func ClientShare(c *result.ObservedClient) string {
	return fmt.Sprintf("used %.0f%% of the machine", c.MachinePct)
}

// serverCacheFigures gives the server's cache-miss figures as parts of a
// verdict line ("1,240 disk reads/s", "buffer-pool hit ratio 91.2%") and says
// whether they bound the run: reads missing the server's cache at a low hit
// ratio and a high rate. Nothing for a server whose counters were not read.
func serverCacheFigures(s *result.ObservedServer) (parts []string, bound bool) {
	if s == nil {
		return nil, false
	}
	if s.DiskReadsPerSec != nil {
		parts = append(parts, grouped(*s.DiskReadsPerSec)+" disk reads/s")
	}
	if s.BufferPoolHitPct != nil {
		parts = append(parts, fmt.Sprintf("buffer-pool hit ratio %.1f%%", *s.BufferPoolHitPct))
	}
	bound = s.BufferPoolHitPct != nil && s.DiskReadsPerSec != nil &&
		*s.BufferPoolHitPct < hitRatioBoundPct && *s.DiskReadsPerSec >= diskReadsBoundRate
	return parts, bound
}

// commitFigures gives the server's log-flush figures as parts of a verdict
// line: "1.02 log flushes per transaction", "212 flushes/s", "flushing 71%
// of the time" (the parts the server has).
func commitFigures(s *result.ObservedServer) []string {
	var parts []string
	if s.LogFlushesPerTxn != nil {
		parts = append(parts, fmt.Sprintf("%.2f log flushes per transaction", *s.LogFlushesPerTxn))
	}
	if s.LogFlushesPerSec != nil {
		parts = append(parts, grouped(*s.LogFlushesPerSec)+" flushes/s")
	}
	if s.LogFlushTimePct != nil {
		parts = append(parts, fmt.Sprintf("flushing %.0f%% of the time", *s.LogFlushTimePct))
	}
	return parts
}

// commitBound reports whether the server's transactions waited on log
// flushes: at least commitFlushesPerTxn flushes per transaction over at
// least commitMinTxns transactions (Judge sets LogFlushesPerTxn only then),
// or a flush time share of at least commitFlushTimePct.
func commitBound(s *result.ObservedServer) bool {
	if s == nil {
		return false
	}
	return s.LogFlushesPerTxn != nil && *s.LogFlushesPerTxn >= commitFlushesPerTxn ||
		s.LogFlushTimePct != nil && *s.LogFlushTimePct >= commitFlushTimePct
}

// withUnreadServer adds to a verdict line that the server's counters, which
// would have shown reads missing its cache, could not be read, and why.
func withUnreadServer(line, why string) string {
	return line + unreadServerClause + why + "), so reads missing its cache were not judged"
}

// unreadServerClause begins what withUnreadServer adds.
const unreadServerClause = "; the server's counters could not be read ("

// grouped formats a non-negative rate rounded to a whole number with thousands
// separators: 1240.4 → "1,240".
func grouped(f float64) string { return workload.GroupDigits(int64(math.Round(f))) }

// clientBoundPct: a client machine whose CPUs are at least this busy, while
// the server's machine is not, limits the run ("client-bound").
const clientBoundPct = cpuBusyBoundPct

// Judge recomputes o's verdict once what the server's machines did and the
// run's transactions are known (o.ServerMachines, set after Probe.End;
// transactions is the run's measured events, times the coordinated clients'
// count for one client of several). It fills the other processes' shares of
// the machines (ObservedMachine.OtherProcessesPct) and the server's log
// flushes per transaction, which the commit-bound rule judges. With observed
// server machines the verdict judges CPU- or IO-bound on their figures (busy
// and iowait shares, the busiest CPU, the server process's CPU) and on the
// server's counters, and the client machine keeps its own clause:
// "client-bound" when its CPUs were saturated while the server's machine was
// not. remote says the server runs on another machine than the client; with
// no server machine observed the verdict then says so, and judges only on
// the server's counters. A local server without observed machines is
// judged on the client's machine (it is the server's).
//
// A phase shorter than half a second is not judged (Probe.End said so already).
func Judge(o *result.Observed, remote bool, transactions int64) {
	if o == nil {
		return
	}
	setOtherProcesses(o, remote)
	if s := o.Server; s != nil {
		s.LogFlushesPerTxn = nil
		if s.LogFlushesPerSec != nil && transactions >= commitMinTxns && o.Seconds > 0 {
			s.LogFlushesPerTxn = ptr(*s.LogFlushesPerSec * o.Seconds / float64(transactions))
		}
	}
	if o.Seconds < minJudgedSeconds {
		return
	}
	var ms []result.ObservedServerMachine
	for _, m := range o.ServerMachines {
		if m.CPU != nil {
			ms = append(ms, m)
		}
	}
	unread := ""
	if i := strings.Index(o.Verdict, unreadServerClause); i >= 0 {
		unread = o.Verdict[i:]
	}
	switch {
	case len(ms) > 0:
		o.Bound, o.Verdict = serverMachineVerdict(o, ms, remote)
	case len(o.ServerMachines) > 0:
		o.Bound, o.Verdict = unobservedVerdict(o, "the server's machine was not observed (its counters could not be read: see the notes of observed.server_machines)")
	case remote:
		o.Bound, o.Verdict = unobservedVerdict(o, "the server's machine was not observed (a remote server without --server-agent)")
	default:
		o.Bound, o.Verdict = verdict(o)
	}
	o.Verdict += unread
}

// serverMachineVerdict judges on the observed server machines ms (each with
// CPU figures).
func serverMachineVerdict(o *result.Observed, ms []result.ObservedServerMachine, remote bool) (bound, line string) {
	busiest, waiting := ms[0], ms[0]
	for _, m := range ms[1:] {
		if m.CPU.BusyPct > busiest.CPU.BusyPct {
			busiest = m
		}
		if m.CPU.IOWaitPct > waiting.CPU.IOWaitPct {
			waiting = m
		}
	}
	name := func(m result.ObservedServerMachine) string {
		if len(ms) > 1 {
			return "the " + m.Role + " machine's"
		}
		return "server machine"
	}
	s := o.Server
	cacheFigures, serverIO := serverCacheFigures(s)
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	serverFigures := func() { parts = append(parts, cacheFigures...) }
	detail := func(m result.ObservedServerMachine) string {
		d := ""
		if m.CPU.CPUs > 1 {
			d += fmt.Sprintf(", busiest CPU %d at %.0f%%", m.BusiestCPU, m.BusiestCPUPct)
		}
		if p := m.Process; p != nil {
			proc := "the server process"
			if p.Name != "" {
				proc = p.Name
			}
			d += fmt.Sprintf(", %s used %.0f%% of a CPU", proc, p.CPUPct)
		}
		if m.CPU.StealPct >= stealNotePct {
			d += fmt.Sprintf(", steal %.0f%% (the hypervisor takes CPU)", m.CPU.StealPct)
		}
		return d
	}
	client := func(serverBound bool) string {
		switch {
		case !remote:
			if o.Client == nil {
				return ""
			}
			return "; client " + ClientShare(o.Client)
		case o.Machine == nil:
			return "; the client machine's CPU use could not be read"
		case !serverBound && o.Machine.BusyPct >= clientBoundPct:
			return fmt.Sprintf("; client-bound: the client machine's CPUs %.0f%% busy", o.Machine.BusyPct) + othersClause(o.Machine, "it")
		}
		return fmt.Sprintf("; client machine CPUs %.0f%% busy", o.Machine.BusyPct) + othersClause(o.Machine, "it")
	}
	// others names the other processes of the machine m, if they were
	// many: of the machine fairbench ran on for a local server (its figure
	// covers all the CPUs), else of m.
	others := func(m result.ObservedServerMachine) string {
		if !remote && o.Machine != nil && o.Machine.OtherProcessesPct != nil {
			return othersClause(o.Machine, "the machine")
		}
		if len(ms) > 1 {
			return othersClause(m.CPU, strings.TrimSuffix(name(m), "'s"))
		}
		return othersClause(m.CPU, "the server machine")
	}
	w, b := waiting.CPU, busiest.CPU
	switch {
	case commitBound(s):
		line := "commit-bound (log flushes): " + strings.Join(commitFigures(s), ", ") +
			fmt.Sprintf(", %s iowait %.0f%%, CPUs %.0f%% busy", name(waiting), w.IOWaitPct, w.BusyPct)
		return result.BoundCommit, line + others(waiting) + client(true)
	case w.IOWaitPct >= ioWaitBoundPct:
		add("%s iowait %.0f%%", name(waiting), w.IOWaitPct)
		serverFigures()
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + others(waiting) + client(true)
	case serverIO:
		serverFigures()
		add("%s iowait %.0f%%, CPUs %.0f%% busy", name(waiting), w.IOWaitPct, w.BusyPct)
		pageCache := ""
		if w.IOWaitPct < pageCacheIOWaitPct {
			pageCache = " — the reads that missed the server's cache came from the OS page cache, not the disk"
		}
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + others(waiting) + client(true) + pageCache
	case b.BusyPct >= cpuBusyBoundPct:
		by := b
		if !remote && o.Machine != nil && o.Machine.OtherProcessesPct != nil {
			by = &result.ObservedMachine{BusyPct: b.BusyPct, OtherProcessesPct: o.Machine.OtherProcessesPct}
		}
		return result.BoundCPU, cpuBoundBy(by) + fmt.Sprintf("%s CPUs %.0f%% busy, iowait %.0f%%", name(busiest), b.BusyPct, b.IOWaitPct) + detail(busiest) + others(busiest) + client(true)
	}
	line = fmt.Sprintf("neither: %s CPUs %.0f%% busy, iowait %.0f%%", name(busiest), b.BusyPct, b.IOWaitPct) + detail(busiest) + others(busiest) + client(false)
	if !strings.Contains(line, "client-bound") {
		line += " — the client, the network or locking may limit"
	}
	return result.BoundNeither, line
}

// unobservedVerdict judges a remote server whose machine was not observed:
// only the server's counters can say IO-bound; the client machine keeps its
// clause.
func unobservedVerdict(o *result.Observed, why string) (bound, line string) {
	parts, serverIO := serverCacheFigures(o.Server)
	client := ""
	if m := o.Machine; m != nil {
		client = fmt.Sprintf("; client machine CPUs %.0f%% busy", m.BusyPct)
		if m.BusyPct >= clientBoundPct {
			client = fmt.Sprintf("; client-bound: the client machine's CPUs %.0f%% busy", m.BusyPct)
		}
		client += othersClause(m, "it")
	}
	if commitBound(o.Server) {
		return result.BoundCommit, "commit-bound (log flushes): " + strings.Join(commitFigures(o.Server), ", ") + "; " + why + client
	}
	if serverIO {
		return result.BoundIO, "IO-bound: " + strings.Join(parts, ", ") + "; " + why + client
	}
	line = "unknown: " + why
	if len(parts) > 0 {
		line += "; " + strings.Join(parts, ", ")
	}
	return result.BoundUnknown, line + client
}
