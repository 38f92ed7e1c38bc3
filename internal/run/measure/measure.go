// Package measure opens a connection target and runs one measured run on it,
// assembling the result document in one place for `fairbench run` and for
// every cell of `fairbench suite run`: the server's fingerprint and TLS, the
// observation of the measured phase (observe), the runner's figures,
// warnings and outages (runner.Outcome.Fill), the data set found and the
// header fields of result.Result.
//
// What is known of the database server's machines — their fingerprints
// (result.ServerMachines), snapshots of their counters at the phase
// boundaries and at every interval, and what they did
// (result.Observed.ServerMachines) — plugs in here, once, as a
// MachineObserver of the Target (machinewatch.Watch for run and suite). Run
// begins and ends the machine observers of the phase (observe.Observer: the
// client process with this machine and the server's counters, the server's
// machines, and the verdict that judges what they recorded) in one loop each.
package measure

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/observe"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/eventlog"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// ConnectTimeout bounds the first connection of Open.
const ConnectTimeout = 30 * time.Second

// SlowConnect is how long the first connection may take before Open calls
// OpenOptions.OnSlow, so that a wait for an unreachable host is not silence.
const SlowConnect = time.Second

// observeTimeout bounds the last snapshot of the observed phase, taken even
// when the run was interrupted.
const observeTimeout = 10 * time.Second

// MachineObserver watches the machines the database server runs on (schema
// 1.4: result.ServerMachines and result.Observed.ServerMachines);
// machinewatch.Watch implements it. Open and Run call it, when set, at the
// places marked below. Implementations say what
// they could not read in the notes they return rather than failing the run.
type MachineObserver interface {
	// Describe fingerprints the server's machines, once, when the target
	// opens (before any run); notes say what could not be read.
	Describe(ctx context.Context) (machines []result.ServerMachine, notes []string)
	// Interval snapshots them at the end of every interval (warm-up ones
	// marked), from the reporter goroutine; it must return quickly.
	Interval(iv result.Interval)
	// MachineWatch begins with the measured phase (after the warm-up) and
	// ends with it, returning what each machine of Describe did over it, in
	// the same order, and notes (observe.MachinesObserver in Run's list).
	observe.MachineWatch
}

// Target is an open connection target: the driver, its configuration and
// what the server said of itself on the first connection.
type Target struct {
	Config driver.Config
	Driver driver.Driver
	// Server is the server's fingerprint.
	Server result.Server
	// TLS is what the server said of the first connection's encryption (nil
	// for SQLite).
	TLS *result.TLS
	// Session is what the server said of the first connection's session
	// set-up (Config.Isolation, Config.SessionVars); nil when none was asked for.
	Session *result.Session
	// Ignore is the error policy of the driver (OpenOptions.IgnoreErrors):
	// the server errors a run's events roll back and retry.
	Ignore driver.ErrorPolicy
	// Managed is the server fairbench started for the run (suite plans with
	// server:), nil for a server it only connects to. The caller sets it.
	Managed *result.ManagedServer
	// ServerMachines are the machines the server runs on, from
	// Machines.Describe (nil without an observer).
	ServerMachines []result.ServerMachine
	// Machines observes the server's machines during a measured run (nil:
	// none; see MachineObserver).
	Machines MachineObserver
	// machineNotes are what Describe could not read, for each result.
	machineNotes []string
}

// OpenOptions are the choices of Open.
type OpenOptions struct {
	// OnSlow, when set, is called (from another goroutine) when the first
	// connection takes longer than SlowConnect.
	OnSlow func()
	// Machines observes the server's machines (nil: none; see MachineObserver).
	Machines MachineObserver
	// IgnoreErrors is the target's ignore-errors setting as given (the
	// --*-ignore-errors flag, a plan's target.ignore_errors; targetspec.Parse
	// returns it): a comma list of the driver's codes, all, none, or empty
	// for the driver's defaults. It becomes Target.Ignore.
	IgnoreErrors string
}

// PolicyError says the target's ignore-errors setting is not one its driver
// takes (driver.ParseErrorPolicy).
type PolicyError struct{ Err error }

func (e *PolicyError) Error() string { return e.Err.Error() }
func (e *PolicyError) Unwrap() error { return e.Err }

