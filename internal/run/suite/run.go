package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/run/setup"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Options are the choices of one `fairbench suite run`.
type Options struct {
	// Dir is the suite directory: a result file per cell and the manifest.
	Dir string
	// Resume continues the suite in Dir with the cells not completed.
	Resume bool
	// Scale is the factor the plan was scaled by (recorded; 1 = as written).
	Scale float64
	// Out receives progress and tables.
	Out io.Writer
	// Terminal says Out is a terminal: the progress of a long step (loading,
	// warm-ups, opening connections) is redrawn in place there, and printed
	// as a line every ProgressEvery otherwise.
	Terminal bool
	// ProgressEvery is how often a long step shows its progress (0: every
	// 500 ms on a terminal, every 10 s otherwise).
	ProgressEvery time.Duration
	// Tool and CommandLine are recorded in every result.
	Tool        result.Tool
	CommandLine []string
	// Watch, when set, is told what the suite does as it does it (live
	// metrics); its methods are called from the suite's goroutines.
	Watch Watcher
	// Client places this process among the plan's coordinated clients
	// (--client-id, --run-id); required by a plan with clients:, refused
	// without.
	Client *ClientOptions
	// ClientCPUs is the client's CPUs as decided and checked for this
	// process (clientcpus.Resolve of the plan's run.client_cpus or
	// --client-cpus), which runs pinned to them: recorded in every cell's
	// options, and its warnings in every result.
	ClientCPUs clientcpus.Decision
	// Agents are the agents Plan.DiscoverAgents found before the suite
	// began (nil: none asked for); every cell's server machines are theirs.
	Agents *machinewatch.Discovered
}

// Watcher follows a running suite.
type Watcher interface {
	// Phase names what the suite does now: a step ("prepare", "checksum
	// warm-up", "query warm-up", "server start", "sleep"), "wait for
	// clients" (coordinated clients meeting), "warmup" or "measure" within a
	// cell, or "done".
	Phase(name string)
	// Cell says a cell begins: its position, the number of cells, its id,
	// workload, thread count and event kinds (TPC-C's transactions).
	Cell(index, cells int, id, workload string, threads int, kinds []string)
	// Interval is every interval of a running cell (warm-up ones marked)
	// with its latency histogram, which it may only read during the call.
	Interval(iv result.Interval, lat *metrics.Latency)
}

// noWatch is the Watcher of a suite nobody watches.
type noWatch struct{}

func (noWatch) Phase(string)                                 {}
func (noWatch) Cell(int, int, string, string, int, []string) {}
func (noWatch) Interval(result.Interval, *metrics.Latency)   {}

// StepLogName is the file in a suite directory that receives the steps'
// per-table lines (tables created and loaded, warmed, dropped).
const StepLogName = "steps.log"

// ErrInterrupted is returned when the context was cancelled: the manifest is
// written and the partial cell kept, marked interrupted.
var ErrInterrupted = errors.New("suite interrupted")

// TargetError says the target or the managed server was unusable, so no cell
// could run.
type TargetError struct{ Err error }

func (e *TargetError) Error() string { return e.Err.Error() }
func (e *TargetError) Unwrap() error { return e.Err }

// CellsFailedError says the suite ran to its end but some cells failed.
type CellsFailedError struct{ Failed, Total int }

func (e *CellsFailedError) Error() string {
	return fmt.Sprintf("%d of %d cells failed: their results are kept, marked failed (see the manifest's errors); fix the cause and run again with --resume to re-run only them", e.Failed, e.Total)
}

