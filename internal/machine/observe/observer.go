package observe

import (
	"context"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Observer is one observer of the machines of a measured phase: the client
// process, this machine and the database server's counters (ProbeObserver),
// the server's machines (MachinesObserver), and the verdict that reads what
// they recorded (VerdictObserver). measure.Run begins a run's observers in
// order when the measured phase begins and ends them in reverse order when
// it ends, all into one Observation: the first observer ends last, after
// every other has recorded what it saw. Observing never fails a run: what
// cannot be read is noted in what End records.
type Observer interface {
	// Begin snapshots what the observer reads when the measured phase
	// begins. It is called from the goroutine that keeps the run's time and
	// must return quickly.
	Begin(ctx context.Context)
	// End snapshots again when the measured phase ends (ctx bounds the last
	// readings) and records what the observer saw over the phase into o.
	// It is called once, after Begin.
	End(ctx context.Context, o *Observation)
}

// Observation is what the observers of one measured phase recorded, for its
// result.
type Observation struct {
	// Transactions is the run's measured transactions, times the
	// coordinated clients' count for one client of several (the server's
	// log flushes are every client's); it is set before the observers end,
	// for the verdict's commit-bound rule.
	Transactions int64
	// Observed is the result's observation of the phase, made by the
	// ProbeObserver (nil until it ends).
	Observed *result.Observed
	// MachineNotes are what the server's machines' observer could not read
	// over the phase, for the result's warnings.
	MachineNotes []string
}

// ProbeObserver is the Observer of a Probe: Begin(ctx, drv, server) when the
// phase begins, and Probe.End when it ends, which makes o.Observed (with the
// verdict on this machine alone). A nil drv is a run without a server (a dry
// run), as for Begin.
func ProbeObserver(drv driver.Driver, server result.Server) Observer {
	return &probeObserver{drv: drv, server: server, env: realEnv()}
}

// probeObserver is the Observer of a Probe.
type probeObserver struct {
	drv    driver.Driver
	server result.Server
	env    env
	probe  *Probe
}

func (p *probeObserver) Begin(ctx context.Context) { p.probe = begin(ctx, p.drv, p.server, p.env) }

func (p *probeObserver) End(ctx context.Context, o *Observation) { o.Observed = p.probe.End(ctx) }

// MachineWatch observes the server's machines over a measured phase;
// machinewatch.Watch implements it (as measure.MachineObserver).
type MachineWatch interface {
	// Begin snapshots the machines' counters when the phase begins; it
	// must return quickly.
	Begin(ctx context.Context)
	// End snapshots them when the phase ends and returns what each observed
	// machine did over it, and notes for what could not be read.
	End(ctx context.Context) (observed []result.ObservedServerMachine, notes []string)
}

// MachinesObserver is the Observer of the server's machines through w: its
// End records what they did as o.Observed.ServerMachines, so it must end
// after the ProbeObserver (begin before it), and w's notes as
// o.MachineNotes.
func MachinesObserver(w MachineWatch) Observer { return machinesObserver{w} }

// machinesObserver is the Observer of the server's machines.
type machinesObserver struct{ w MachineWatch }

func (m machinesObserver) Begin(ctx context.Context) { m.w.Begin(ctx) }

func (m machinesObserver) End(ctx context.Context, o *Observation) {
	observed, notes := m.w.End(ctx)
	if o.Observed != nil {
		o.Observed.ServerMachines = observed
	}
	o.MachineNotes = append(o.MachineNotes, notes...)
}

// VerdictObserver is the Observer that judges what the others recorded: its
// End is Judge(o.Observed, remote, o.Transactions), so it must end after
// every other observer (begin first); its Begin does nothing. remote says
// the server runs on another machine than the client and was not started by
// fairbench. measure.Run leaves it out of a dry run (no server), whose
// verdict on this machine, Probe.End's, stands.
func VerdictObserver(remote bool) Observer { return verdictObserver{remote} }

// verdictObserver judges the observation of the phase.
type verdictObserver struct{ remote bool }

func (verdictObserver) Begin(context.Context) {}

func (v verdictObserver) End(_ context.Context, o *Observation) {
	Judge(o.Observed, v.remote, o.Transactions)
}
