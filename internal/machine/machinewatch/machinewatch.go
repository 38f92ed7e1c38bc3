// Package machinewatch describes and observes the machines a database server
// runs on, for one measured run of `fairbench run` or a suite cell: it is the
// measure.MachineObserver of both.
//
// The machines come from the fairbench agents named with --server-agent
// (source "agent"; the agents alone describe the server then), or else from
// servermachine.Resolve: this machine for a local server (source "local",
// with the server process's CPU list), --server-machine files or the
// --server-* flags. Agent machines are observed through their agents'
// counters, local machines through this machine's /proc (hostcounters, with
// the server process); machines described by a file or flags are not
// observed (no entry in observed.server_machines).
//
// Snapshots are taken when the measured phase begins and when it ends; an
// agent's are also taken at every interval and every TickInterval, in the
// background, keeping only the latest good one, so that an agent that stops
// answering mid-run still yields figures for the time it answered, with a
// note saying so. This machine's /proc is read at the phase's ends only: its
// last reading cannot fail for want of an answer, and reading it every
// second cost the client CPU during the run that nobody saw.
package machinewatch

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/record/result"
)

// SnapshotTimeout bounds one reading of an agent's counters during the run.
const SnapshotTimeout = 2 * time.Second

// TickInterval is how often the agents' machines are read during the phase,
// besides at every reported interval, so that a machine that stops answering
// still has recent figures without --report-interval.
const TickInterval = time.Second

// Options say where the server's machines come from.
type Options struct {
	// Spec is the --server-* description (or a plan's server_machine).
	Spec servermachine.Spec
	// Agents are the --server-agent endpoints; when given they alone
	// describe the server.
	Agents []agent.Endpoint
	// Discovered are agents found through Kubernetes (Discover); when given
	// they alone describe the server, as Agents do, with source kubernetes.
	Discovered *Discovered
	// Token is the agents' token ("" for none).
	Token string
	// ManagedPID is the PID of the server fairbench started (0: none).
	ManagedPID int
	// FoundPID is the server's process as the client-CPU check found it
	// (clientcpus.Server.PID; 0: none): not searched for again.
	FoundPID int
	// FS is the file system local machines are read from (nil: "/").
	FS fs.FS
}

// TargetError says the server's machines could not be described as asked
// (an agent that does not answer): nothing was run.
type TargetError struct{ Err error }

func (e *TargetError) Error() string { return e.Err.Error() }
func (e *TargetError) Unwrap() error { return e.Err }

// Watch describes and observes the server's machines of one target; it
// implements measure.MachineObserver. Describe, Begin and End are called by
// one goroutine at a time; Interval may run alongside them.
type Watch struct {
	machines []result.ServerMachine
	notes    []string
	watched  []*watched
	stopTick func() // stops Begin's ticker
}

// watched is one machine being observed.
type watched struct {
	index int // in machines
	what  string
	read  func(ctx context.Context) (hostcounters.Snapshot, error)
	// interim says the machine is read during the phase too (an agent,
	// which may stop answering); this machine's /proc is read at the
	// phase's ends only.
	interim bool

	mu        sync.Mutex
	begun     chan struct{} // closed when begin is read (or failed)
	begin     *hostcounters.Snapshot
	beginErr  error
	beganAt   time.Time
	latest    *hostcounters.Snapshot // the latest good interval snapshot
	inFlight  bool
	lastError error
}