// Run executes the plan (validated and scaled) into opts.Dir, or resumes it.
// The manifest is rewritten after every step; results are never lost.
func Run(ctx context.Context, p *Plan, env Env, opts Options) (*suitedir.Manifest, error) {
	if opts.Scale == 0 {
		opts.Scale = 1
	}
	s := &session{plan: p, env: env, opts: opts, out: opts.Out}
	if s.out == nil {
		s.out = io.Discard
	}
	if s.opts.Watch == nil {
		s.opts.Watch = noWatch{}
	}
	if err := p.CheckClient(opts.Client, time.Now()); err != nil {
		return nil, err
	}
	if err := s.open(ctx); err != nil {
		return s.m, err
	}
	logFile, err := os.OpenFile(filepath.Join(opts.Dir, StepLogName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return s.m, fmt.Errorf("opening the step log: %w", err)
	}
	defer logFile.Close()
	s.stepLog = logFile
	err = s.startClient(ctx)
	if err == nil {
		err = s.run(ctx)
	}
	err = s.endClient(ctx, err)
	s.opts.Watch.Phase("done")
	return s.m, s.finish(ctx, err)
}

// session is one `suite run` process working through a suite directory.
type session struct {
	plan *Plan
	env  Env
	opts Options
	out  io.Writer
	m    *suitedir.Manifest
	// stepLog receives the steps' per-table lines (StepLogName in the directory).
	stepLog io.Writer
	// lastRun is the last cell this session ran (for change-over sleeps).
	lastRun *suitedir.Cell
	// started is when this session's first cell began, for the ETA.
	started   time.Time
	cellsDone int
	// co meets the other clients of a plan with clients: (nil without).
	co *coordinator
	// prepared holds the (profile, data set) pairs this session prepared: a
	// server_cpus sweep restarts the server on the same data, which is not
	// prepared again.
	prepared map[dataKey]bool
}

// dataKey is a data set under a server profile.
type dataKey struct {
	profile string
	dataset int
}

// CheckDir says whether Run could open opts.Dir for p — a new suite directory
// this process may create, or a suite to resume that the plan matches —
// without creating anything, so that a command refuses before it connects.
func CheckDir(p *Plan, opts Options) error {
	if opts.Scale == 0 {
		opts.Scale = 1
	}
	_, err := checkDir(p, opts)
	return err
}

// checkDir reads the manifest of a suite to resume and checks it against the
// plan, or checks that a new suite directory can be made; it returns the
// manifest read (nil for a new suite).
func checkDir(p *Plan, opts Options) (*suitedir.Manifest, error) {
	dir := opts.Dir
	cells := p.Expand()
	existing, err := suitedir.ReadManifest(dir)
	switch {
	case err == nil && !opts.Resume:
		return nil, fmt.Errorf("%s holds a suite already (%s): continue it with --resume, or give another --out directory", dir, existing.Plan.Name)
	case err != nil && opts.Resume:
		return nil, fmt.Errorf("cannot resume: %w", err)
	case err != nil:
		if err := outfile.CheckDir(dir); err != nil {
			return nil, fmt.Errorf("the suite directory (--out): %w", err)
		}
		return nil, nil
	}
	if existing.Plan.Hash != p.Hash() {
		return nil, fmt.Errorf("cannot resume %s: the plan file changed since the suite started (it was %s with SHA-256 %.12s…, now %.12s…): resume with the plan as it was, or start a new suite with another --out", dir, existing.Plan.File, existing.Plan.Hash, p.Hash())
	}
	if existing.Plan.Scale != opts.Scale {
		return nil, fmt.Errorf("cannot resume %s: it ran with --scale %v, not %v: give --scale %v", dir, existing.Plan.Scale, opts.Scale, existing.Plan.Scale)
	}
	if len(existing.Cells) != len(cells) {
		return nil, fmt.Errorf("cannot resume %s: its manifest has %d cells but the plan expands to %d (thread counts from 'auto' depend on the CPUs): resume on the same machine", dir, len(existing.Cells), len(cells))
	}
	for i := range cells {
		if existing.Cells[i].ID != cells[i].ID {
			return nil, fmt.Errorf("cannot resume %s: cell %d is %s in the manifest but %s in the plan: resume on the same machine", dir, i+1, existing.Cells[i].ID, cells[i].ID)
		}
	}
	if err := p.checkSweepSets(existing); err != nil {
		return nil, fmt.Errorf("cannot resume %s: %w", dir, err)
	}
	if c := opts.Client; c != nil && (existing.Client == nil || existing.Client.ID != c.ID) {
		was := "ran without --client-id"
		if existing.Client != nil {
			was = fmt.Sprintf("is client %d's", existing.Client.ID)
		}
		return nil, fmt.Errorf("cannot resume %s as client %d: the directory %s: resume it with its own --client-id, or give this client's directory with --out", dir, c.ID, was)
	}
	return existing, nil
}

// open creates the directory and manifest, or reads them to resume.
func (s *session) open(ctx context.Context) error {
	p, dir := s.plan, s.opts.Dir
	existing, err := checkDir(p, s.opts)
	switch {
	case err != nil:
		return err
	case existing != nil:
		s.m = existing
	default:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating the suite directory: %w", err)
		}
		s.m = &suitedir.Manifest{
			Schema:  suitedir.ManifestSchema,
			Tool:    s.opts.Tool,
			Plan:    suitedir.PlanRecord{Name: p.Name, File: p.File(), Hash: p.Hash(), Scale: s.opts.Scale, Text: string(p.Text())},
			Created: time.Now().UTC(),
			Machine: measure.ClientMachine(),
		}
		for _, c := range p.Expand() {
			s.m.Cells = append(s.m.Cells, suitedir.CellRecord{Cell: c, Status: suitedir.StatusPending})
		}
		s.m.Skipped = p.Skipped()
	}
	if c := s.opts.Client; c != nil {
		if s.m.Client == nil {
			s.m.Client = &suitedir.ClientRecord{ID: c.ID}
		}
		s.m.Client.Of, s.m.Client.RunID, s.m.Client.WaitSeconds = p.Clients.Count, c.RunID, p.Clients.Wait.D().Seconds()
		s.m.Client.RunIDs = append(s.m.Client.RunIDs, c.RunID)
	}
	s.m.Sessions++
	s.m.Status = suitedir.StatusRunning
	return s.m.Write(dir)
}

