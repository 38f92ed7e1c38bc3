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
	"github.com/fairbench/fairbench/internal/compat/pgbenchcli"
	"github.com/fairbench/fairbench/internal/compat/sysbenchout"
	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/dbdebug"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/eventlog"
	"github.com/fairbench/fairbench/internal/run/livemetrics"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/run/setup"
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

// runnerConfig builds and validates the runner configuration from the flags,
// with the target's error policy (setup.RunnerConfig).
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
	if f.outputStyle != gotpccli.StyleFairbench && f.outputStyle != pgbenchcli.StylePgbench {
		pcts = gotpcout.WithPercentiles(pcts) // go-tpc's lines show these
	}
	// Coordinated clients (--clients) keep interval histograms.
	cfg := setup.RunnerConfig(runner.Config{
		Threads:            f.threads,
		Duration:           time.Duration(f.time),
		Events:             f.events,
		EventsPerThread:    f.eventsPerThread,
		Warmup:             time.Duration(f.warmup),
		Rate:               f.rate,
		LatencyLimit:       time.Duration(f.latencyLimitMs * float64(time.Millisecond)),
		ReportInterval:     time.Duration(f.reportInterval * float64(time.Second)),
		Percentiles:        pcts,
		ConnectRate:        f.connectRate,
		ReconnectTimeout:   time.Duration(f.reconnectTimeout),
		IntervalHistograms: f.intervalHistograms,
		Checkpoints:        cps,
		Drain:              drain,
		ConnectPerEvent:    f.connectPerEvent,
		Jobs:               f.jobs,
	}, policy, f.clients > 0)
	if !(f.latencyLimitMs >= 0 && f.latencyLimitMs <= float64(workload.MaxSeconds)*1000) {
		return runner.Config{}, fmt.Errorf("--latency-limit=%v: give 0 (none) or a number of milliseconds up to %d", f.latencyLimitMs, workload.MaxSeconds*1000)
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

// runOutput is where a run's lines go.
type runOutput struct {
	// human receives the header, the interval lines and the summary: stdout,
	// or stderr when stdout carries the JSON document or go-tpc's lines;
	// nothing below sysbench's NOTICE verbosity (quiet).
	human io.Writer
	// notes receives the warnings, kept down to sysbench's WARNING level.
	notes io.Writer
	quiet bool
	// goTPC prints go-tpc's lines on stdout (nil: fairbench's own layout).
	goTPC *gotpcout.Printer
	// pgbench prints pgbench's progress lines on stderr and its report on
	// stdout (nil: another layout); fairbench's own lines are left out, its
	// notes and warnings go to stderr.
	pgbench *pgbenchPrinter
}

// runState is what `fairbench run` sets up around its measured run, as it
// is set up.
type runState struct {
	out    runOutput
	rng    *randgen.Factory
	cfg    driver.Config // the target, as its flags give it (parsed once)
	ignore string        // the --*-ignore-errors value of its driver
	pin    clientcpus.Decision
	srvPID int // the database server's process on this machine (0: none found)
	found  *machinewatch.Discovered
	exp    *livemetrics.Exporter
	s      *session
	rcfg   runner.Config
	data   workload.DataReport
}

// execute is `fairbench run WORKLOAD`.
func (inv *invocation) execute(cmd *cobra.Command) error {
	ctx := cmd.Context()
	r, err := inv.checkRun(cmd.Flags())
	if err != nil {
		return err
	}
	// Fuzzing stops here: past this point commands write files and connect.
	if err := inv.app.connecting(); err != nil {
		return err
	}
	if pinnedRun, err := inv.placeClient(r); pinnedRun || err != nil {
		return err
	}
	fmt.Fprint(r.out.human, describeClientCPUs(r.pin))
	// The output files are opened now, before connecting: a bad path ends
	// the command at once, not after a long run with the result lost.
	files, err := inv.openOutputs()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer files.abort()
	var stopServing func(ran bool)
	if r.exp, stopServing, err = inv.serveMetrics(ctx, r.out.human); err != nil {
		return withCode(ExitUsage, err)
	}
	ran := false // the metrics linger after a run, not after a mistake
	defer func() { stopServing(ran) }()
	if r.found, err = inv.watchServer(ctx, r); err != nil {
		return err
	}
	if r.s, err = inv.openTarget(ctx, r.cfg, r.ignore); err != nil {
		return err
	}
	defer r.s.close()
	if err := inv.ready(ctx, r); err != nil {
		return err
	}
	res, outcome, err := inv.measure(ctx, r, files)
	if err != nil {
		return err
	}
	ran = true
	return inv.finish(r, files, res, outcome)
}

// checkRun validates everything the user typed before touching the target:
// where the output goes, the random numbers, the run's options, the
// coordination of clients, the target's flags (parsed here, once) and those
// of the server's machines.
func (inv *invocation) checkRun(fs *pflag.FlagSet) (*runState, error) {
	a := inv.app
	r := &runState{}
	var err error
	if r.out, err = inv.outputs(); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if r.rng, err = inv.runRand(); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if err := inv.checkEventLog(fs); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if _, err := inv.runnerConfig(driver.ErrorPolicy{}); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if inv.coord, err = inv.coordinate(fs, time.Now()); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	// config also checks the --*-ignore-errors codes against the driver.
	if r.cfg, r.ignore, err = inv.target.config(fs, a.Getenv); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if err := inv.run.server.spec.Validate(); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if _, err := inv.run.server.check(a.Getenv); err != nil {
		return nil, err
	}
	if err := inv.refuseServerMachineFlags(r.cfg); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return r, nil
}

// outputs decides where the run's lines go (runOutput).
func (inv *invocation) outputs() (runOutput, error) {
	a := inv.app
	o := runOutput{human: a.Stdout}
	if inv.run.format == "json" {
		o.human = a.Stderr
	}
	var err error
	if o.goTPC, err = inv.goTPCPrinter(a.Stdout); err != nil {
		return o, err
	}
	if o.goTPC != nil {
		o.human = a.Stderr
	}
	if o.pgbench, err = inv.pgbenchPrinter(); err != nil {
		return o, err
	}
	// Below sysbench's NOTICE level, what sysbench prints at it is left out;
	// warnings are kept down to its WARNING level (runNotes, after the run).
	o.quiet = inv.run.verbosity < sysbenchout.LevelNotice
	o.notes = o.human
	if o.pgbench != nil {
		o.human, o.notes = io.Discard, a.Stderr
	}
	if o.quiet {
		o.human = io.Discard
		if inv.run.verbosity < sysbenchout.LevelWarning {
			o.notes = io.Discard
		}
	}
	return o, nil
}

// runRand builds the run's random numbers from the --rand-* flags: a
// coordinated client (--clients) derives its own seed (setup.Rand), which
// its result's options record when --rand-seed was given.
func (inv *invocation) runRand() (*randgen.Factory, error) {
	rng, err := inv.rnd.factory(time.Now)
	if err != nil || inv.run.clients <= 0 {
		return rng, err
	}
	if rng, err = setup.Rand(rng.Config(), inv.run.clientID, time.Now); err == nil && inv.rnd.seed != 0 {
		inv.rnd.seed = rng.Config().Seed
	}
	return rng, err
}

// placeClient decides the client's CPUs before anything starts, keeping
// them off the database server's on this machine (a dry run has no server);
// a pinned client is this command run again under the mask (pinnedRun).
func (inv *invocation) placeClient(r *runState) (pinnedRun bool, err error) {
	var srv clientcpus.Server
	if !r.cfg.DryRun {
		if srv, err = (servermachine.Env{}).ServerCPUs(inv.run.server.spec, servermachine.Target{Config: r.cfg}); err != nil {
			return false, withCode(ExitUsage, err)
		}
	}
	r.srvPID = srv.PID
	r.pin, pinnedRun, err = inv.app.pinClient(inv.run.pin.spec, srv, inv.run.pin.allowOverlap, "--client-cpus")
	return pinnedRun, err
}

// watchServer describes the server's machines before connecting, so that an
// agent that does not answer refuses the run before anything runs; it
// returns the agents found through Kubernetes. A dry run has no server
// machine: none is described or recorded.
func (inv *invocation) watchServer(ctx context.Context, r *runState) (*machinewatch.Discovered, error) {
	if r.cfg.DryRun {
		return nil, nil
	}
	machines, found, err := inv.run.server.watch(ctx, r.cfg, r.srvPID, inv.app.Getenv, inv.app.Kubernetes, r.out.human)
	if err != nil {
		return nil, err
	}
	inv.run.machines = machines
	return found, nil
}

// ready readies the open target for the run: the runner configuration with
// the target's error policy, the checks of the server and its tables, the
// data set, and the start of coordinated clients.
func (inv *invocation) ready(ctx context.Context, r *runState) error {
	var err error
	if r.rcfg, err = inv.runnerConfig(r.s.target.Ignore); err != nil {
		return withCode(ExitUsage, err)
	}
	if inv.run.forcedShutdown.set && r.rcfg.Duration == 0 {
		fmt.Fprintln(inv.app.Stderr, "fairbench: note: --forced-shutdown has no effect without --time, as in sysbench: the run ends when its --events have finished")
	}
	// The checks of the server and its tables are a dry run's to skip: it
	// has neither (inspectData records no data set for it).
	if !r.s.cfg.DryRun {
		if err := inv.checkTarget(ctx, r.s, r.rcfg.Threads, r.out.human); err != nil {
			return err
		}
	}
	if r.data, err = inv.inspectData(ctx, r.s, r.out.human); err != nil {
		return err
	}
	// The target and its tables are checked before the wait, so that a mistake
	// shows now and not at the start time; the workers connect after it.
	if err := inv.coord.readClock(ctx, r.out.human, r.s); err != nil {
		return err
	}
	return inv.coord.wait(ctx, r.out.human, time.Now)
}

// measure prints the header and runs the measured run (measure.Run) under
// the client's profiles.
func (inv *invocation) measure(ctx context.Context, r *runState, files *runOutputs) (*result.Result, *runner.Outcome, error) {
	a := inv.app
	header(r.out.human, a.Version, inv.spec.Name, r.s, r.rcfg, r.rng.Config().Seed)
	stopCPUProfile, err := files.startCPUProfile()
	if err != nil {
		return nil, nil, withCode(ExitUsage, err)
	}
	defer stopCPUProfile() // stopped, and its error said, after the run
	if r.exp != nil {
		var kinds []string
		if k, ok := inv.wl.(workload.Kinded); ok {
			kinds = k.Kinds()
		}
		r.exp.StartRun(inv.spec.Name, r.rcfg.Threads, kinds)
	}
	res, out := measure.Run(ctx, inv.measureSpec(r, files))
	if r.exp != nil {
		r.exp.SetPhase(livemetrics.PhaseDone)
	}
	if err := stopCPUProfile(); err != nil {
		fmt.Fprintf(a.Stderr, "fairbench: warning: %v\n", err)
	}
	if err := files.writeMemProfile(); err != nil {
		fmt.Fprintf(a.Stderr, "fairbench: warning: %v\n", err)
	}
	return res, out, nil
}

// measureSpec is the run as measure.Run takes it, with the options the
// result records (setup.Options: every flag, the client's CPUs decided) and
// the lines it prints as it runs.
func (inv *invocation) measureSpec(r *runState, files *runOutputs) measure.Spec {
	a, human, rcfg := inv.app, r.out.human, r.rcfg
	// Interval lines print at --report-interval (warm-up ones always); live
	// metrics see every interval, so without --report-interval they come
	// each second.
	printLines := rcfg.ReportInterval > 0
	if r.exp != nil && rcfg.ReportInterval == 0 {
		rcfg.ReportInterval = time.Second
	}
	opts := setup.Options(inv.run.server.record(resolvedOptions(inv.command.Flags()), r.found))
	opts.AddClientCPUs(r.pin, inv.run.pin.allowOverlap) // the list "rest" gave
	inv.recordIgnored(opts)
	spec := measure.Spec{
		Target: r.s.target, Workload: inv.wl, WorkloadName: inv.spec.Name, Rand: r.rng, Config: rcfg, Data: r.data,
		Tool:        result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()},
		CommandLine: redactArgs(append([]string{"fairbench"}, a.argv...)),
		Options:     opts, SharedCPUs: r.pin.Shared, Warnings: r.pin.Warnings, Client: inv.coord.client(),
		OnInterval: func(iv result.Interval) {
			switch {
			case r.out.pgbench != nil && printLines:
				r.out.pgbench.interval(iv, float64(time.Now().UnixNano())/1e9-iv.At, maxTries(opts), rcfg.ReportInterval)
			case r.out.goTPC == nil && r.out.pgbench == nil && (printLines || iv.Warmup):
				sysbenchout.IntervalLine(human, iv, rcfg.Percentiles)
			}
		},
		OnCheckpoint: func(cp result.Checkpoint) { sysbenchout.CheckpointReport(human, cp, rcfg.Rate, rcfg.Percentiles) },
		Progress:     progress.New(human, a.IsTerminal(human)),
		EventLog:     files.events,
	}
	if inv.run.dbDebug {
		spec.ThreadDriver = dbdebug.Wrap(r.s.target.Driver, a.Stderr)
		spec.Warnings = append(spec.Warnings, dbDebugWarning)
		fmt.Fprintf(r.out.notes, "WARNING: %s\n\n", dbDebugWarning)
	}
	if r.exp != nil {
		spec.OnIntervalHistogram = observeInterval(r.exp, a.Stderr)
	}
	if p := r.out.pgbench; p != nil {
		p.begin(r.s.server, r.data.Options["scale"], opts["vacuum-first"])
	}
	if goTPC := r.out.goTPC; goTPC != nil {
		spec.OnIntervalKinds = func(iv result.Interval, kinds []metrics.Kind) {
			if printLines || iv.Warmup {
				goTPC.Interval(iv, kinds)
			}
		}
	}
	return spec
}