// Prepare describes the server's machines of the target cfg as opts say.
// An agent that does not answer, or a description that does not fit, is an
// error: the run must not start. A *TargetError is the agent's (a target
// problem), any other error the user's input.
func Prepare(ctx context.Context, cfg driver.Config, opts Options) (*Watch, error) {
	w := &Watch{}
	if opts.FS == nil {
		opts.FS = os.DirFS("/")
	}
	if len(opts.Agents) > 0 || opts.Discovered != nil {
		if err := CheckSpec(opts.Spec); err != nil {
			return nil, err
		}
		for _, ep := range opts.Agents {
			if err := w.addAgent(ctx, ep.URL, opts.Token, ep.Role, "", result.ServerSourceAgent,
				fmt.Sprintf("leave out %s %s to run without the server machine's figures", FlagName(KeyAgents), ep.URL)); err != nil {
				return nil, err
			}
		}
		if d := opts.Discovered; d != nil {
			for _, a := range d.Agents {
				if err := w.addAgent(ctx, a.URL, opts.Token, result.RoleServer, a.Node, result.ServerSourceKubernetes,
					"the agent answered a moment ago, during discovery: try again"); err != nil {
					return nil, err
				}
			}
			w.notes = append(w.notes, d.missingNotes()...)
		}
		return w, nil
	}
	machines, notes, err := servermachine.Env{FS: opts.FS}.Resolve(ctx, opts.Spec, servermachine.Target{Config: cfg, ManagedPID: opts.ManagedPID, FoundPID: opts.FoundPID})
	if err != nil {
		return nil, err
	}
	w.machines, w.notes = machines, notes
	for i, m := range machines {
		if m.Source != result.ServerSourceLocal {
			continue
		}
		r := hostcounters.NewReader(opts.FS, m.PID)
		w.watched = append(w.watched, &watched{index: i, what: "this machine", read: func(context.Context) (hostcounters.Snapshot, error) { return r.Read() }})
	}
	return w, nil
}

// CheckSpec refuses a description of the server's machines (a plan's
// server_machine, run's --server-machine, --server-pid, --server-role and
// --server-* flags) beside agents, which describe the machines themselves.
func CheckSpec(s servermachine.Spec) error {
	if len(s.Files) > 0 || s.Describes() || s.PID != 0 || s.Role != "" {
		return fmt.Errorf("the agents (%s, %s) describe the server's machines themselves: leave out --server-machine, --server-pid, --server-role and the --server-* description flags (or the agents)",
			FlagName(KeyAgents), FlagName(KeyService))
	}
	return nil
}

// addAgent fingerprints the machine of the agent at url and observes it
// through the agent's counters; an agent that does not answer is a
// *TargetError, with hint saying what to do.
func (w *Watch) addAgent(ctx context.Context, url, token, role, node, source, hint string) error {
	c := &agent.Client{URL: url, Token: token}
	m, err := c.Machine(ctx)
	if err != nil {
		return &TargetError{fmt.Errorf("%w; nothing was run (%s)", err, hint)}
	}
	m.Role, m.Source, m.Agent = role, source, url
	if node != "" {
		m.Node = node
	}
	w.machines = append(w.machines, m)
	rc := &agent.Client{URL: url, Token: token, Timeout: SnapshotTimeout}
	w.watched = append(w.watched, &watched{index: len(w.machines) - 1, what: "agent " + url, read: rc.Counters, interim: true})
	return nil
}

// Machines are the machines described, in order.
func (w *Watch) Machines() []result.ServerMachine { return w.machines }

// Describe returns the machines Prepare described and its warnings.
func (w *Watch) Describe(context.Context) ([]result.ServerMachine, []string) {
	return w.machines, w.notes
}

// Begin starts reading each observed machine's first snapshot, in the
// background (End waits for it), and reading the agents' every TickInterval
// until End.
func (w *Watch) Begin(ctx context.Context) {
	if len(w.watched) == 0 {
		return
	}
	w.stop()
	if slices.ContainsFunc(w.watched, func(m *watched) bool { return m.interim }) {
		ticker := time.NewTicker(TickInterval)
		done := make(chan struct{})
		w.stopTick = func() { ticker.Stop(); close(done) }
		go func() {
			for {
				select {
				case <-ticker.C:
					w.tick()
				case <-done:
					return
				}
			}
		}()
	}
	for _, m := range w.watched {
		m.mu.Lock()
		m.begun = make(chan struct{})
		m.begin, m.beginErr, m.latest, m.lastError = nil, nil, nil, nil
		m.beganAt = time.Now()
		m.mu.Unlock()
		go func() {
			defer close(m.begun)
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SnapshotTimeout)
			defer cancel()
			s, err := m.read(rctx)
			m.mu.Lock()
			defer m.mu.Unlock()
			if err != nil {
				m.beginErr = err
				return
			}
			m.begin = &s
		}()
	}
}