// run works through the groups of cells.
func (s *session) run(ctx context.Context) error {
	todo := s.pending()
	if s.co != nil {
		var err error
		if todo, err = s.agree(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(s.out, "Suite %s: %d cells, %d to run, in %s\n", s.plan.Name, len(s.m.Cells), len(todo), s.opts.Dir)
	writeSkipped(s.out, s.m.Skipped)
	// One server (or connection target) per profile and CPU set: the data
	// sets of a profile run one after another against the same server; a
	// server_cpus sweep restarts it on each set.
	var (
		tg      *target
		stop    = func() {}
		connErr error
	)
	defer func() { stop() }()
	gs := groups(todo)
	for i, g := range gs {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if i == 0 || !sameServer(gs[i-1].Cells[0], g.Cells[0]) {
			stop()
			tg, stop = nil, func() {}
			if tg, stop, connErr = s.connect(ctx, g); connErr != nil {
				tg, stop = nil, func() {}
				if s.plan.Steps.OnFailure == OnFailureStop || s.plan.Server == nil {
					s.failCells(g.Cells, connErr)
					return &TargetError{connErr}
				}
			}
		}
		if tg == nil { // this profile's server did not start: its cells fail, the next profile runs
			s.failCells(g.Cells, connErr)
			continue
		}
		if err := s.runGroup(ctx, g, tg, lastOfData(gs, i)); err != nil {
			return err
		}
	}
	return nil
}

// lastOfData reports whether gs[i] is the last group of its profile and data
// set (a server_cpus sweep runs a data set on several servers): the data is
// dropped after it.
func lastOfData(gs []group, i int) bool {
	for _, g := range gs[i+1:] {
		if g.Profile == gs[i].Profile && g.Dataset == gs[i].Dataset {
			return false
		}
	}
	return true
}

// pending returns the cells that are not complete.
func (s *session) pending() []suitedir.Cell {
	var out []suitedir.Cell
	for _, c := range s.m.Cells {
		if c.Status != suitedir.StatusComplete {
			out = append(out, c.Cell)
		}
	}
	return out
}

// finish writes the final manifest and turns the outcome into the error to return.
func (s *session) finish(ctx context.Context, runErr error) error {
	counts := s.m.Counts()
	switch {
	case ctx.Err() != nil || errors.Is(runErr, ErrInterrupted):
		s.m.Status = suitedir.StatusInterrupted
		runErr = ErrInterrupted
	case runErr != nil:
		s.m.Status = suitedir.StatusFailed
	case counts[suitedir.StatusComplete] == len(s.m.Cells):
		s.m.Status = suitedir.StatusComplete
	default:
		s.m.Status = suitedir.StatusFailed
		runErr = &CellsFailedError{Failed: len(s.m.Cells) - counts[suitedir.StatusComplete], Total: len(s.m.Cells)}
	}
	if err := s.m.Write(s.opts.Dir); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintln(s.out)
	WriteTables(s.out, s.m)
	return runErr
}

// target is an open connection target for a group of cells, with the
// error policy of its driver (Target.Ignore).
type target = measure.Target

// runGroup prepares and warms a data set on tg, then runs its cells, and
// drops the data set after them when the plan says so and last is set.
func (s *session) runGroup(ctx context.Context, g group, tg *target, last bool) error {
	p := s.plan
	var coord *CoordinationError
	if err := s.groupSteps(ctx, g, tg); err != nil {
		switch {
		case ctx.Err() != nil || errors.Is(err, ErrInterrupted):
			return ErrInterrupted
		case errors.As(err, &coord):
			return err
		}
		s.failCells(g.Cells, err)
		return &TargetError{err}
	}
	for _, c := range g.Cells {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		at, err := s.cellStart(ctx, c, tg)
		if err != nil {
			switch {
			case ctx.Err() != nil || errors.Is(err, ErrInterrupted):
				return ErrInterrupted
			case errors.As(err, &coord):
				return err
			}
			s.failCells([]suitedir.Cell{c}, err)
			if p.Steps.OnFailure == OnFailureStop {
				return err
			}
			continue
		}
		rec := s.runCell(ctx, c, tg, at)
		switch {
		case rec.Status == suitedir.StatusInterrupted:
			return ErrInterrupted
		case rec.Status == suitedir.StatusFailed && p.Steps.OnFailure == OnFailureStop:
			return fmt.Errorf("cell %s failed and the plan says on_failure: stop: %s", c.ID, rec.Error)
		}
	}
	if !last {
		return nil
	}
	return s.cleanupGroup(ctx, g, tg)
}

// cleanup drops the group's data set; a failure is told, not fatal.
func (s *session) cleanup(ctx context.Context, g group, tg *target) {
	p := s.plan
	wl, _, err := p.newWorkload(s.env.Registry, p.Matrix.Workloads[0], p.Data[g.Dataset])
	if err == nil {
		err = s.step(g, "cleanup", func() (string, error) { return "dropped the data set", wl.Cleanup(ctx, tg.Driver, s.stepLog) })
	}
	if err != nil {
		fmt.Fprintf(s.out, "cleanup failed: %v\n", err)
	}
}

// connect starts the group's server profile when the plan owns one, opens the
// driver and fingerprints the server.
func (s *session) connect(ctx context.Context, g group) (*target, func(), error) {
	p := s.plan
	cfg, ignore, err := p.TargetConfig(s.env.Getenv)
	if err != nil {
		return nil, nil, err
	}
	stop := func() {}
	var managed *result.ManagedServer
	srvPID := 0
	if p.Server != nil {
		srv, err := s.startServer(ctx, g)
		if err != nil {
			return nil, nil, err
		}
		served := srv.DriverConfig()
		served.Prepared = cfg.Prepared
		cfg = served
		m := srv.Managed
		managed = &m
		srvPID = srv.PID
		stop = func() {
			// Stop even when ctx is cancelled: a suite never leaves its server running.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			if err := localserver.Stop(sctx, srv.Dir); err != nil {
				fmt.Fprintf(s.out, "stopping the %s server in %s: %v\n", srv.Flavor, srv.Dir, err)
			}
		}
	}
	managedPID := 0
	if managed != nil {
		managedPID = srvPID
	}
	machines, err := p.machineWatch(ctx, cfg, managedPID, s.env.Getenv, s.opts.Agents)
	if err != nil {
		stop()
		return nil, nil, err
	}
	tg, err := measure.Open(ctx, cfg, measure.OpenOptions{
		OnSlow:       func() { fmt.Fprintf(s.out, "connecting to %s (timeout %s) ...\n", cfg.Describe(), cfg.Timeout()) },
		Machines:     machines,
		IgnoreErrors: ignore,
	})
	var pe *measure.PolicyError
	switch {
	case errors.As(err, &pe):
		stop()
		return nil, nil, p.errAt("target.ignore_errors", "%v", pe.Err)
	case err != nil:
		stop()
		return nil, nil, err
	}
	tg.Managed = managed
	if p.Server != nil { // a target was checked before the suite began (Preflight)
		cctx, cancel := context.WithTimeout(ctx, measure.ConnectTimeout)
		defer cancel()
		if err := runner.Preflight(cctx, tg.Driver, p.connectionsPerClient()); err != nil {
			tg.Close()
			stop()
			return nil, nil, fmt.Errorf("the %s server with profile %s: %w", p.Server.Flavor, g.Profile, err)
		}
	}
	s.recordServer(g.Profile, tg)
	return tg, func() { tg.Close(); stop() }, nil
}

// startServer starts the plan's server with the group's profile, sized for the
// largest data set.
func (s *session) startServer(ctx context.Context, g group) (*localserver.Server, error) {
	p := s.plan
	bytes := p.dataBytes()
	flavor, _ := localserver.ParseFlavor(p.Server.Flavor)
	profile, _ := localserver.ParseProfile(g.Profile)
	var srv *localserver.Server
	err := s.step(g, "server start", func() (string, error) {
		var err error
		srv, err = localserver.Start(ctx, localserver.Options{
			Flavor: flavor, Profile: profile, Dir: p.Server.Dir, Port: p.Server.Port,
			DataBytes: bytes, Settings: p.Server.Settings, CPUs: p.serverCPUs(g.Cells[0]),
		})
		if err != nil {
			return "", err
		}
		detail := fmt.Sprintf("%s %s on port %d, socket %s", srv.Flavor, srv.Profile, srv.Port, srv.Socket)
		if ss := p.setOf(g.Cells[0]); ss.count > 0 {
			detail += ", every thread on " + ss.describe()
		} else if list := srv.Managed.CPUList; list != "" {
			detail += ", every thread on CPUs " + list
		}
		return detail, nil
	})
	if err != nil {
		return nil, fmt.Errorf("starting the %s server with profile %s: %w", p.Server.Flavor, g.Profile, err)
	}
	fmt.Fprintf(s.out, "Server configuration (%s):\n%s\n", g.Profile, srv.Managed.Config)
	return srv, nil
}

// recordServer keeps the server fingerprint of a profile (and, in a
// server_cpus sweep, of each CPU set) in the manifest.
func (s *session) recordServer(profile string, tg *target) {
	rec := suitedir.ServerRecord{Profile: profile, Server: tg.Server, Managed: tg.Managed}
	for i := range s.m.Servers {
		if s.m.Servers[i].Profile == profile && cpuList(s.m.Servers[i].Managed) == cpuList(tg.Managed) {
			s.m.Servers[i] = rec
			return
		}
	}
	s.m.Servers = append(s.m.Servers, rec)
}

// cpuList is a managed server's CPU list ("" when unpinned or not managed).
func cpuList(m *result.ManagedServer) string {
	if m == nil {
		return ""
	}
	return m.CPUList
}

// step runs one step outside the cells, records it and prints a line.
func (s *session) step(g group, name string, fn func() (string, error)) error {
	start := time.Now()
	s.opts.Watch.Phase(name)
	fmt.Fprintf(s.out, "-- %s\n", name)
	fmt.Fprintf(s.stepLog, "-- %s %s\n", time.Now().UTC().Format(time.RFC3339), name)
	detail, err := fn()
	rec := suitedir.StepRecord{Name: name, Profile: g.Profile, Dataset: g.Dataset, Start: start.UTC(), Seconds: time.Since(start).Seconds(), Detail: detail}
	if err != nil {
		rec.Error = err.Error()
		fmt.Fprintf(s.out, "-- %s failed after %.1fs: %v\n", name, rec.Seconds, err)
	} else {
		fmt.Fprintf(s.out, "-- %s done in %.1fs: %s\n", name, rec.Seconds, detail)
	}
	s.m.Steps = append(s.m.Steps, rec)
	if werr := s.m.Write(s.opts.Dir); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// display returns the progress display of the suite's output, indented
// under the step or cell it belongs to.
func (s *session) display() *progress.Display {
	return &progress.Display{W: s.out, Terminal: s.opts.Terminal, Every: s.opts.ProgressEvery, Indent: "   "}
}

// failCells marks cells failed for a reason outside them (no target).
func (s *session) failCells(cells []suitedir.Cell, err error) {
	for _, c := range cells {
		r := &s.m.Cells[c.Index-1]
		r.Status, r.Error = suitedir.StatusFailed, err.Error()
	}
	_ = s.m.Write(s.opts.Dir)
}

// newRand builds the random numbers of a step or a cell (setup.Rand). A
// cell of a coordinated client derives its own seed from run.rand_seed (or
// from the clock); a step runs on the leader alone and keeps the plan's
// seed, as a suite without clients does.
func (s *session) newRand(randType string, cell bool) (*randgen.Factory, error) {
	cfg := randgen.DefaultConfig()
	cfg.Type = randType
	cfg.Seed = s.plan.Run.RandSeed
	if s.plan.Run.RandZipfianExp > 0 {
		cfg.ZipfianExp = s.plan.Run.RandZipfianExp
	}
	client := setup.NoClient
	if cell && s.co != nil {
		client = s.co.id
	}
	return setup.Rand(cfg, client, time.Now)
}

// runnerConfig is the run configuration of a cell with threads threads
// (setup.RunnerConfig: with tg's error policy; interval histograms for
// coordinated clients).
func (s *session) runnerConfig(threads int, measured, warmup time.Duration, tg *target) runner.Config {
	r := &s.plan.Run
	return setup.RunnerConfig(runner.Config{
		Threads: threads, Duration: measured, Warmup: warmup, Rate: r.Rate,
		// Every interval reaches the Watcher (the suite prints no interval lines).
		ReportInterval: r.ReportInterval.D(), SeriesInterval: r.ReportInterval.D(), Percentiles: r.Percentiles,
		ReconnectTimeout: r.ReconnectTimeout.D(),
		ConnectRate:      r.ConnectRate,
		ConnectPerEvent:  r.ConnectPerEvent,
		Jobs:             r.Jobs,
		Drain:            r.drain,
	}, tg.Ignore, s.opts.Client != nil)
}

// runCell runs one cell, writes its result and updates the manifest.
func (s *session) runCell(ctx context.Context, c suitedir.Cell, tg *target, at cellSync) suitedir.CellRecord {
	p := s.plan
	rec := &s.m.Cells[c.Index-1]
	s.keepAttempt(rec)
	fmt.Fprintf(s.out, "[%*d/%d] %-40s %s\n", len(fmt.Sprint(len(s.m.Cells))), c.Index, len(s.m.Cells), c.ID, s.eta())

	start := time.Now()
	if s.cellsDone == 0 {
		s.started = start // the pace counts cells only, not loading and warm-ups
	}
	rec.Status, rec.Start, rec.Error, rec.Summary = suitedir.StatusRunning, start.UTC(), "", nil
	rec.StartAt, rec.ClockOffsetMs = time.Time{}, 0
	if at.client != nil {
		rec.StartAt, rec.ClockOffsetMs = at.client.StartAt, ms(at.offset)
	}
	rec.File = c.FileName()
	_ = s.m.Write(s.opts.Dir)

	wl, fs, err := p.newWorkload(s.env.Registry, c.Workload, p.Data[c.Dataset])
	var rng *randgen.Factory
	if err == nil {
		rng, err = s.newRand(c.RandType, true)
	}
	// What the database holds is read before the run, as `run` does: data
	// other than the data set describes fails the cell before it starts.
	var data workload.DataReport
	if err == nil {
		switch data, err = setup.InspectData(ctx, tg, wl); {
		case errors.Is(err, setup.ErrInterrupted):
			err = nil // the run below ends at once and says so
		case err != nil:
			err = fmt.Errorf("the data set: %w", err)
		}
	}
	if err == nil {
		data.Print(s.out, "  ", false) // the checks are in the result; a line per cell would drown the table
	}
	if err != nil {
		rec.Status, rec.Error, rec.File = suitedir.StatusFailed, err.Error(), ""
		_ = s.m.Write(s.opts.Dir)
		return *rec
	}
	rcfg := s.runnerConfig(c.Threads, p.Run.Time.D(), p.Run.WarmupTime.D(), tg)
	var kinds []string
	if k, ok := wl.(workload.Kinded); ok {
		kinds = k.Kinds()
	}
	s.opts.Watch.Cell(c.Index, len(s.m.Cells), c.ID, c.Workload, c.Threads, kinds)
	if rcfg.Warmup > 0 {
		s.opts.Watch.Phase("warmup")
	}
	res, out := measure.Run(ctx, measure.Spec{
		Target: tg, Workload: wl, WorkloadName: c.Workload, Rand: rng, Config: rcfg, Data: data,
		Tool: s.opts.Tool, CommandLine: s.opts.CommandLine, Options: s.cellOptions(fs, rcfg, rng.Config()),
		Machine: s.cellMachine(), Client: at.client,
		SharedCPUs: s.opts.ClientCPUs.Shared, Warnings: s.opts.ClientCPUs.Warnings,
		Suite: &result.SuiteCell{Plan: p.Name, PlanHash: p.Hash(), Cell: c.ID, Index: c.Index, Round: c.Round, Profile: c.Profile,
			ServerCPUs: p.cellServerCPUs(c)},
		Progress: s.display(), OnIntervalHistogram: s.opts.Watch.Interval,
		OnMeasure: func() { s.opts.Watch.Phase("measure") },
	})

	rec.Seconds = time.Since(start).Seconds()
	rec.Status = string(out.Status)
	if out.Status == result.StatusFailed && out.Err != nil {
		rec.Error = out.Err.Error()
	}
	if err := result.Write(filepath.Join(s.opts.Dir, rec.File), res); err != nil {
		rec.Status = suitedir.StatusFailed
		rec.Error = errors.Join(out.Err, err).Error()
	}
	rec.Summary = suitedir.Summarize(res)
	_ = s.m.Write(s.opts.Dir)
	s.cellsDone++
	fmt.Fprintf(s.out, "%s\n", cellLine(*rec))
	for _, w := range res.Warnings {
		fmt.Fprintf(s.out, "    WARNING: %s\n", w)
	}
	if c.Index < len(s.m.Cells) && !sameTable(c, s.m.Cells[c.Index].Cell) {
		fmt.Fprintln(s.out)
		writeTables(s.out, s.m, func(o suitedir.Cell) bool { return sameTable(c, o) })
	}
	return *rec
}

// keepAttempt moves the file of an earlier, incomplete run of the cell aside,
// so that re-running it never overwrites what was measured.
func (s *session) keepAttempt(rec *suitedir.CellRecord) {
	if rec.File == "" || rec.Status == suitedir.StatusPending {
		return
	}
	old := filepath.Join(s.opts.Dir, rec.File)
	if _, err := os.Stat(old); err != nil {
		return
	}
	status := rec.Status
	if status == suitedir.StatusRunning {
		status = suitedir.StatusInterrupted // the process died mid-cell
	}
	name := fmt.Sprintf("%s.attempt%d-%s.json", trimJSON(rec.File), len(rec.Attempts)+1, status)
	if err := os.Rename(old, filepath.Join(s.opts.Dir, name)); err != nil {
		fmt.Fprintf(s.out, "keeping the earlier attempt of %s: %v\n", rec.ID, err)
		return
	}
	rec.Attempts = append(rec.Attempts, suitedir.Attempt{Status: status, File: name, Error: rec.Error})
}

func trimJSON(name string) string { return name[:len(name)-len(filepath.Ext(name))] }

// cellOptions records the cell's options under the run command's names
// (setup.Options), so that results from suites and from single runs read
// alike: the workload's flags, what the plan asks of the run (rcfg, the
// random numbers rand), the client's CPUs, the agents describing the
// server's machines and the session set-up.
func (s *session) cellOptions(fs *pflag.FlagSet, rcfg runner.Config, rand randgen.Config) map[string]string {
	opts := setup.Options{}
	opts.AddFlags(fs)
	opts.AddRun(rcfg)
	opts.AddRand(rand)
	opts.AddClientCPUs(s.opts.ClientCPUs, s.plan.Run.AllowCPUOverlap)
	s.plan.Target.Sources().Record(opts, s.opts.Agents)
	opts.AddSession(s.plan.Target.Isolation, s.plan.Target.SessionVars)
	return opts
}

// cellMachine is the client machine of a cell: the manifest's, with the
// CPUs this process may use now (a resumed suite may be pinned otherwise).
func (s *session) cellMachine() *result.Machine {
	m := s.m.Machine
	m.CPUList = measure.ClientCPUList()
	return &m
}

// eta estimates the time left from the pace so far (or the plan before the first cell).
func (s *session) eta() string {
	left := 0
	for _, c := range s.m.Cells {
		if c.Status != suitedir.StatusComplete {
			left++
		}
	}
	per := (s.plan.Run.Time + s.plan.Run.WarmupTime).D()
	if s.cellsDone > 0 {
		per = time.Since(s.started) / time.Duration(s.cellsDone)
	}
	d := (per * time.Duration(left)).Round(time.Second)
	return fmt.Sprintf("(%s left, ETA %s)", d, time.Now().Add(d).Format("15:04:05"))
}

// prepThreads is how many loaders a data set uses.
func prepThreads(d Data) int {
	if d.PrepareThreads > 0 {
		return d.PrepareThreads
	}
	return runtime.NumCPU()
}
