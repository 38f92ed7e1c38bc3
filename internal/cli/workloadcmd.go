package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/compat/gotpccli"
	"github.com/fairbench/fairbench/internal/compat/pgbenchcli"
	"github.com/fairbench/fairbench/internal/compat/sysbenchout"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/run/livemetrics"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/run/setup"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// phase is one of the workload commands.
type phase string

const (
	phasePrepare phase = "prepare"
	phaseRun     phase = "run"
	phaseCleanup phase = "cleanup"
	phaseCheck   phase = "check"
	phaseWarmup  phase = "warmup"
)

// phases are the workload commands, in the order of the command tree.
var phases = []phase{phasePrepare, phaseRun, phaseCleanup, phaseCheck, phaseWarmup}

var phaseShort = map[phase]string{
	phasePrepare: "Create and load the tables a workload needs",
	phaseRun:     "Run a workload and report throughput and latency",
	phaseCleanup: "Drop the tables a workload's prepare created",
	phaseCheck:   "Verify the consistency of a workload's data (TPC-C clause 3.3.2)",
	phaseWarmup:  "Read a workload's tables into the server's cache (CHECKSUM TABLE, pg_prewarm or full scans)",
}

// runFlags are the options of `run` (sysbench's names and defaults).
type runFlags struct {
	threads int
	// time and warmup are --time and --warmup-time: seconds or a duration
	// ("10m"), as plans write them.
	time   secondsValue
	events int64
	// eventsPerThread is --events-per-thread (pgbench's -t).
	eventsPerThread int64
	rate            float64
	latencyLimitMs  float64 // --latency-limit
	reportInterval  float64
	warmup          secondsValue
	percentiles     string
	// histogram prints sysbench's latency histogram before the summary.
	histogram bool
	// verbosity is sysbench's --verbosity: below sysbenchout.LevelNotice the human
	// output is left out.
	verbosity int
	// dbDebug is --db-debug: every statement the threads send is printed
	// on stderr (dbdebug).
	dbDebug bool
	// checkpoints is --report-checkpoints, the list as given
	// (runner.ParseCheckpoints).
	checkpoints string
	// forcedShutdown is --forced-shutdown as given
	// (runner.ParseForcedShutdown reads it with --time).
	forcedShutdown forcedShutdownValue
	output         string
	format         string
	// eventLog are --event-log and its companions (eventlog.Options).
	eventLog          string
	eventLogFiles     int
	eventLogAggregate int
	eventLogSample    float64
	// outputStyle is the layout of the human output (--output-style):
	// fairbench's or go-tpc's (gotpccli.Styles).
	outputStyle   string
	cpuProfile    string
	memProfile    string
	metricsAddr   string
	metricsLinger float64 // seconds the metrics stay up after the run
	connectRate   float64
	// connectPerEvent is --connect-per-event (pgbench's -C).
	connectPerEvent bool
	// jobs is --jobs (pgbench's -j): OS threads the connections share.
	jobs int
	// reconnectTimeout bounds how long a thread tries to replace a lost
	// connection before the run fails (--reconnect-timeout).
	reconnectTimeout secondsValue
	// intervalHistograms keeps each interval's latency histogram in the
	// result (always with --clients).
	intervalHistograms bool
	// clientID, clients and startAt coordinate several clients (--client-id,
	// --clients, --start-at); see coordination.
	clientID int
	clients  int
	startAt  string
	// startClock is whose clock --start-at is read on (--start-clock).
	startClock string
	// server says which machines the database server runs on.
	server serverMachineFlags
	// machines observes them, prepared before the target opens.
	machines *machinewatch.Watch
	// pin is --client-cpus and --allow-cpu-overlap.
	pin clientCPUFlags
}

// checkFlags are the options of `check`.
type checkFlags struct {
	threads int
	all     bool
}

// warmupFlags are the options of `warmup`.
type warmupFlags struct {
	threads int
}

// prepareFlags are the options of `prepare`.
type prepareFlags struct {
	threads int
	replace bool
}

// randFlags are the --rand-* options.
type randFlags struct {
	typ        string
	seed       uint64
	zipfianExp float64
	paretoH    float64
	specIter   int
	specPct    int
	specRes    int
}

