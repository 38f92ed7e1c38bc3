package observe

import (
	"fmt"
	"os"

	"github.com/fairbench/fairbench/internal/record/result"
)

// othersBusyShare: CPU-bound with other processes above the limit and using at
// least this share of the machine's busy CPU time is "CPU-bound by other
// processes" (see the package documentation).
const othersBusyShare = 0.5

// othersOf is the share of m's CPUs that processes other than those whose
// own shares (per cent of m's CPUs) are mine used: user + nice + system less
// them, never below 0.
func othersOf(m *result.ObservedMachine, mine ...float64) *float64 {
	if m == nil {
		return nil
	}
	pct := m.UserPct + m.NicePct + m.SystemPct
	for _, p := range mine {
		pct -= p
	}
	return ptr(max(pct, 0))
}

// processShare is the server process's CPU (per cent of one CPU) as a share
// of the machine m's CPUs.
func processShare(p *result.ObservedProcess, m *result.ObservedMachine) float64 {
	if m.CPUs <= 0 {
		return 0
	}
	return p.CPUPct / float64(m.CPUs)
}

// setOtherProcesses fills the other processes' shares of o's machines once
// the server's machines are known (Judge): on the client's machine all but
// the client and, when the server runs there, the server's process; on a
// server machine observed through an agent all but the server's process; on
// a local server machine all but the server's process and the client (over
// the server's CPUs, where the client may or may not have run: the share is
// then a lower bound). A share stays absent when a process to leave out was
// not read (a local server whose process was not found, an agent without
// the server's process).
func setOtherProcesses(o *result.Observed, remote bool) {
	var client float64
	if o.Client != nil {
		client = o.Client.MachinePct
	}
	var local *result.ObservedServerMachine
	for i := range o.ServerMachines {
		sm := &o.ServerMachines[i]
		if sm.CPU == nil {
			continue
		}
		switch {
		case sm.Source != "local":
			sm.CPU.OtherProcessesPct = nil
			if sm.Process != nil {
				sm.CPU.OtherProcessesPct = othersOf(sm.CPU, processShare(sm.Process, sm.CPU))
			}
		case local == nil:
			local = sm
		}
	}
	m := o.Machine
	if m == nil || o.Client == nil {
		return
	}
	switch {
	case remote:
		m.OtherProcessesPct = othersOf(m, client)
	case local != nil && local.Process != nil && local.Process.PID == os.Getpid():
		// Embedded SQLite: the server is the client.
		m.OtherProcessesPct = othersOf(m, client)
		local.CPU.OtherProcessesPct = othersOf(local.CPU, client*float64(m.CPUs)/float64(max(local.CPU.CPUs, 1)))
	case local != nil && local.Process != nil:
		m.OtherProcessesPct = othersOf(m, client, processShare(local.Process, m))
		local.CPU.OtherProcessesPct = othersOf(local.CPU, client*float64(m.CPUs)/float64(max(local.CPU.CPUs, 1)), processShare(local.Process, local.CPU))
	case local != nil:
		m.OtherProcessesPct = nil // the server's own share is unknown
	}
}

// othersClause is what a verdict line adds for the other processes of m
// when they used more than result.OtherProcessesLimitPct of it:
// "; other processes used 74% of the machine".
func othersClause(m *result.ObservedMachine, machine string) string {
	if m == nil || m.OtherProcessesPct == nil || *m.OtherProcessesPct <= result.OtherProcessesLimitPct {
		return ""
	}
	return fmt.Sprintf("; other processes used %.0f%% of %s", *m.OtherProcessesPct, machine)
}

// cpuBoundBy is how a CPU-bound verdict line begins for the machine m:
// "CPU-bound by other processes: " when they used more than the limit and
// at least half of its busy CPU time, else "CPU-bound: ".
func cpuBoundBy(m *result.ObservedMachine) string {
	if o := m.OtherProcessesPct; o != nil && *o > result.OtherProcessesLimitPct && *o >= othersBusyShare*m.BusyPct {
		return "CPU-bound by other processes: "
	}
	return "CPU-bound: "
}

// NoisyWarning is the warning of a run during which other processes used
// more than result.OtherProcessesLimitPct of an observed machine's CPUs,
// "" when none did or the phase was too short to judge (minJudgedSeconds:
// its shares count a few clock ticks).
func NoisyWarning(o *result.Observed) string {
	pct, whose, ok := o.OtherProcesses()
	if !ok || pct <= result.OtherProcessesLimitPct || o.Seconds < minJudgedSeconds {
		return ""
	}
	return fmt.Sprintf("other processes used %.0f%% of %s CPUs during the measured phase (more than %d%%): the figures may be low and vary from run to run; "+
		"run on a quiet machine (top or pidstat shows which processes), and compare such runs only with runs measured alike",
		pct, whose, result.OtherProcessesLimitPct)
}