// ConnectError says the first connection to the target failed.
type ConnectError struct {
	Config driver.Config
	Err    error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot connect to %s: %v", e.Config.Describe(), e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// Open opens the driver of cfg with its error policy, connects once (within
// ConnectTimeout) to prove the target works, fingerprints the server, asks
// it whether that connection is encrypted, and describes the server's
// machines when an observer is given. A failed connection is a
// *ConnectError, an ignore-errors setting the driver refuses a
// *PolicyError; an error opening the driver (a configuration it refuses) is
// returned as it is.
func Open(ctx context.Context, cfg driver.Config, opts OpenOptions) (*Target, error) {
	drv, err := open.Driver(cfg)
	if err != nil {
		return nil, err
	}
	ignore, err := driver.ParseErrorPolicy(opts.IgnoreErrors, drv.DefaultIgnorable(), open.ErrorCodeCheck(cfg.Kind))
	if err != nil {
		drv.Close()
		return nil, &PolicyError{err}
	}
	if cfg.DryRun {
		// A dry run reaches no server: there is nothing to prove,
		// fingerprint or observe (Server, TLS, Session and the server's
		// machines stay unknown), and no answer is made up for them.
		return &Target{Config: cfg, Driver: drv, Ignore: ignore}, nil
	}
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	slow := time.AfterFunc(SlowConnect, func() {
		if opts.OnSlow != nil {
			opts.OnSlow()
		}
	})
	conn, err := drv.Connect(cctx, 0)
	slow.Stop()
	if err != nil {
		drv.Close()
		return nil, &ConnectError{Config: cfg, Err: err}
	}
	defer conn.Close()
	t := &Target{Config: cfg, Driver: drv, Machines: opts.Machines, Ignore: ignore}
	t.Server = sysinfo.DetectServer(cctx, cfg.Kind, conn)
	t.TLS = sysinfo.DetectTLS(cctx, cfg.Kind, conn)
	t.Session = sysinfo.DetectSession(cctx, cfg, conn)
	// Extension point: the server's machines are fingerprinted here, once
	// per target, as the server is.
	if t.Machines != nil {
		t.ServerMachines, t.machineNotes = t.Machines.Describe(cctx)
	}
	return t, nil
}

// MachineNotes are what Machines.Describe could not read or find (each
// result's warnings carry them).
func (t *Target) MachineNotes() []string { return t.machineNotes }

// Close closes the driver.
func (t *Target) Close() error { return t.Driver.Close() }

// DryRunNote is the note of a dry run's result (driver.Config.DryRun),
// printed with the others.
const DryRunNote = "dry run (--mysql-dry-run): no server was contacted; the figures measure the client alone"

// Spec is one measured run on an open target.
type Spec struct {
	Target   *Target
	Workload workload.Workload
	// WorkloadName is the workload's name in the result.
	WorkloadName string
	Rand         *randgen.Factory
	Config       runner.Config
	// ThreadDriver, when set, is the driver the run's threads connect with
	// instead of Target.Driver: Target.Driver wrapped (dbdebug for
	// --db-debug). Nil: Target.Driver.
	ThreadDriver driver.Driver
	// Data is what the target held, read before the run
	// (workload.InspectData); it goes to the result.
	Data workload.DataReport

	// Recorded in the result as given.
	Tool        result.Tool
	CommandLine []string
	// Options are the resolved options; Run adds "ignore-errors", the policy
	// the run used.
	Options map[string]string
	// Machine is the client machine; nil reads it (ClientMachine) when the
	// run ends.
	Machine *result.Machine
	// SharedCPUs, when not empty, says the client may have run on the
	// local server's CPUs (clientcpus.Decision.Shared): the result gets a
	// note with the client's share of the machine, ending with it.
	SharedCPUs string
	// Warnings are the caller's, for the result (each was printed).
	Warnings []string
	Client   *result.ClientInfo
	Suite    *result.SuiteCell

	// The runner's callbacks (runner.Deps); OnMeasure is called after the
	// observation of the measured phase has begun.
	OnInterval          func(result.Interval)
	OnIntervalHistogram func(result.Interval, *metrics.Latency)
	OnIntervalKinds     func(result.Interval, []metrics.Kind)
	OnMeasure           func()
	OnCheckpoint        func(result.Checkpoint)
	Progress            *progress.Display
	// EventLog is --event-log (runner.Deps.EventLog); the caller closes it.
	EventLog *eventlog.Log
}

// observersOf are the machine observers of spec's measured run, in the order
// Run begins them when the measured phase begins; it ends them in reverse
// order. The verdict comes first, so that it ends last and judges what the
// others recorded (left out of a dry run, which has no server: Probe.End's
// verdict on this machine stands); the server's machines next (extension
// point: Target.Machines); the client process, this machine and the
// server's counters last, so that their observation ends first.
func observersOf(spec Spec) []observe.Observer {
	t := spec.Target
	var observers []observe.Observer
	serverDriver := t.Driver // the server's counters are read through it
	if t.Config.DryRun {
		serverDriver = nil // none to read: the client's and the machine's figures only
	} else {
		local, _ := servermachine.IsLocal(servermachine.Target{Config: t.Config})
		observers = append(observers, observe.VerdictObserver(!local && t.Managed == nil))
	}
	if t.Machines != nil {
		observers = append(observers, observe.MachinesObserver(t.Machines))
	}
	return append(observers, observe.ProbeObserver(serverDriver, t.Server))
}

// Run runs spec's measured run and returns its result, complete however the
// run ended, with the runner's outcome (its Status and Err say how). The
// machine observers (observe.Observer) begin when the measured phase begins and
// end, in reverse order, when the run returns.
func Run(ctx context.Context, spec Spec) (*result.Result, *runner.Outcome) {
	t := spec.Target
	observers := observersOf(spec)
	begun := false
	deps := runner.Deps{
		Driver:              t.Driver,
		Workload:            spec.Workload,
		Rand:                spec.Rand,
		OnInterval:          spec.OnInterval,
		OnIntervalHistogram: spec.OnIntervalHistogram,
		OnIntervalKinds:     spec.OnIntervalKinds,
		OnCheckpoint:        spec.OnCheckpoint,
		Progress:            spec.Progress,
		EventLog:            spec.EventLog,
		OnMeasure: func() {
			for _, o := range observers {
				o.Begin(ctx)
			}
			begun = true
			if spec.OnMeasure != nil {
				spec.OnMeasure()
			}
		},
	}
	if m := t.Machines; m != nil {
		// Extension point: the server machines' counters at every interval.
		deps.OnInterval = func(iv result.Interval) {
			m.Interval(iv)
			if spec.OnInterval != nil {
				spec.OnInterval(iv)
			}
		}
	}
	if spec.ThreadDriver != nil {
		deps.Driver = spec.ThreadDriver
	}
	out := runner.Run(ctx, spec.Config, deps)

	// The phase's observation ends first, before anything else runs in
	// this process, so that it covers the run and no more: the observers
	// end in reverse order, the verdict last.
	var obs observe.Observation
	if begun {
		obs.Transactions = out.Totals.Counts.Events
		if spec.Client != nil && spec.Client.Of > 1 {
			obs.Transactions *= int64(spec.Client.Of) // the server's flushes are every client's
		}
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), observeTimeout)
		for i := len(observers) - 1; i >= 0; i-- {
			observers[i].End(octx, &obs)
		}
		cancel()
	}
	observed, machineNotes := obs.Observed, obs.MachineNotes
	res := &result.Result{
		Schema:         result.SchemaVersion,
		Tool:           spec.Tool,
		CommandLine:    spec.CommandLine,
		Workload:       spec.WorkloadName,
		Options:        spec.Options,
		Seed:           spec.Rand.Config().Seed,
		Target:         result.TargetOf(t.Config, t.TLS),
		Server:         t.Server,
		ServerMachines: t.ServerMachines,
		ManagedServer:  t.Managed,
		Suite:          spec.Suite,
		Client:         spec.Client,
	}
	if spec.Machine != nil {
		res.Machine = *spec.Machine
	} else {
		res.Machine = ClientMachine()
	}
	if res.Options == nil {
		res.Options = map[string]string{}
	}
	res.Options["ignore-errors"] = spec.Config.Ignore.String()
	res.Target.Session = t.Session
	out.Fill(res, spec.Config, spec.Workload)
	spec.Data.Record(res)
	res.Observed = observed
	res.AddWarning(observe.NoisyWarning(observed))
	for _, n := range append(append([]string(nil), t.machineNotes...), machineNotes...) {
		res.AddWarning("server machines: " + n)
	}
	for _, w := range spec.Warnings {
		res.AddWarning(w)
	}
	if t.Config.DryRun {
		res.AddNote(DryRunNote)
	}
	if spec.SharedCPUs != "" {
		used := "its share of the machine could not be read"
		if observed != nil && observed.Client != nil {
			used = observe.ClientShare(observed.Client)
		}
		res.AddNote(result.SharedCPUsNote + " and " + used + ": " + spec.SharedCPUs)
	}
	return res, out
}

// ClientMachine fingerprints the machine fairbench runs on
// (sysinfo.LocalMachine) with the CPUs fairbench itself may use as its
// cpu_list (cpuset.ProcessList: empty when all of them, as when the client
// is not pinned; the set of --client-cpus when it is).
func ClientMachine() result.Machine {
	m := sysinfo.LocalMachine()
	m.CPUList = ClientCPUList()
	return m
}

// ClientCPUList is the machine's cpu_list for fairbench itself: the CPUs
// this process may use in list form, empty when all of them (or when they
// cannot be read).
func ClientCPUList() string {
	list, _ := cpuset.ProcessList(os.DirFS("/"), os.Getpid())
	return list
}