func (r *randFlags) register(fs *pflag.FlagSet) {
	d := randgen.DefaultConfig()
	fs.StringVar(&r.typ, "rand-type", d.Type, "distribution of row ids: "+strings.Join(randgen.Types(), ", "))
	fs.Uint64Var(&r.seed, "rand-seed", 0, "seed of the random numbers; 0 takes one from the clock (the seed used is always recorded)")
	fs.Float64Var(&r.zipfianExp, "rand-zipfian-exp", d.ZipfianExp, "exponent θ of the zipfian distribution")
	fs.Float64Var(&r.paretoH, "rand-pareto-h", d.ParetoH, "parameter h of the pareto distribution")
	fs.IntVar(&r.specIter, "rand-spec-iter", d.SpecialIter, "iterations of the special and gaussian distributions")
	fs.IntVar(&r.specPct, "rand-spec-pct", d.SpecialPct, "percentage of the range that is 'special' (hot)")
	fs.IntVar(&r.specRes, "rand-spec-res", d.SpecialRes, "percentage of draws that hit the special values")
}

// factory resolves the seed and validates the distribution (setup.Rand).
func (r *randFlags) factory(now func() time.Time) (*randgen.Factory, error) {
	return setup.Rand(randgen.Config{
		Type:        r.typ,
		Seed:        r.seed,
		ZipfianExp:  r.zipfianExp,
		ParetoH:     r.paretoH,
		SpecialIter: r.specIter,
		SpecialPct:  r.specPct,
		SpecialRes:  r.specRes,
	}, setup.NoClient, now)
}

// invocation is one workload subcommand with its flags bound.
type invocation struct {
	app     *App
	phase   phase
	spec    workload.Spec
	wl      workload.Workload
	target  *targetFlags
	rnd     randFlags
	run     runFlags
	prep    prepareFlags
	check   checkFlags
	warm    warmupFlags
	groups  []flagGroup
	command *cobra.Command
	// coord is the validated --client-id/--clients/--start-at of a run.
	coord coordination
	// ignored names the options given that the workload accepts and ignores
	// (workload.IgnoredGiven): warnings of a run or check, notes otherwise.
	ignored []string
}

type flagGroup struct {
	title string
	fs    *pflag.FlagSet
}

// runGroups are the titles of the groups of run's own options, which
// sameFlags leaves out.
var runGroups = map[string]bool{
	"Run length and load": true, "Output": true, "Live metrics and profiles": true,
	"Coordinated clients": true, "Client CPUs": true,
}

// workloadCommand builds a phase's command (`prepare`, `run`, ...) with a
// subcommand for each of the workloads named: all of them, or only those the
// command line can reach (see commandTree).
func (a *App) workloadCommand(p phase, workloads []string) *cobra.Command {
	parent := &cobra.Command{
		Use:   string(p) + " WORKLOAD [flags]",
		Short: phaseShort[p],
		Long: phaseShort[p] + ".\n\nWorkloads: " + strings.Join(a.Workloads.Names(), ", ") +
			"\nRun 'fairbench " + string(p) + " WORKLOAD --help' for a workload's options.",
		Args: cobra.ArbitraryArgs,
		// Flags belong to the workload subcommands: an unknown workload given
		// with some ("run oltp_rw --threads=4") is reported as unknown, not
		// its first flag.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s needs a workload: fairbench %s WORKLOAD (one of %s)", p, p, strings.Join(a.Workloads.Names(), ", "))
			}
			_, err := a.Workloads.Lookup(args[0])
			return withCode(ExitUsage, err)
		},
	}
	for _, name := range workloads {
		spec, _ := a.Workloads.Lookup(name)
		parent.AddCommand(a.newInvocation(p, spec).command)
	}
	parent.SetHelpFunc(func(c *cobra.Command, _ []string) { a.phaseHelp(c, p) })
	return parent
}

