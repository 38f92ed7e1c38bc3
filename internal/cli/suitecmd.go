package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/livemetrics"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/run/suite"
)

// suiteFlags are the options of `suite run`.
type suiteFlags struct {
	out         string
	resume      bool
	dryRun      bool
	skip        bool // --skip-impossible
	scale       float64
	metricsAddr string
	clientID    int    // --client-id; suite.NoClientID when not given
	runID       string // --run-id
	pin         clientCPUFlags
}

// suiteHelp and suiteRunHelp are the long help of suite and suite run.
const (
	suiteHelp = `A suite runs a plan: a YAML file naming the target, the data set, the matrix
(workloads × rand types × thread counts × rounds), the per-cell time and warm-up,
and the steps around the cells (prepare once, checksum and query warm-ups,
change-over sleeps, between-cell actions, cleanup). It writes one result file per
cell and a manifest to a directory, and can resume an interrupted suite.

A plan with a clients: section runs on N machines at once: each runs the same
plan with its own --client-id (0 to N-1) and the same --run-id; they meet in
the target database, client 0 alone prepares the data, every cell starts at the
same moment on all of them, and 'fairbench merge DIR0 DIR1 … -o DIR' merges
their suite directories cell by cell (docs/plans.md, "Coordinated clients").

Example plans are in plans/: quick.yaml (a minute on the embedded SQLite),
seed000-arm-vs-x86.yaml, seed004-compute-power.yaml, seed003-tpcc-sweep.yaml,
clients.yaml (three coordinated clients), seed001-split.yaml (the server on a
share of the machine's CPUs) and seed002-core-scaling.yaml (the server restarted
on 1, 2, 4, … CPUs: matrix.server_cpus).`
	suiteRunHelp = `run runs a plan's cells into a suite directory, or with --dry-run prints them, the
generated server configurations, the CPU lists the server and the client get on this
machine and the estimated duration.

A plan some of whose values this machine cannot run — matrix.server_cpus values above the
CPUs this process may use, server profiles whose buffer pool its memory cannot hold — is
refused before anything connects or runs, by --dry-run too, naming every such value with
its line and why. --skip-impossible runs the other cells instead (and --dry-run shows and
estimates only them); the values left out are printed and recorded in the manifest
(skipped).`
)

// suiteCommand builds `fairbench suite run|status`.
func (a *App) suiteCommand() *cobra.Command {
	parent := &cobra.Command{
		Use:   "suite",
		Short: "Run a whole benchmark plan (workloads × distributions × threads × rounds) and resume it",
		Long:  suiteHelp,
		Args:  noSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("suite needs a subcommand: fairbench suite run PLAN.yaml, or fairbench suite status DIR")
		},
	}
	parent.AddCommand(a.suiteRunCommand(), a.suiteStatusCommand())
	return parent
}