// finish prints the run's summary, writes its result and turns how it
// ended into the exit code.
func (inv *invocation) finish(r *runState, files *runOutputs, res *result.Result, out *runner.Outcome) error {
	a, human := inv.app, r.out.human
	if out.Forced { // sysbench's alarm: its line, then the summary
		fmt.Fprintln(r.out.notes, sysbenchout.ForcedShutdownFatal)
	}
	switch {
	case r.out.pgbench != nil:
		r.out.pgbench.summary(res, out.Connect, out.MaxLag)
		runNotes(r.out.notes, res)
	case r.out.goTPC != nil:
		r.out.goTPC.Summary(res)
		runNotes(human, res)
	case r.out.quiet:
		runNotes(r.out.notes, res)
	default:
		if inv.run.histogram {
			if err := sysbenchout.Histogram(human, res.Totals.Latency); err != nil {
				fmt.Fprintf(a.Stderr, "fairbench: warning: %v\n", err)
			}
		}
		summary(human, res, r.rcfg.Percentiles)
	}
	files.closeEvents(r.out.notes)
	if err := inv.emit(a.Stdout, files, res); err != nil {
		return withCode(ExitFailed, err)
	}
	if r.out.pgbench != nil && inv.run.output != "" {
		fmt.Fprintf(r.out.notes, "fairbench: the result is in %s\n", inv.run.output)
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
	// events is the --event-log, or nil.
	events *eventlog.Log
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
	if inv.run.eventLog != "" {
		events, err := eventlog.Create(inv.eventLogOptions(), inv.run.threads)
		if err != nil {
			o.abort()
			return nil, err
		}
		o.events = events
	}
	return o, nil
}

// eventLogOptions are --event-log's as the run's options make them: the lag
// column with --rate, the retries column with --max-tries other than 1,
// failures named by kind except in the pgbench drop-in without
// --failures-detailed (as pgbench writes them).
func (inv *invocation) eventLogOptions() eventlog.Options {
	o := eventlog.Options{
		Path: inv.run.eventLog, Files: inv.run.eventLogFiles,
		Aggregate: time.Duration(inv.run.eventLogAggregate) * time.Second,
		Lag:       inv.run.rate > 0, FailuresDetailed: true,
	}
	if s := inv.run.eventLogSample; s != 1 {
		o.Sample = s
	}
	if f := inv.command.Flags().Lookup("max-tries"); f != nil {
		o.Retries = f.Value.String() != "1"
	}
	if c := inv.app.pgbench; c != nil {
		o.FailuresDetailed = c.FailuresDetailed
	}
	return o
}

// checkEventLog refuses --event-log's companions without it and options
// it cannot take, before anything is written.
func (inv *invocation) checkEventLog(fs *pflag.FlagSet) error {
	if inv.run.eventLog == "" {
		for _, name := range []string{"event-log-files", "event-log-aggregate", "event-log-sample"} {
			if fs.Changed(name) {
				return fmt.Errorf("--%s needs --event-log=FILE", name)
			}
		}
		return nil
	}
	if s := inv.run.eventLogSample; !(s > 0 && s <= 1) {
		return fmt.Errorf("--event-log-sample=%v: give a fraction in (0, 1]", s)
	}
	return inv.eventLogOptions().Validate()
}

// closeEvents writes and closes the --event-log, saying where it went; a
// log that cannot be written is a warning: the result is still written.
func (o *runOutputs) closeEvents(notes io.Writer) {
	if o.events == nil {
		return
	}
	if err := o.events.Close(); err != nil {
		fmt.Fprintf(notes, "fairbench: warning: %v\n", err)
		return
	}
	fmt.Fprintf(notes, "fairbench: event log in %s\n", strings.Join(o.events.Paths(), ", "))
}

// abort drops the files not committed (a run that did not end with them).
func (o *runOutputs) abort() {
	o.result.Abort()
	o.cpuProfile.Abort()
	o.memProfile.Abort()
	if o.events != nil {
		o.events.Abort()
	}
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
	startClockServer = setup.ClockServer
	startClockLocal  = setup.ClockLocal
)

// coordination is a run's place among coordinated clients.
type coordination struct {
	// start is --start-at (At zero: start at once) on the clock of
	// --start-clock, and the server's clock as readClock measured it.
	start setup.Start
	// id and of are --client-id and --clients (of 0: not coordinated).
	id, of int
}

// client is what the result records of a coordinated client (nil without
// --clients).
func (c coordination) client() *result.ClientInfo {
	if c.of == 0 {
		return nil
	}
	return c.start.Client(c.id, c.of)
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
		c.start.At = t
	}
	switch f.startClock {
	case startClockServer, startClockLocal:
		c.start.Clock = f.startClock
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
	c.id, c.of = f.clientID, f.clients
	return c, nil
}

// readClock measures the database server's clock when --start-at is read on
// it (--start-clock=server, the default); the embedded database runs on this
// machine's clock. The reading is printed and recorded with the client.
func (c *coordination) readClock(ctx context.Context, w io.Writer, s *session) error {
	if c.start.At.IsZero() || c.start.Clock != startClockServer {
		return nil
	}
	if s.cfg.Kind == driver.KindSQLite || s.cfg.DryRun { // no server's clock to read
		c.start.Clock = startClockLocal
		return nil
	}
	conn, err := s.drv.Connect(ctx, 0)
	if err != nil {
		return withCode(ExitTarget, fmt.Errorf("cannot connect to %s to read its clock: %w", describeTarget(s.cfg), err))
	}
	defer conn.Close()
	query := func(ctx context.Context, q string) ([][]string, error) { return conn.QueryStrings(ctx, q) }
	r, err := dbclock.Measure(ctx, s.cfg.Kind, query, setup.ClockSamples)
	if err != nil {
		return withCode(ExitTarget, fmt.Errorf("%s: %w (--start-clock=local reads --start-at on this machine's clock instead)", describeTarget(s.cfg), err))
	}
	c.start.Server = r
	fmt.Fprintf(w, "Clock: %s; --start-at is read on the server's clock (--start-clock=server).\n", r)
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
	if c.start.At.IsZero() {
		return nil
	}
	at := c.start.At.UTC().Format(time.RFC3339Nano)
	d := c.start.Until(now())
	if d < -startTolerance {
		return withCode(ExitUsage, fmt.Errorf("it is already %s past --start-at %s (connecting took that long): give a later start time",
			(-d).Round(time.Millisecond), at))
	}
	who := "Starting"
	if c.of > 0 {
		who = fmt.Sprintf("Client %d of %d (client ids 0..%d): starting", c.id, c.of, c.of-1)
	}
	if d <= 0 {
		fmt.Fprintf(w, "%s now (--start-at %s was %s ago).\n\n", who, at, (-d).Round(time.Millisecond))
		return nil
	}
	fmt.Fprintf(w, "%s at %s (--start-at), in %s; Ctrl-C cancels.\n\n", who, at, d.Round(time.Millisecond))
	if setup.Sleep(ctx, d) != nil {
		return withCode(ExitInterrupted, fmt.Errorf("interrupted while waiting for --start-at: nothing was run"))
	}
	return nil
}