func (a *App) newInvocation(p phase, spec workload.Spec) *invocation {
	inv := &invocation{app: a, phase: p, spec: spec}
	cmd := &cobra.Command{
		Use:   spec.Name + " [flags]",
		Short: spec.Summary,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return inv.runPhase(cmd) },
	}
	wfs := pflag.NewFlagSet("workload", pflag.ContinueOnError)
	inv.wl = spec.New(wfs)
	inv.groups = append(inv.groups, flagGroup{spec.Name + " options", wfs})

	switch p {
	case phaseRun:
		inv.groups = append(inv.groups, inv.run.register()...)
	case phasePrepare:
		pfs := pflag.NewFlagSet("prepare", pflag.ContinueOnError)
		pfs.IntVar(&inv.prep.threads, "threads", 1, "tables (or parts of tables) loaded in parallel")
		pfs.BoolVar(&inv.prep.replace, "replace", false, "drop and recreate tables that already exist")
		inv.groups = append(inv.groups, flagGroup{"Prepare options", pfs})
	case phaseCheck:
		kfs := pflag.NewFlagSet("check", pflag.ContinueOnError)
		kfs.IntVar(&inv.check.threads, "threads", 4, "conditions checked in parallel")
		kfs.BoolVar(&inv.check.all, "check-all", false, "also check the conditions that hold only right after loading (TPC-C condition 11)")
		inv.groups = append(inv.groups, flagGroup{"Check options", kfs})
	case phaseWarmup:
		wfs := pflag.NewFlagSet("warmup", pflag.ContinueOnError)
		wfs.IntVar(&inv.warm.threads, "threads", 4, "tables read in parallel")
		inv.groups = append(inv.groups, flagGroup{"Warm-up options", wfs})
	}
	if p != phaseCleanup && p != phaseCheck && p != phaseWarmup {
		rfs := pflag.NewFlagSet("rand", pflag.ContinueOnError)
		inv.rnd.register(rfs)
		inv.groups = append(inv.groups, flagGroup{"Random numbers", rfs})
	}
	cfs := pflag.NewFlagSet("connection", pflag.ContinueOnError)
	inv.target = newTargetFlags(cfs)
	inv.groups = append(inv.groups, flagGroup{"Connection options", cfs})

	for _, g := range inv.groups {
		cmd.Flags().AddFlagSet(g.fs)
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { inv.help(c) })
	cmd.SetUsageFunc(func(c *cobra.Command) error { inv.help(c); return nil })
	inv.command = cmd
	return inv
}

// runPhase runs the command's phase once its flags are parsed: it refuses
// options the workload cannot honour, notes those it ignores, checks the
// counts and calls the phase.
func (inv *invocation) runPhase(cmd *cobra.Command) error {
	if err := workload.RefuseUnused(inv.spec.Name, inv.wl, cmd.Flags().Changed); err != nil {
		return withCode(ExitUsage, err)
	}
	inv.ignored = append(workload.IgnoredGiven(inv.spec.Name, inv.wl, cmd.Flags().Changed), inv.target.ignoredGiven(cmd.Flags())...)
	if note, _ := inv.app.dropinIgnored(); note != "" {
		inv.ignored = append(inv.ignored, note)
	}
	inv.ignored = append(inv.ignored, inv.app.formNotes...)
	if inv.phase != phaseRun && inv.phase != phaseCheck {
		for _, note := range inv.ignored {
			fmt.Fprintf(inv.app.Stderr, "fairbench: note: %s\n", note)
		}
	}
	if err := inv.validateCounts(); err != nil {
		return withCode(ExitUsage, err)
	}
	if err := inv.wl.Validate(); err != nil {
		return withCode(ExitUsage, err)
	}
	switch inv.phase {
	case phasePrepare:
		return inv.prepare(cmd)
	case phaseRun:
		return inv.execute(cmd)
	case phaseCheck:
		return inv.checkData(cmd)
	case phaseWarmup:
		return inv.warmData(cmd)
	default:
		return inv.cleanup(cmd)
	}
}

