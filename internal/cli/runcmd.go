package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/compat/gotpccli"
	"github.com/fairbench/fairbench/internal/compat/gotpcout"
	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/dbdebug"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/livemetrics"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/run/suite"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// parsePercentiles reads the --percentile list (runner.ParsePercentileList,
// which plans' run.percentiles go through too).
func parsePercentiles(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "0" { // sysbench's "no percentiles"; the histogram still has them
		return nil, nil
	}
	out, err := runner.ParsePercentileList(s)
	if err != nil {
		return nil, fmt.Errorf("--percentile=%s: %w", s, err)
	}
	return out, nil
}

// maxReconnectTimeout bounds --reconnect-timeout: longer is a mistake (a
// unit missed) rather than a server expected back.
const maxReconnectTimeout = 24 * time.Hour

// secondsValue is a duration flag written as seconds (30, 2.5) or a Go
// duration ("90s", "2m"), as plans write durations (suite.ParseSeconds); the
// result's options record it in seconds.
type secondsValue time.Duration

// Set parses s.
func (v *secondsValue) Set(s string) error {
	d, err := suite.ParseSeconds(s)
	if err != nil {
		return err
	}
	*v = secondsValue(d)
	return nil
}

// String renders the duration in seconds.
func (v *secondsValue) String() string {
	return strconv.FormatFloat(time.Duration(*v).Seconds(), 'f', -1, 64)
}

// Type names the value in the help.
func (v *secondsValue) Type() string { return "seconds" }

// forcedShutdownValue is --forced-shutdown as given: set when it was, its
// value "" otherwise (the result's options then record it so). Given alone
// or empty it is sysbench's 5 % of --time.
type forcedShutdownValue struct {
	set bool
	v   string
}

// Set records s.
func (f *forcedShutdownValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		s = runner.ForcedShutdownDefault
	}
	f.set, f.v = true, s
	return nil
}

// String is the value as given, "" when it was not.
func (f *forcedShutdownValue) String() string { return f.v }

// Type names the value in the help.
func (f *forcedShutdownValue) Type() string { return "seconds|N%|off" }

// runnerConfig builds and validates the runner configuration from the flags.
func (inv *invocation) runnerConfig(policy driver.ErrorPolicy) (runner.Config, error) {
	f := &inv.run
	pcts, err := parsePercentiles(f.percentiles)
	if err != nil {
		return runner.Config{}, err
	}
	cps, err := runner.ParseCheckpoints(f.checkpoints)
	if err != nil {
		return runner.Config{}, fmt.Errorf("--report-checkpoints=%s: %w", f.checkpoints, err)
	}
	if f.format != "text" && f.format != "json" {
		return runner.Config{}, fmt.Errorf("unknown --format %q: use text or json", f.format)
	}
	var drain runner.Drain
	if f.forcedShutdown.set {
		if drain, err = runner.ParseForcedShutdown(f.forcedShutdown.v, time.Duration(f.time)); err != nil {
			return runner.Config{}, fmt.Errorf("--forced-shutdown=%s: %w", f.forcedShutdown.v, err)
		}
	}
	if f.outputStyle != gotpccli.StyleFairbench {
		pcts = gotpcout.WithPercentiles(pcts) // go-tpc's lines show these
	}
	cfg := runner.Config{
		Threads:          f.threads,
		Duration:         time.Duration(f.time),
		Events:           f.events,
		Warmup:           time.Duration(f.warmup),
		Rate:             f.rate,
		ReportInterval:   time.Duration(f.reportInterval * float64(time.Second)),
		Percentiles:      pcts,
		Ignore:           policy,
		ConnectRate:      f.connectRate,
		ReconnectTimeout: time.Duration(f.reconnectTimeout),
		// Coordinated clients keep interval histograms so that merge gives
		// the merged intervals exact percentiles.
		IntervalHistograms: f.intervalHistograms || f.clients > 0,
		Checkpoints:        cps,
		Drain:              drain,
	}
	if !(f.rate >= 0 && f.rate <= workload.MaxRate) {
		return runner.Config{}, fmt.Errorf("--rate=%v: give 0 (as fast as possible) to %g events per second", f.rate, float64(workload.MaxRate))
	}
	if !(f.reportInterval >= 0 && f.reportInterval <= float64(workload.MaxSeconds)) {
		return runner.Config{}, fmt.Errorf("--report-interval=%v: give 0 (only the summary) to %d seconds", f.reportInterval, workload.MaxSeconds)
	}
	if f.verbosity < 0 || f.verbosity > 5 {
		return cfg, fmt.Errorf("--verbosity=%d: give 0 (errors only) to 5, as sysbench takes it (3, the default, prints everything)", f.verbosity)
	}
	if f.metricsLinger < 0 || math.IsNaN(f.metricsLinger) || math.IsInf(f.metricsLinger, 0) {
		return cfg, fmt.Errorf("--metrics-linger must be a number of seconds, 0 or more, got %v", f.metricsLinger)
	}
	if d := time.Duration(f.reconnectTimeout); d <= 0 || d > maxReconnectTimeout {
		return cfg, fmt.Errorf("--reconnect-timeout must be more than 0 and at most %s (how long a thread tries to replace a lost connection before the run fails), got %s", maxReconnectTimeout, d)
	}
	return cfg, cfg.Validate()
}