// Interval starts reading a snapshot of each agent's machine in the
// background, unless the previous one is still being read; the latest good
// one is kept for End, should the last reading fail. Warm-up intervals are
// ignored (the phase has not begun).
func (w *Watch) Interval(iv result.Interval) {
	if !iv.Warmup {
		w.tick()
	}
}

// stop stops Begin's ticker, if it runs.
func (w *Watch) stop() {
	if w.stopTick != nil {
		w.stopTick()
		w.stopTick = nil
	}
}

// tick starts reading a snapshot of each agent's machine whose previous
// reading is done.
func (w *Watch) tick() {
	for _, m := range w.watched {
		if !m.interim {
			continue
		}
		m.mu.Lock()
		if m.begun == nil || m.inFlight {
			m.mu.Unlock()
			continue
		}
		m.inFlight = true
		m.mu.Unlock()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), SnapshotTimeout)
			defer cancel()
			s, err := m.read(ctx)
			m.mu.Lock()
			defer m.mu.Unlock()
			m.inFlight = false
			if err != nil {
				m.lastError = err
				return
			}
			m.latest = &s
		}()
	}
}

// End reads each observed machine's last snapshot and returns what it did
// over the phase, with notes for what could not be read. It never fails: a
// machine whose last reading fails is judged on its latest good interval
// snapshot, and the entry's note says which part of the phase it covers.
func (w *Watch) End(ctx context.Context) ([]result.ObservedServerMachine, []string) {
	w.stop()
	var out []result.ObservedServerMachine
	var notes []string
	for _, m := range w.watched {
		if m.begun == nil {
			continue
		}
		select {
		case <-m.begun:
		case <-ctx.Done():
		}
		rctx, cancel := context.WithTimeout(ctx, SnapshotTimeout)
		end, err := m.read(rctx)
		cancel()
		phase := time.Since(m.beganAt)
		machine := w.machines[m.index]
		entry := result.ObservedServerMachine{Role: machine.Role, Source: machine.Source}
		m.mu.Lock()
		begin, beginErr, latest := m.begin, m.beginErr, m.latest
		m.mu.Unlock()
		var note string
		switch {
		case begin == nil:
			why := "it did not answer in time"
			if beginErr != nil {
				why = beginErr.Error()
			}
			note = fmt.Sprintf("%s: the snapshot at the start of the phase could not be read (%s): the %s machine was not observed", m.what, why, machine.Role)
		case err == nil:
			entry = fill(hostcounters.Delta(*begin, end, machine.CPUList), machine)
		case latest != nil && latest.MonotonicNs > begin.MonotonicNs:
			entry = fill(hostcounters.Delta(*begin, *latest, machine.CPUList), machine)
			covered := float64(latest.MonotonicNs-begin.MonotonicNs) / 1e9
			note = fmt.Sprintf("%s stopped answering %s s into the %s s phase: its figures cover the first %s s (%v)",
				m.what, secs(covered), secs(phase.Seconds()), secs(covered), err)
		default:
			note = fmt.Sprintf("%s stopped answering during the phase, before any snapshot after its start (%v): the %s machine was not observed", m.what, err, machine.Role)
		}
		if note != "" {
			if entry.Note != "" {
				entry.Note = note + "; " + entry.Note
			} else {
				entry.Note = note
			}
			notes = append(notes, note)
		}
		out = append(out, entry)
	}
	return out, notes
}

// fill sets an observed entry's role and source from its machine.
func fill(o result.ObservedServerMachine, m result.ServerMachine) result.ObservedServerMachine {
	o.Role, o.Source = m.Role, m.Source
	return o
}

// secs renders seconds whole ("12"), or with one decimal under 10 s.
func secs(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.1f", s)
	}
	return fmt.Sprintf("%.0f", math.Round(s))
}