// register defines the run command's own flags on flag sets of their help
// groups, in the order help prints them.
func (r *runFlags) register() []flagGroup {
	lfs := pflag.NewFlagSet("run length and load", pflag.ContinueOnError)
	ofs := pflag.NewFlagSet("output", pflag.ContinueOnError)
	mfs := pflag.NewFlagSet("live metrics and profiles", pflag.ContinueOnError)
	kfs := pflag.NewFlagSet("coordinated clients", pflag.ContinueOnError)
	pfs := pflag.NewFlagSet("client CPUs", pflag.ContinueOnError)
	lfs.IntVar(&r.threads, "threads", 1, "number of threads, each with its own connection")
	r.time = secondsValue(10 * time.Second)
	lfs.Var(&r.time, "time", "measured time in seconds or as a duration (10m, 90s), after the warm-up; 0 = no limit")
	lfs.Int64Var(&r.events, "events", 0, "stop after this many events; 0 = no limit")
	lfs.Int64Var(&r.eventsPerThread, "events-per-thread", 0, "stop each thread after this many events of its own, as pgbench -t does (--events counts them over all threads, sysbench's way); 0 = no limit")
	lfs.Float64Var(&r.latencyLimitMs, "latency-limit", 0, "count events slower than this many milliseconds (from their intended start) as late, and with --rate skip those already that late when their turn comes (pgbench -L); 0 = none")
	lfs.Float64Var(&r.rate, "rate", 0, "events per second over all threads on an open-loop schedule (a run below 95% of it warns); 0 = as fast as possible")
	ofs.Float64Var(&r.reportInterval, "report-interval", 0, "print interval statistics every N seconds; 0 = only the summary")
	lfs.Var(&r.warmup, "warmup-time", "warm-up before the measured time, in seconds or as a duration (1m), reported apart and excluded from the results")
	ofs.StringVar(&r.percentiles, "percentile", "50,90,95,99,99.9", "latency percentiles to report, a comma list")
	ofs.BoolVar(&r.histogram, "histogram", false, "print sysbench's latency histogram (values in ms) before the summary, from the run's HDR histogram")
	ofs.IntVar(&r.verbosity, "verbosity", sysbenchout.LevelNotice, "sysbench's verbosity, 0-5: below 3 the header, interval lines and summary are left out (warnings stay at 1 and 2, errors always); the result file is the same at every level")
	ofs.BoolVar(&r.dbDebug, "db-debug", false, "print every statement the threads send, with its arguments, on stderr, prefixed with the thread's number (as sysbench's --db-debug); the run's figures then include the printing, and its result says so")
	ofs.StringVar(&r.checkpoints, "report-checkpoints", "", "print a summary of the measured phase so far at these seconds since its start (a comma list: 10,60), as sysbench's checkpoint reports but cumulative (sysbench's reset its counters); kept in the result's checkpoints")
	lfs.Var(&r.forcedShutdown, "forced-shutdown", "let the events in flight when --time ends finish and count them, waiting at most this long: seconds (30), a share of --time (5%, the value when the option is alone) or off (no limit); past it they are cancelled, the summary printed and the run fails with exit 2, as sysbench's --forced-shutdown. Without it they are abandoned at --time, uncounted")
	lfs.Lookup("forced-shutdown").NoOptDefVal = runner.ForcedShutdownDefault
	ofs.StringVarP(&r.output, "output", "o", "", "write the JSON result to this file (atomically)")
	ofs.StringVar(&r.eventLog, "event-log", "", "write every event of the measured phase to this file, a line each in pgbench's -l layout: client, its event number, latency in µs (or skipped, failed, serialization, deadlock), script number, Unix seconds and µs of its end, [schedule lag µs with --rate], [retries with --max-tries]")
	ofs.IntVar(&r.eventLogFiles, "event-log-files", 1, "split the threads among this many event logs (FILE, FILE.1, …) in contiguous blocks, as pgbench -j splits its clients among its threads")
	ofs.IntVar(&r.eventLogAggregate, "event-log-aggregate", 0, "log one line per this many seconds instead of one per event (pgbench's --aggregate-interval layout: start, count, latency sum, sum of squares, min, max, the same of the lag, skipped, retried, retries, serialization failures, deadlocks); 0 = one line per event")
	ofs.Float64Var(&r.eventLogSample, "event-log-sample", 1, "log only this fraction of the events, chosen at random (pgbench's --sampling-rate); not with --event-log-aggregate")
	ofs.StringVar(&r.format, "format", "text", "standard output format: text (sysbench-like) or json (the result document; text goes to stderr)")
	ofs.StringVar(&r.outputStyle, "output-style", gotpccli.StyleFairbench, "layout of the text output: "+strings.Join(gotpccli.Styles, ", ")+" (go-tpc's [Current]/[Summary]/tpmC lines on stdout for scripts that scrape them, the rest on stderr; TPC-C) or "+pgbenchcli.StylePgbench+" (pgbench's progress lines on stderr and report on stdout; pgbench's workloads)")
	mfs.StringVar(&r.cpuProfile, "cpu-profile", "", "write a Go CPU profile of the client to this file (for 'go tool pprof')")
	mfs.StringVar(&r.memProfile, "mem-profile", "", "write a Go heap profile of the client to this file when the run ends (for 'go tool pprof'; -sample_index=alloc_space shows what the run allocated)")
	lfs.BoolVar(&r.connectPerEvent, "connect-per-event", false, "open a new connection for every event and close it after, as pgbench -C does (to measure a server's or a pooler's connection cost): the events' latencies and the throughput include connecting; the result counts the connections and their time (counts.connects, connect_ms)")
	lfs.IntVar(&r.jobs, "jobs", 0, "share this many OS threads among the threads' connections, as pgbench -j does: consecutive threads form a group whose connections wait for their replies in one poll, so that with many connections per CPU one wake-up serves several replies (less client CPU per event); 0 = an OS thread per connection. Network targets only (the embedded SQLite has no connection to wait for); not with --connect-per-event")
	lfs.Float64Var(&r.connectRate, "connect-rate", 0, "open at most this many connections per second at the start (0 = as fast as 16 at a time allow)")
	r.reconnectTimeout = secondsValue(runner.DefaultReconnectTimeout)
	lfs.Var(&r.reconnectTimeout, "reconnect-timeout", "seconds (or a duration: 90s, 2m) a thread keeps trying to replace a lost connection before the run fails; a thread still without one when the measured phase ends fails the run too; it is also the stall limit until the first interval with events (see docs/result-format.md, Stalls), and a run without --time fails on a stall longer than it")
	mfs.StringVar(&r.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics on this address during the run, e.g. 127.0.0.1:9105; :PORT listens on every interface, without authentication (fine inside a Kubernetes pod, open to the network elsewhere)")
	mfs.Float64Var(&r.metricsLinger, "metrics-linger", livemetrics.DefaultLinger.Seconds(), "seconds the --metrics-addr endpoint keeps answering after the run ends, so that the last scrape sees the final figures (0 = stop at once; Ctrl-C skips it)")
	ofs.BoolVar(&r.intervalHistograms, "interval-histograms", false, "keep each interval's latency histogram in the result (always on with --clients), so that 'fairbench merge' recomputes interval percentiles exactly; a few KB per interval")
	kfs.IntVar(&r.clients, "clients", 0, "number of coordinated clients (processes, usually on several machines) that run together, each writing its own result for 'fairbench merge'; needs --start-at")
	kfs.IntVar(&r.clientID, "client-id", 0, "this client's id among --clients, from 0 to N-1")
	kfs.StringVar(&r.startAt, "start-at", "", "wait and start at this moment: an RFC 3339 time (2026-11-22T05:00:00Z) or Unix seconds; give every client the same")
	kfs.StringVar(&r.startClock, "start-clock", startClockServer, "whose clock --start-at is read on: server (the database server's, measured over round trips, so the clients' clocks need not agree) or local (this machine's)")
	r.pin.register(pfs, "the CPUs the database server on this machine may not use")
	sfs := pflag.NewFlagSet("server machine", pflag.ContinueOnError)
	r.server.register(sfs)
	return []flagGroup{
		{"Run length and load", lfs},
		{"Output", ofs},
		{"Live metrics and profiles", mfs},
		{"Coordinated clients", kfs},
		{"Client CPUs", pfs},
		{serverMachineGroup, sfs},
	}
}

// validateCounts is the one check of the command's own count options
// (--threads of every phase; --time, --warmup-time and --events of run)
// against the bounds the suite plans share (workload.Max*), so that no count
// reaches an allocation, a duration or a loop it would overflow. The
// workload's own counts (--tables, --table-size, --warehouses) are its
// Validate's.
func (inv *invocation) validateCounts() error {
	threads := map[phase]int{phaseRun: inv.run.threads, phasePrepare: inv.prep.threads, phaseCheck: inv.check.threads, phaseWarmup: inv.warm.threads}
	if n, ok := threads[inv.phase]; ok {
		if err := workload.CheckCount("--threads", int64(n), 1, workload.MaxThreads, "threads"); err != nil {
			return err
		}
	}
	if inv.phase != phaseRun {
		return nil
	}
	const secs = "seconds (30 days at most)"
	for _, c := range []struct {
		flag   string
		n, max int64
		what   string
	}{
		{"--time", int64(time.Duration(inv.run.time).Seconds()), workload.MaxSeconds, secs + "; 0 = no limit"},
		{"--warmup-time", int64(time.Duration(inv.run.warmup).Seconds()), workload.MaxSeconds, secs},
		{"--events", inv.run.events, workload.MaxEvents, "events; 0 = no limit"},
		{"--events-per-thread", inv.run.eventsPerThread, workload.MaxEvents, "events; 0 = no limit"},
	} {
		if err := workload.CheckCount(c.flag, c.n, 0, c.max, c.what); err != nil {
			return err
		}
	}
	return nil
}

// help prints the subcommand's flags grouped by kind. The options the
// workload accepts and never reads (workload.OptionNotes: sysbench's
// scripts take the family's options alike) follow its own, under a heading
// of their own; those it refuses (workload.OptionScope) are named, not
// listed.
func (inv *invocation) help(c *cobra.Command) {
	w := c.OutOrStdout()
	fmt.Fprintf(w, "%s\n\nUsage:\n  fairbench %s %s [flags]\n", inv.spec.Summary, inv.phase, inv.spec.Name)
	var ignored, refused map[string]string
	if n, ok := inv.wl.(workload.OptionNotes); ok {
		ignored = n.IgnoredOptions()
	}
	if sc, ok := inv.wl.(workload.OptionScope); ok {
		refused = sc.UnusedOptions()
	}
	var compat []*pflag.Flag
	for _, g := range inv.groups {
		g.fs.VisitAll(func(f *pflag.Flag) {
			if _, ok := ignored[f.Name]; ok {
				compat = append(compat, f)
			}
		})
	}
	for i, g := range inv.groups {
		var read []*pflag.Flag
		g.fs.VisitAll(func(f *pflag.Flag) {
			_, ig := ignored[f.Name]
			_, ref := refused[f.Name]
			if !ig && !ref {
				read = append(read, f)
			}
		})
		printFlags(w, g.title, read)
		if i == 0 { // the workload's own options
			printFlags(w, "Accepted for sysbench compatibility, with no effect on "+inv.spec.Name, compat)
		}
	}
	byWhy := map[string][]string{}
	for n, why := range refused {
		byWhy[why] = append(byWhy[why], "--"+n)
	}
	whys := make([]string, 0, len(byWhy))
	for why := range byWhy {
		whys = append(whys, why)
	}
	sort.Strings(whys)
	for _, why := range whys {
		names := byWhy[why]
		sort.Strings(names)
		fmt.Fprintf(w, "\n%s refuses %s: %s.\n", inv.spec.Name, strings.Join(names, ", "), why)
	}
	fmt.Fprintf(w, "\nPasswords may also come from MYSQL_PWD / PGPASSWORD. Without --mysql-* or --pgsql-* flags the target is the embedded SQLite database %s.\n", DefaultSQLitePath)
}

// printFlags prints flags under title, as pflag's usage lines; nothing when
// there are none.
func printFlags(w io.Writer, title string, flags []*pflag.Flag) {
	if len(flags) == 0 {
		return
	}
	fs := pflag.NewFlagSet(title, pflag.ContinueOnError)
	for _, f := range flags {
		fs.AddFlag(f)
	}
	fmt.Fprintf(w, "\n%s:\n%s", title, fs.FlagUsages())
}

// phaseHelp prints the help of a phase's command (`run --help`, `help
// run`): its workloads, and the options every workload's command of the
// phase takes, grouped as a workload's help groups them (the workload's own
// options are in its help).
func (a *App) phaseHelp(c *cobra.Command, p phase) {
	w := c.OutOrStdout()
	fmt.Fprintf(w, "%s.\n\nUsage:\n  fairbench %s WORKLOAD [flags]\n\nWorkloads:\n", phaseShort[p], p)
	names := a.Workloads.Names()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		spec, _ := a.Workloads.Lookup(n)
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, spec.Summary)
	}
	if len(names) == 0 {
		return
	}
	spec, _ := a.Workloads.Lookup(names[0])
	inv := a.newInvocation(p, spec)
	for _, g := range inv.groups[1:] { // [0] is the workload's own
		fmt.Fprintf(w, "\n%s:\n%s", g.title, g.fs.FlagUsages())
	}
	fmt.Fprintf(w, "\nEach workload has options of its own (--tables, --warehouses, …): 'fairbench %s WORKLOAD --help' lists them with these.\n", p)
	fmt.Fprintf(w, "Passwords may also come from MYSQL_PWD / PGPASSWORD. Without --mysql-* or --pgsql-* flags the target is the embedded SQLite database %s.\n", DefaultSQLitePath)
}