// dbDebugWarning is what a --db-debug run says in its output and result.
const dbDebugWarning = "--db-debug printed every statement the threads sent (on stderr): the figures include the cost of printing them; run without it to measure"

// execute is `fairbench run WORKLOAD`.
func (inv *invocation) execute(cmd *cobra.Command) error {
	ctx := cmd.Context()
	a := inv.app
	// Human output goes to stdout, or to stderr when stdout carries the JSON document.
	human := a.Stdout
	if inv.run.format == "json" {
		human = a.Stderr
	}
	// go-tpc's layout has stdout to itself; fairbench's lines go to stderr.
	goTPC, err := inv.goTPCPrinter(a.Stdout)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if goTPC != nil {
		human = a.Stderr
	}
	// Below sysbench's NOTICE level, what sysbench prints at it is left out;
	// warnings are kept down to its WARNING level (runNotes, after the run).
	quiet := inv.run.verbosity < sysbenchNotice
	notes := human
	if quiet {
		human = io.Discard
		if inv.run.verbosity < sysbenchWarning {
			notes = io.Discard
		}
	}
	if inv.run.clients > 0 && inv.rnd.seed != 0 {
		// Coordinated clients given one --rand-seed must not send the same
		// statements: each derives its own seed (recorded in its result).
		inv.rnd.seed = randgen.ClientSeed(inv.rnd.seed, inv.run.clientID)
	}
	rng, err := inv.rnd.factory(time.Now)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	// Validate everything the user typed before touching the target.
	if _, err := inv.runnerConfig(driver.ErrorPolicy{}); err != nil {
		return withCode(ExitUsage, err)
	}
	if inv.coord, err = inv.coordinate(cmd.Flags(), time.Now()); err != nil {
		return withCode(ExitUsage, err)
	}
	// config also checks the --*-ignore-errors codes against the driver.
	cfg, _, err := inv.target.config(cmd.Flags(), a.Getenv)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := inv.run.server.spec.Validate(); err != nil {
		return withCode(ExitUsage, err)
	}
	if _, err := inv.run.server.check(a.Getenv); err != nil {
		return err
	}
	if err := inv.refuseServerMachineFlags(cfg); err != nil {
		return withCode(ExitUsage, err)
	}
	// Fuzzing stops here: past this point commands write files and connect.
	if err := a.connecting(); err != nil {
		return err
	}
	// The client's CPUs are checked before anything starts; a pinned client
	// is this command run again under the mask. A dry run has no server
	// whose CPUs the client should keep off.
	var srv clientcpus.Server
	if !cfg.DryRun {
		if srv, err = (servermachine.Env{}).ServerCPUs(inv.run.server.spec, servermachine.Target{Config: cfg}); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	pin, pinnedRun, err := a.pinClient(inv.run.pin.spec, srv, inv.run.pin.allowOverlap, "--client-cpus")
	if pinnedRun || err != nil {
		return err
	}
	fmt.Fprint(human, describeClientCPUs(pin))
	// The output files are opened now, before connecting: a bad path ends
	// the command at once, not after a long run with the result lost.
	files, err := inv.openOutputs()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer files.abort()
	exp, stopServing, err := inv.serveMetrics(ctx, human)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	ran := false // the metrics linger after a run, not after a mistake
	defer func() { stopServing(ran) }()
	// The server's machines are described before connecting: an agent
	// that does not answer refuses the run before anything runs. A dry run
	// has no server machine: none is described or recorded.
	var found *machinewatch.Discovered
	if !cfg.DryRun {
		machines, discovered, err := inv.run.server.watch(ctx, cfg, srv.PID, a.Getenv, a.Kubernetes, human)
		if err != nil {
			return err
		}
		inv.run.machines, found = machines, discovered
	}
	s, err := inv.openSession(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	policy, err := driver.ParseErrorPolicy(s.ignore, s.drv.DefaultIgnorable(), open.ErrorCodeCheck(s.cfg.Kind))
	if err != nil {
		return withCode(ExitUsage, err)
	}
	rcfg, err := inv.runnerConfig(policy)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if inv.run.forcedShutdown.set && rcfg.Duration == 0 {
		fmt.Fprintln(a.Stderr, "fairbench: note: --forced-shutdown has no effect without --time, as in sysbench: the run ends when its --events have finished")
	}
	// The checks of the server and its tables are a dry run's to skip: it
	// has neither (inspectData records no data set for it).
	if !s.cfg.DryRun {
		if err := inv.checkTarget(ctx, s, rcfg.Threads, human); err != nil {
			return err
		}
	}
	data, err := inv.inspectData(ctx, s, human)
	if err != nil {
		return err
	}
	// The target and its tables are checked before the wait, so that a mistake
	// shows now and not at the start time; the workers connect after it.
	if err := inv.coord.readClock(ctx, human, s); err != nil {
		return err
	}
	if err := inv.coord.wait(ctx, human, time.Now); err != nil {
		return err
	}

	header(human, a.Version, inv.spec.Name, s, rcfg, rng.Config().Seed)
	stopCPUProfile, err := files.startCPUProfile()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer stopCPUProfile() // for the early returns; after the run it is stopped, and its error said, below
	// Interval lines print at --report-interval (warm-up ones always); live
	// metrics see every interval, so without --report-interval they come
	// each second.
	printLines := rcfg.ReportInterval > 0
	if exp != nil {
		var kinds []string
		if k, ok := inv.wl.(workload.Kinded); ok {
			kinds = k.Kinds()
		}
		exp.StartRun(inv.spec.Name, rcfg.Threads, kinds)
		if rcfg.ReportInterval == 0 {
			rcfg.ReportInterval = time.Second
		}
	}
	spec := measure.Spec{
		Target:       s.target,
		Workload:     inv.wl,
		WorkloadName: inv.spec.Name,
		Rand:         rng,
		Config:       rcfg,
		Data:         data,
		Tool:         result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()},
		CommandLine:  redactArgs(append([]string{"fairbench"}, a.argv...)),
		Options:      inv.run.server.record(resolvedOptions(inv.command.Flags()), found),
		SharedCPUs:   pin.Shared,
		Warnings:     pin.Warnings,
		Client:       inv.coord.client,
		OnInterval: func(iv result.Interval) {
			if goTPC == nil && (printLines || iv.Warmup) {
				intervalLine(human, iv, rcfg.Percentiles)
			}
		},
		OnCheckpoint: func(cp result.Checkpoint) {
			checkpointReport(human, cp, rcfg.Rate, rcfg.Percentiles)
		},
		Progress: progress.New(human, a.IsTerminal(human)),
	}
	spec.Options["client-cpus"] = pin.CPUs.String() // the list "rest" gave
	if inv.run.dbDebug {
		spec.ThreadDriver = dbdebug.Wrap(s.target.Driver, a.Stderr)
		spec.Warnings = append(spec.Warnings, dbDebugWarning)
		fmt.Fprintf(notes, "WARNING: %s\n\n", dbDebugWarning)
	}
	inv.recordIgnored(spec.Options)
	if exp != nil {
		spec.OnIntervalHistogram = observeInterval(exp, a.Stderr)
	}
	if goTPC != nil {
		spec.OnIntervalKinds = func(iv result.Interval, kinds []metrics.Kind) {
			if printLines || iv.Warmup {
				goTPC.Interval(iv, kinds)
			}
		}
	}
	res, out := measure.Run(ctx, spec)
	if exp != nil {
		exp.SetPhase(livemetrics.PhaseDone)
	}
	if err := stopCPUProfile(); err != nil {
		fmt.Fprintf(a.Stderr, "fairbench: warning: %v\n", err)
	}
	if err := files.writeMemProfile(); err != nil {
		fmt.Fprintf(a.Stderr, "fairbench: warning: %v\n", err)
	}
	ran = true

	if out.Forced { // sysbench's alarm: its line, then the summary
		fmt.Fprintln(notes, forcedShutdownFatal)
	}
	switch {
	case goTPC != nil:
		goTPC.Summary(res)
		runNotes(human, res)
	case quiet:
		runNotes(notes, res)
	default:
		if inv.run.histogram {
			if err := histogramBlock(human, res.Totals.Latency); err != nil {
				fmt.Fprintf(a.Stderr, "fairbench: warning: %v\n", err)
			}
		}
		summary(human, res, rcfg.Percentiles)
	}
	if err := inv.emit(a.Stdout, files, res); err != nil {
		return withCode(ExitFailed, err)
	}
	switch {
	case out.Status == result.StatusInterrupted:
		fmt.Fprintln(human, "Interrupted: the figures above cover the time that ran.")
		return withCode(ExitInterrupted, fmt.Errorf("interrupted"))
	case out.Forced:
		return withCode(ExitForced, fmt.Errorf("run failed: %w", out.Err))
	case out.Status == result.StatusFailed:
		return withCode(ExitFailed, fmt.Errorf("run failed: %w", out.Err))
	}
	return nil
}

// checkTarget checks, before a run, that the server takes threads
// connections (runner.Preflight) and has the workload's tables; the embedded
// database lacking them is prepared now.
func (inv *invocation) checkTarget(ctx context.Context, s *session, threads int, human io.Writer) error {
	if err := runner.Preflight(ctx, s.drv, threads); err != nil {
		return withCode(ExitTarget, err)
	}
	missing, err := inv.missingTables(ctx, s)
	if err != nil {
		return err
	}
	if missing.None() {
		return nil
	}
	if s.cfg.Kind != driver.KindSQLite {
		return withCode(ExitTarget, fmt.Errorf("%s lacks %s, which %s needs: run 'fairbench prepare %s%s' first",
			describeTarget(s.cfg), missing, inv.spec.Name, inv.spec.Name, inv.sameFlags()))
	}
	fmt.Fprintf(human, "The embedded database %s lacks %s: preparing it now (as 'fairbench prepare %s' would).\n",
		s.cfg.Path, missing, inv.spec.Name)
	if err := inv.load(ctx, s, human, machineCPUs(), false); err != nil {
		return err
	}
	fmt.Fprintln(human)
	return nil
}

// serveMetrics starts the live metrics of --metrics-addr (nil without it) and
// returns a function that stops serving: after a run (ran) it first keeps
// answering for --metrics-linger, unless ctx ended (Ctrl-C).
func (inv *invocation) serveMetrics(ctx context.Context, human io.Writer) (*livemetrics.Exporter, func(ran bool), error) {
	if inv.run.metricsAddr == "" {
		return nil, func(bool) {}, nil
	}
	exp := livemetrics.New(livemetrics.Labels{})
	srv, err := exp.Start(inv.run.metricsAddr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	fmt.Fprintln(human, srv.Announce())
	stop := func(ran bool) {
		srv.Linger = time.Duration(inv.run.metricsLinger * float64(time.Second))
		if !ran || ctx.Err() != nil {
			srv.Linger = 0
		}
		if srv.Linger > 0 {
			fmt.Fprintf(human, "Live metrics stay up for %s (--metrics-linger) so that the last scrape sees the final figures; Ctrl-C ends them now.\n", srv.Linger)
		}
		srv.Stop(ctx)
	}
	return exp, stop, nil
}

// observeInterval feeds each interval and its latency histogram to the live
// metrics; a failure (it cannot happen with the exporter's own buckets) is
// reported once on stderr and does not stop the run.
func observeInterval(exp *livemetrics.Exporter, stderr io.Writer) func(result.Interval, *metrics.Latency) {
	warned := false
	return func(iv result.Interval, lat *metrics.Latency) {
		if err := exp.ObserveInterval(iv, lat); err != nil && !warned {
			warned = true
			fmt.Fprintf(stderr, "fairbench: warning: live metrics: %v\n", err)
		}
	}
}

// runOutputs are the files a run writes (nil when not asked for), opened
// before it connects (see outfile).
type runOutputs struct {
	result, cpuProfile, memProfile *outfile.File
}

// openOutputs opens the files of --output, --cpu-profile and --mem-profile.
func (inv *invocation) openOutputs() (*runOutputs, error) {
	o := &runOutputs{}
	for _, f := range []struct {
		flag, path string
		file       **outfile.File
	}{
		{"--output", inv.run.output, &o.result},
		{"--cpu-profile", inv.run.cpuProfile, &o.cpuProfile},
		{"--mem-profile", inv.run.memProfile, &o.memProfile},
	} {
		if f.path == "" {
			continue
		}
		file, err := outfile.Create(f.path)
		if err != nil {
			o.abort()
			return nil, fmt.Errorf("%s: %w", f.flag, err)
		}
		*f.file = file
	}
	return o, nil
}

// abort drops the files not committed (a run that did not end with them).
func (o *runOutputs) abort() {
	o.result.Abort()
	o.cpuProfile.Abort()
	o.memProfile.Abort()
}

// startCPUProfile profiles the client until the returned stop is called
// (once; later calls do nothing and return nil), which commits the profile.
func (o *runOutputs) startCPUProfile() (stop func() error, err error) {
	if o.cpuProfile == nil {
		return func() error { return nil }, nil
	}
	if err := pprof.StartCPUProfile(o.cpuProfile); err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	var once sync.Once
	return func() (err error) {
		once.Do(func() {
			pprof.StopCPUProfile()
			if err = o.cpuProfile.Commit(); err != nil {
				err = fmt.Errorf("--cpu-profile: %w", err)
			}
		})
		return err
	}, nil
}

// writeMemProfile writes the heap profile of --mem-profile once the run has
// ended.
func (o *runOutputs) writeMemProfile() error {
	if o.memProfile == nil {
		return nil
	}
	runtime.GC() // the in-use figures as of now, not of the last collection
	if err := pprof.WriteHeapProfile(o.memProfile); err != nil {
		return fmt.Errorf("--mem-profile: writing %s: %w", o.memProfile.Name(), err)
	}
	if err := o.memProfile.Commit(); err != nil {
		return fmt.Errorf("--mem-profile: %w", err)
	}
	return nil
}

// emit writes the result file and/or the JSON document to stdout.
func (inv *invocation) emit(stdout io.Writer, files *runOutputs, res *result.Result) error {
	if files.result != nil {
		if err := result.WriteTo(files.result, res); err != nil {
			return fmt.Errorf("writing the result to %s: %w", inv.run.output, err)
		}
	}
	if inv.run.format == "json" {
		return result.Encode(stdout, res)
	}
	return nil
}

// load runs the workload's Prepare with progress on w.
func (inv *invocation) load(ctx context.Context, s *session, w io.Writer, threads int, replace bool) error {
	rng, err := inv.rnd.factory(time.Now)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	prog := workload.NewProgress(0)
	start := time.Now()
	log, stop := inv.showProgress(ctx, w, func() string { return prog.Line("loaded", progress.Rows) })
	err = inv.wl.Prepare(ctx, workload.PrepareEnv{
		Driver: s.drv, Dialect: s.dialect, Threads: threads, Rand: rng, Replace: replace, Log: log, Progress: prog,
	})
	stop()
	done, elapsed := prog.Done(), time.Since(start) // the whole prepare, indexes and checks included
	switch {
	case err != nil && isInterrupted(ctx, err):
		return withCode(ExitInterrupted, fmt.Errorf("prepare interrupted after %d rows: the tables are incomplete and no run will use them; load them again with 'fairbench prepare %s%s --replace'",
			done, inv.spec.Name, inv.sameFlags()))
	case err != nil:
		return withCode(ExitTarget, fmt.Errorf("prepare %s on %s: %w", inv.spec.Name, describeTarget(s.cfg), err))
	}
	if elapsed > 0 && done > 0 {
		fmt.Fprintf(w, "Loaded %d rows in %.2fs (%.0f rows/s).\n", done, elapsed.Seconds(), float64(done)/elapsed.Seconds())
	}
	return nil
}

// startTolerance is how far in the past --start-at may be: a client launched a
// moment late starts at once rather than being refused.
const startTolerance = 5 * time.Second

// maxStartAhead bounds how far ahead --start-at may be; further is a mistake
// (milliseconds given for seconds, a wrong date).
const maxStartAhead = 24 * time.Hour

// Values of --start-clock.
const (
	startClockServer = "server"
	startClockLocal  = "local"
)

// clockSamples are the round trips that measure the server's clock.
const clockSamples = 7

// coordination is a run's place among coordinated clients.
type coordination struct {
	startAt time.Time          // zero: start at once
	client  *result.ClientInfo // nil without --clients
	clock   string             // startClockServer or startClockLocal: whose clock --start-at is read on
	offset  time.Duration      // the server's clock minus ours (0 on the local clock)
}

// coordinate validates --client-id, --clients and --start-at against now.
func (inv *invocation) coordinate(fs *pflag.FlagSet, now time.Time) (coordination, error) {
	f := &inv.run
	var c coordination
	if f.startAt != "" {
		t, err := parseStartAt(f.startAt)
		if err != nil {
			return c, err
		}
		if late := now.Sub(t); late > startTolerance {
			return c, fmt.Errorf("--start-at %s was %s ago: give a moment in the future, the same to every client, e.g. --start-at=$(date -d '+1 min' +%%s)",
				f.startAt, late.Round(time.Second))
		}
		if ahead := t.Sub(now); ahead > maxStartAhead {
			return c, fmt.Errorf("--start-at %s is %s away, more than %s: give a moment closer (a Unix time is in seconds, not milliseconds)",
				f.startAt, ahead.Round(time.Second), maxStartAhead)
		}
		c.startAt = t
	}
	switch f.startClock {
	case startClockServer, startClockLocal:
		c.clock = f.startClock
	default:
		return c, fmt.Errorf("--start-clock %q: give server (the database server's clock, the default: the clients' own clocks need not agree) or local (this machine's)", f.startClock)
	}
	if fs.Changed("start-clock") && f.startAt == "" {
		return c, fmt.Errorf("--start-clock needs --start-at TIME, the moment it reads")
	}
	switch {
	case f.clients < 0:
		return c, fmt.Errorf("--clients must not be negative, got %d", f.clients)
	case f.clients > workload.MaxClients:
		return c, fmt.Errorf("--clients=%d: give 1 to %d coordinated clients", f.clients, workload.MaxClients)
	case f.clients == 0 && fs.Changed("client-id"):
		return c, fmt.Errorf("--client-id needs --clients N, the number of coordinated clients")
	case f.clients == 0:
		return c, nil
	case f.startAt == "":
		return c, fmt.Errorf("--clients needs --start-at TIME so that the clients start together: give every client the same, e.g. --start-at=$(date -d '+1 min' +%%s)")
	case f.clientID < 0 || f.clientID >= f.clients:
		return c, fmt.Errorf("--client-id %d is outside 0..%d (--clients=%d): number the clients from 0 to N-1", f.clientID, f.clients-1, f.clients)
	}
	c.client = &result.ClientInfo{ID: f.clientID, Of: f.clients, StartAt: c.startAt.UTC(), Clock: c.clock}
	return c, nil
}

// readClock measures the database server's clock when --start-at is read on
// it (--start-clock=server, the default); the embedded database runs on this
// machine's clock. The reading is printed and recorded with the client.
func (c *coordination) readClock(ctx context.Context, w io.Writer, s *session) error {
	if c.startAt.IsZero() || c.clock != startClockServer {
		return nil
	}
	if s.cfg.Kind == driver.KindSQLite || s.cfg.DryRun { // no server's clock to read
		c.clock = startClockLocal
		if c.client != nil {
			c.client.Clock = startClockLocal
		}
		return nil
	}
	conn, err := s.drv.Connect(ctx, 0)
	if err != nil {
		return withCode(ExitTarget, fmt.Errorf("cannot connect to %s to read its clock: %w", describeTarget(s.cfg), err))
	}
	defer conn.Close()
	query := func(ctx context.Context, q string) ([][]string, error) { return conn.QueryStrings(ctx, q) }
	r, err := dbclock.Measure(ctx, s.cfg.Kind, query, clockSamples)
	if err != nil {
		return withCode(ExitTarget, fmt.Errorf("%s: %w (--start-clock=local reads --start-at on this machine's clock instead)", describeTarget(s.cfg), err))
	}
	c.offset = r.Offset
	fmt.Fprintf(w, "Clock: %s; --start-at is read on the server's clock (--start-clock=server).\n", r)
	if c.client != nil {
		c.client.Clock = startClockServer
		c.client.ClockOffsetMs = float64(r.Offset) / float64(time.Millisecond)
		c.client.ClockErrorMs = float64(r.RoundTrip) / 2 / float64(time.Millisecond)
	}
	return nil
}

// parseStartAt reads an RFC 3339 time or Unix seconds (fractions allowed).
func parseStartAt(s string) (time.Time, error) {
	if sec, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "eEnNiIxX") && sec > 0 {
		whole, frac := math.Modf(sec)
		return time.Unix(int64(whole), int64(math.Round(frac*1e9))), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--start-at %q: give an RFC 3339 time (2026-11-22T05:00:00Z) or Unix seconds (1795323600)", s)
	}
	return t, nil
}

// wait blocks until the start time (at once without one). Cancelling ctx ends
// the wait with exit 130; a start time already well past (the connection checks
// took that long) is refused.
func (c coordination) wait(ctx context.Context, w io.Writer, now func() time.Time) error {
	if c.startAt.IsZero() {
		return nil
	}
	d := c.startAt.Sub(now().Add(c.offset))
	if d < -startTolerance {
		return withCode(ExitUsage, fmt.Errorf("it is already %s past --start-at %s (connecting took that long): give a later start time",
			(-d).Round(time.Millisecond), c.startAt.UTC().Format(time.RFC3339Nano)))
	}
	who := "Starting"
	if c.client != nil {
		who = fmt.Sprintf("Client %d of %d (client ids 0..%d): starting", c.client.ID, c.client.Of, c.client.Of-1)
	}
	if d <= 0 {
		fmt.Fprintf(w, "%s now (--start-at %s was %s ago).\n\n", who, c.startAt.UTC().Format(time.RFC3339Nano), (-d).Round(time.Millisecond))
		return nil
	}
	fmt.Fprintf(w, "%s at %s (--start-at), in %s; Ctrl-C cancels.\n\n", who, c.startAt.UTC().Format(time.RFC3339Nano), d.Round(time.Millisecond))
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return withCode(ExitInterrupted, fmt.Errorf("interrupted while waiting for --start-at: nothing was run"))
	}
}