// suiteRunCommand is `fairbench suite run`.
func (a *App) suiteRunCommand() *cobra.Command {
	var f suiteFlags
	run := &cobra.Command{
		Use:   "run PLAN.yaml [--out DIR] [--resume] [--dry-run] [--skip-impossible] [--scale F] [--client-id I --run-id ID]",
		Short: "Run (or resume) a plan",
		Long:  suiteRunHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("suite run needs one plan file: fairbench suite run PLAN.yaml (examples in plans/)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.suiteRun(cmd, args[0], f) },
	}
	run.Flags().StringVarP(&f.out, "out", "o", "", "suite directory for the results and the manifest (default "+resultsParent+"/PLAN-NAME-DATE-TIME)")
	run.Flags().BoolVar(&f.resume, "resume", false, "continue the suite in --out (default: the plan's latest suite) with the cells not completed")
	run.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the expanded matrix and the estimated duration, and run nothing")
	run.Flags().BoolVar(&f.skip, "skip-impossible", false, "leave out the cells of the plan's values this machine cannot run (matrix.server_cpus values above its CPUs, server profiles its memory cannot hold) and run the rest, saying so in the output and the manifest (skipped); without it such a plan is refused, naming every such value")
	run.Flags().Float64Var(&f.scale, "scale", 1, "scale times and data sizes by this factor, for trying a plan (0.01 is about a hundred times shorter)")
	run.Flags().StringVar(&f.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics on this address while the suite runs, e.g. 127.0.0.1:9105; :PORT listens on every interface, without authentication (fine inside a Kubernetes pod, open to the network elsewhere)")
	run.Flags().IntVar(&f.clientID, "client-id", suite.NoClientID, "this client's id among the plan's coordinated clients (clients.count), from 0 to N-1; client 0 leads")
	run.Flags().StringVar(&f.runID, "run-id", "", "the token every coordinated client of one launch is given, e.g. the launcher's $(date +%s) (in Kubernetes the START_AT value)")
	f.pin.register(run.Flags(), "the usable CPUs the plan's server.cpus does not take (overrides the plan's run.client_cpus)")
	return run
}

// suiteStatusCommand is `fairbench suite status`.
func (a *App) suiteStatusCommand() *cobra.Command {
	var statusFormat string
	status := &cobra.Command{
		Use:   "status DIR",
		Short: "Show a suite's progress and its tables so far",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("suite status needs the suite directory: fairbench suite status DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.suiteStatus(args[0], statusFormat) },
	}
	addFormatFlag(status, &statusFormat, "text (progress and tables) or json (the manifest with the cells' counts by status)")
	return status
}

// suiteRun is `fairbench suite run`.
func (a *App) suiteRun(cmd *cobra.Command, planFile string, f suiteFlags) error {
	env := a.suiteEnv()
	plan, err := suite.ReadPlan(planFile)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := checkSuitePlan(plan, f, env); err != nil {
		return withCode(ExitUsage, err)
	}
	_, err = a.runSuitePlan(cmd.Context(), plan, env, f, "fairbench suite run "+planFile)
	return err
}

// suiteEnv is what a plan is checked against and run with: this machine
// and the app's workloads and environment.
func (a *App) suiteEnv() suite.Env {
	return suite.Env{Registry: a.Workloads, Getenv: a.Getenv, CPUs: machineCPUs(), Kube: a.Kubernetes,
		UsableCPUs: func() (cpuset.Set, error) { return cpuset.Usable(os.DirFS("/"), os.Getpid()) }}
}

// runSuitePlan runs a checked plan (checkSuitePlan) as `suite run` does;
// again is the command line that runs it again, for the resume hint.
func (a *App) runSuitePlan(ctx context.Context, plan *suite.Plan, env suite.Env, f suiteFlags, again string) (dir string, err error) {
	if f.dryRun {
		return "", withCode(ExitUsage, suite.DryRun(a.Stdout, plan))
	}
	client, err := clientOptions(plan, f, time.Now())
	if err != nil {
		return dir, withCode(ExitUsage, err)
	}
	dir, err = suiteDir(f, plan.Name, client, time.Now())
	if err != nil {
		return dir, withCode(ExitUsage, err)
	}
	if err := a.connecting(); err != nil {
		return dir, err
	}
	pin, pinnedRun, err := a.pinSuiteClient(plan, f, env)
	if pinnedRun || err != nil {
		return dir, err
	}
	fmt.Fprint(a.Stdout, describeClientCPUs(pin))
	// The directory is checked before the target is touched, so that a suite
	// that cannot start leaves nothing behind (not even the embedded database).
	if err := suite.CheckDir(plan, suite.Options{Dir: dir, Resume: f.resume, Scale: f.scale, Client: client}); err != nil {
		return dir, withCode(ExitUsage, err)
	}
	agents, err := a.suiteAgents(ctx, plan, env)
	if err != nil {
		return dir, err
	}
	watch, stop, err := a.suiteWatch(f, plan.Name)
	if err != nil {
		return dir, err
	}
	defer stop(ctx) // answers livemetrics.DefaultLinger longer after the suite, not after Ctrl-C
	m, err := suite.Run(ctx, plan, env, suite.Options{
		Agents: agents,
		Watch:  watch, Client: client, ClientCPUs: pin,
		Dir: dir, Resume: f.resume, Scale: f.scale, Out: a.Stdout, Terminal: a.IsTerminal(a.Stdout),
		Tool:        result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()},
		CommandLine: redactArgs(append([]string{"fairbench"}, a.argv...)),
	})
	return dir, a.suiteEnd(m, err, again, dir, f, client)
}

// checkSuitePlan applies --client-cpus to a plan, checks it against this
// machine (leaving out what it cannot run with --skip-impossible) and
// scales it by --scale.
func checkSuitePlan(plan *suite.Plan, f suiteFlags, env suite.Env) error {
	if !f.pin.spec.IsZero() { // the flag overrides the plan's run.client_cpus
		plan.Run.ClientCPUs = f.pin.spec.String()
	}
	plan.Run.AllowCPUOverlap = plan.Run.AllowCPUOverlap || f.pin.allowOverlap
	err := plan.Validate(env)
	if f.skip {
		err = plan.SkipImpossible(err)
	}
	if err != nil {
		return err
	}
	return plan.Scale(f.scale)
}

// suiteAgents finds the plan's agents before anything connects or runs (a
// failure refuses the suite), says what they found, and checks the target
// (suite.Preflight).
func (a *App) suiteAgents(ctx context.Context, plan *suite.Plan, env suite.Env) (*machinewatch.Discovered, error) {
	agents, err := plan.DiscoverAgents(ctx, env)
	if err != nil {
		return nil, withCode(ExitTarget, err)
	}
	if agents != nil {
		fmt.Fprintln(a.Stdout, agents.Summary())
	}
	if err := suite.Preflight(ctx, plan, env); err != nil {
		return nil, withCode(ExitTarget, err)
	}
	return agents, nil
}

// suiteWatch serves the suite's live metrics on --metrics-addr, if given:
// the watcher to feed, and stop, which ends serving.
func (a *App) suiteWatch(f suiteFlags, plan string) (suite.Watcher, func(context.Context), error) {
	if f.metricsAddr == "" {
		return nil, func(context.Context) {}, nil
	}
	exp := livemetrics.New(livemetrics.Labels{Plan: plan})
	srv, err := exp.Start(f.metricsAddr)
	if err != nil {
		return nil, nil, withCode(ExitUsage, fmt.Errorf("--metrics-addr: %w", err))
	}
	fmt.Fprintln(a.Stdout, srv.Announce())
	return suiteMetrics{exp}, srv.Stop, nil
}

// suiteEnd says how the suite in dir ended (m and err from suite.Run) and
// gives the error its exit code: after an interrupt, how to resume it.
func (a *App) suiteEnd(m *suitedir.Manifest, err error, again, dir string, f suiteFlags, client *suite.ClientOptions) error {
	var (
		target *suite.TargetError
		failed *suite.CellsFailedError
		coord  *suite.CoordinationError
	)
	switch {
	case err == nil:
		fmt.Fprintf(a.Stdout, "Suite complete: %d cells in %s\n", len(m.Cells), dir)
		return nil
	case errors.Is(err, suite.ErrInterrupted):
		fmt.Fprintf(a.Stdout, "Interrupted: the manifest and the partial cell are kept in %s; continue with: %s --out %s --resume%s%s\n",
			dir, again, dir, scaleFlag(f.scale), resumeClientFlags(client))
		return withCode(ExitInterrupted, errors.New(""))
	case errors.As(err, &coord):
		return withCode(ExitFailed, fmt.Errorf("%w\nThe cells this client completed are kept in %s; to run the rest, start every client again with --resume and a new --run-id%s",
			err, dir, scaleFlag(f.scale)))
	case errors.As(err, &target):
		return withCode(ExitTarget, err)
	case errors.As(err, &failed):
		return withCode(ExitFailed, err)
	case m == nil:
		return withCode(ExitUsage, err)
	}
	return withCode(ExitFailed, err)
}

// pinSuiteClient decides the suite's client CPUs (pinClient): against the
// plan's server, or the process of a local target.
func (a *App) pinSuiteClient(plan *suite.Plan, f suiteFlags, env suite.Env) (clientcpus.Decision, bool, error) {
	what := "run.client_cpus"
	if !f.pin.spec.IsZero() {
		what = "--client-cpus"
	}
	var srv clientcpus.Server
	if plan.Server != nil {
		usable, err := env.UsableCPUs()
		if err != nil {
			return clientcpus.Decision{}, false, usageErrorf("%s: cannot tell which CPUs this process may use: %v", what, err)
		}
		srv = plan.ManagedServerCPUs(usable)
	} else {
		cfg, _, err := plan.TargetConfig(a.Getenv)
		if err != nil {
			return clientcpus.Decision{}, false, withCode(ExitUsage, err)
		}
		var spec servermachine.Spec
		if plan.Target.ServerMachine != nil {
			spec = *plan.Target.ServerMachine
		}
		if srv, err = (servermachine.Env{}).ServerCPUs(spec, servermachine.Target{Config: cfg}); err != nil {
			return clientcpus.Decision{}, false, withCode(ExitUsage, err)
		}
	}
	return a.pinClient(plan.ClientCPUs(), srv, plan.Run.AllowCPUOverlap, what)
}

// suiteMetrics feeds a suite's progress to the live metrics.
type suiteMetrics struct{ e *livemetrics.Exporter }

func (m suiteMetrics) Phase(name string) { m.e.SetPhase(name) }

func (m suiteMetrics) Cell(index, cells int, id, workload string, threads int, kinds []string) {
	m.e.SetSuiteProgress(index, cells, id)
	m.e.StartRun(workload, threads, kinds)
}

func (m suiteMetrics) Interval(iv result.Interval, lat *metrics.Latency) {
	_ = m.e.ObserveInterval(iv, lat) // an error is a histogram that does not fit the buckets: the counters stand
}

// resultsParent is where suite directories go by default.
const resultsParent = "fairbench-results"

// suiteDir is --out, or a new directory named after the plan and the time
// (for a coordinated client: the run id and the client id), or with --resume
// the latest directory of the plan (of this client id).
func suiteDir(f suiteFlags, name string, client *suite.ClientOptions, now time.Time) (string, error) {
	if f.out != "" {
		return f.out, nil
	}
	if client != nil && !f.resume {
		return filepath.Join(resultsParent, fmt.Sprintf("%s-%s-c%d", name, dirSafe(client.RunID), client.ID)), nil
	}
	if !f.resume {
		return filepath.Join(resultsParent, name+"-"+now.Format("20060102-150405")), nil
	}
	if client != nil {
		return latestClientDir(name, client.ID)
	}
	dirs, _ := filepath.Glob(filepath.Join(resultsParent, name+"-*", suitedir.ManifestName))
	if len(dirs) == 0 {
		return "", fmt.Errorf("--resume: no suite of plan %s under %s/: give its directory with --out", name, resultsParent)
	}
	sort.Strings(dirs) // the time stamp sorts
	return filepath.Dir(dirs[len(dirs)-1]), nil
}

// latestClientDir is the most recently updated suite directory of client id
// of the plan (run ids need not sort).
func latestClientDir(name string, id int) (string, error) {
	manifests, _ := filepath.Glob(filepath.Join(resultsParent, fmt.Sprintf("%s-*-c%d", name, id), suitedir.ManifestName))
	best, bestTime := "", time.Time{}
	for _, m := range manifests {
		if info, err := os.Stat(m); err == nil && info.ModTime().After(bestTime) {
			best, bestTime = filepath.Dir(m), info.ModTime()
		}
	}
	if best == "" {
		return "", fmt.Errorf("--resume: no suite of plan %s for client %d under %s/: give its directory with --out", name, id, resultsParent)
	}
	return best, nil
}

// dirSafe makes a run id usable in a directory name.
func dirSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// clientOptions reads --client-id and --run-id and checks them against the
// plan (nil for a plan without clients).
func clientOptions(plan *suite.Plan, f suiteFlags, now time.Time) (*suite.ClientOptions, error) {
	c := &suite.ClientOptions{ID: f.clientID, RunID: f.runID}
	if err := plan.CheckClient(c, now); err != nil {
		return nil, err
	}
	if !plan.Coordinated() {
		return nil, nil
	}
	return c, nil
}

// resumeClientFlags are the flags a coordinated client resumes with.
func resumeClientFlags(c *suite.ClientOptions) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf(" --client-id %d --run-id NEW-RUN-ID (every client again, with the same new run id)", c.ID)
}

func scaleFlag(f float64) string {
	if f == 1 {
		return ""
	}
	return fmt.Sprintf(" --scale %v", f)
}

// suiteStatus is `fairbench suite status`.
func (a *App) suiteStatus(dir, format string) error {
	asJSON, err := jsonFormat(format)
	if err != nil {
		return err
	}
	m, err := suitedir.ReadManifest(dir)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if asJSON {
		return writeJSON(a.Stdout, struct {
			*suitedir.Manifest
			Counts map[string]int `json:"counts"`
		}{m, m.Counts()})
	}
	suite.WriteStatus(a.Stdout, m)
	return nil
}
