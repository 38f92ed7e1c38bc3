package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/targetspec"
	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/rerun"
	"github.com/fairbench/fairbench/internal/run/suite"
)

// rerunPasswordEnv is the environment variable through which a password
// given on rerun's command line reaches the re-run's plan (plans name
// where a password is, never the password).
const rerunPasswordEnv = "FAIRBENCH_RERUN_PASSWORD"

// rerunFlags are rerun's options.
type rerunFlags struct {
	suite   suiteFlags
	target  *targetFlags
	managed bool
	only    []string
	report  string
	label   string
	// allowMixed compares rows of another transport (socket vs TCP),
	// marked † mixed, instead of refusing before the run.
	allowMixed bool
}

const rerunHelp = `rerun runs a bundle's plan on this machine — the same workloads, data sets,
options, rounds and warm-ups — then compares "yours" with the bundle's: the
comparison on standard output (what differs first: machines, servers and their
settings, fairbench's versions), the HTML report in the suite directory.

Where the load goes:
  the target options, as run takes them     your server (its settings are yours)
  --managed                                  the server the plan starts; for a plan that
                                             did not start one, a local server of the
                                             bundle's flavour (with --allow-mixed: its
                                             profile and socket change every row's key)
  neither                                    what the plan ran against, when that is
                                             the embedded database or a server it starts

What this machine cannot run is named before anything runs (matrix.server_cpus values
above its CPUs, server profiles its memory cannot hold: --skip-impossible leaves them
out; a flavour fairbench cannot start). --only KEY=VALUES keeps some of the plan's
values (workloads, rand_types, threads, server_cpus, profiles); --scale shortens it,
and a scaled data set is no longer the bundle's (its rows are not compared with the
bundle's, and the run says so first).

A bundle of single runs is re-run run by run: each recorded "fairbench run WORKLOAD …"
(or sysbench's "fairbench WORKLOAD … run") against your target, its data prepared once
first, the results in --out; pgbench's and go-tpc's forms and imported logs are refused.

  fairbench rerun arm-suite.fbz --managed
  fairbench rerun arm-suite.fbz --mysql-host db1 --mysql-user sbtest --only threads=1,16`

// rerunCommand is `fairbench rerun BUNDLE`.
func (a *App) rerunCommand() *cobra.Command {
	f := &rerunFlags{}
	cmd := &cobra.Command{
		Use:   "rerun BUNDLE.fbz [target options | --managed] [--only KEY=VALUES] [--scale F] [--out DIR]",
		Short: "Run a bundle's plan on this machine and compare yours with the bundle's",
		Long:  rerunHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("rerun needs one bundle: fairbench rerun NAME.fbz [target options | --managed]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.rerun(cmd, args[0], f) },
	}
	fs := cmd.Flags()
	f.target = newTargetFlags(fs)
	fs.BoolVar(&f.managed, "managed", false, "start a local server of the bundle's flavour (mariadb, mysql or postgres) instead of naming yours")
	fs.StringArrayVar(&f.only, "only", nil, "keep only these values of the plan: KEY=V1,V2 with KEY workloads, rand_types, threads, server_cpus or profiles (repeat for several keys)")
	fs.StringVar(&f.report, "report", "", "the HTML report of yours vs the bundle's (default DIR/rerun-report.html)")
	fs.StringVar(&f.label, "label", "yours", "the label of this machine's system in the comparison")
	fs.BoolVar(&f.allowMixed, "allow-mixed", false, "run even when your rows cannot share the bundle's key — your target's transport (Unix socket or TCP) is not the bundle's, or --managed starts a server for a plan that did not start one (a profile, a socket) — and put them side by side marked † mixed; without it such a re-run is refused before it runs")
	fs.StringVarP(&f.suite.out, "out", "o", "", "suite directory for your results (default "+resultsParent+"/PLAN-NAME-DATE-TIME)")
	fs.BoolVar(&f.suite.resume, "resume", false, "continue an interrupted re-run in --out")
	fs.BoolVar(&f.suite.dryRun, "dry-run", false, "print the re-run's matrix and estimated duration, and run nothing")
	fs.BoolVar(&f.suite.skip, "skip-impossible", false, "leave out the plan's values this machine cannot run and run the rest (said before and recorded)")
	fs.Float64Var(&f.suite.scale, "scale", 1, "scale times and data sizes by this factor (a scaled data set is not the bundle's: its rows are not compared)")
	f.suite.clientID = suite.NoClientID
	f.suite.pin.register(fs, "the usable CPUs the plan's server.cpus does not take (overrides the plan's run.client_cpus)")
	return cmd
}

// rerun is `fairbench rerun`.
func (a *App) rerun(cmd *cobra.Command, path string, f *rerunFlags) error {
	b, err := bundle.Open(path)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if b.Manifest().Kind == bundle.KindResults {
		return a.rerunRuns(cmd.Context(), path, b, f, cmd.Flags(), a.Getenv)
	}
	rec, err := recordedSuite(path, b)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	env := a.suiteEnv()
	opts := rerun.Options{Managed: f.managed, Only: f.only, AllowMixed: f.allowMixed}
	if opts.Target, err = f.target.rerunSettings(cmd.Flags(), env.Getenv); err != nil {
		return withCode(ExitUsage, err)
	}
	if pw, ok := opts.Target[targetspec.Password]; ok {
		getenv := env.Getenv
		env.Getenv = func(name string) string {
			if name == rerunPasswordEnv {
				return pw
			}
			return getenv(name)
		}
	}
	prepared, err := rerun.Prepare(rec, opts)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	plan, err := suite.ParsePlan(filepath.Base(path)+":plan.yaml", prepared.Text)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("the re-run's plan: %w", err))
	}
	if err := sameTransport(plan, env, bundleTransport(b), path, f.allowMixed); err != nil {
		return withCode(ExitUsage, err)
	}
	a.printRerunHeader(path, b, prepared.Notes, f)
	if err := checkSuitePlan(plan, f.suite, env); err != nil {
		return withCode(ExitUsage, err)
	}
	again := "fairbench " + strings.Join(withoutOutFlags(redactArgs(a.argv)), " ")
	dir, err := a.runSuitePlan(cmd.Context(), plan, env, f.suite, again)
	if err != nil || f.suite.dryRun {
		return err
	}
	return a.rerunReport(dir, path, f)
}

// withoutOutFlags drops --out DIR and --resume from a command line, which
// the resume hint adds again.
func withoutOutFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--out" || a == "-o":
			i++
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-o=") || a == "--resume":
		default:
			out = append(out, a)
		}
	}
	return out
}

// rerunSettings are the target options given, as target settings (nil when
// none was: the bundle's target is kept). A password given goes through
// rerunPasswordEnv; otherwise the driver's variable names it when set.
func (t *targetFlags) rerunSettings(fs *pflag.FlagSet, getenv func(string) string) (targetspec.Settings, error) {
	if len(targetArgsGiven(fs)) == 0 {
		return nil, nil
	}
	kind, err := t.resolveKind(fs)
	if err != nil {
		return nil, err
	}
	s := t.settings(fs, kind)
	if s[targetspec.Password] == "" {
		// As run: the driver's variable when it holds a password.
		if env := targetspec.DefaultPasswordEnv(kind); env != "" && getenv(env) != "" {
			s[targetspec.PasswordEnv] = env
		}
	} else {
		s[targetspec.PasswordEnv] = rerunPasswordEnv
	}
	return s, nil
}

// recordedSuite is what rerun needs of a suite bundle: its plan, the
// servers and the thread counts its cells ran.
func recordedSuite(path string, b *bundle.Bundle) (rerun.Recorded, error) {
	m := b.Manifest()
	rec := rerun.Recorded{Name: filepath.Base(path), Plan: []byte(m.Plan)}
	if m.Plan == "" {
		return rec, fmt.Errorf("%s holds a suite without its plan: there is nothing to re-run", path)
	}
	data, err := fs.ReadFile(b.FS(), suitedir.ManifestName)
	if err != nil {
		return rec, fmt.Errorf("%s: its suite manifest: %w", path, err)
	}
	sm, err := suitedir.ParseManifest(data, path+": "+suitedir.ManifestName)
	if err != nil {
		return rec, err
	}
	rec.Servers = sm.Servers
	for _, c := range sm.Cells {
		if c.Threads > 0 && !slices.Contains(rec.Threads, c.Threads) {
			rec.Threads = append(rec.Threads, c.Threads)
		}
	}
	slices.Sort(rec.Threads)
	return rec, nil
}

// bundleTransport is how the bundle's runs reached their server (the first
// result that says: "socket" or "tcp"), "" when none does.
func bundleTransport(b *bundle.Bundle) string {
	for _, m := range b.Manifest().Members {
		name, ok := strings.CutPrefix(m.Name, bundle.DataDir+"/")
		if !ok || !strings.HasSuffix(name, ".json") || name == suitedir.ManifestName {
			continue
		}
		f, err := b.FS().Open(name)
		if err != nil {
			continue
		}
		res, err := result.Decode(f)
		f.Close()
		if err == nil && res.Target.TransportOf() != "" {
			return res.Target.TransportOf()
		}
	}
	return ""
}

// sameTransport refuses, before anything runs, a re-run whose connections
// would reach the server another way (Unix socket, TCP) than the bundle's
// did: the transport is part of a row's key, so no row would be compared.
// A plan that starts its own server, the embedded database and a bundle
// that does not say are let through.
func sameTransport(plan *suite.Plan, env suite.Env, theirs, path string, allowMixed bool) error {
	if plan.Server != nil || theirs == "" || allowMixed {
		return nil
	}
	cfg, _, err := plan.TargetConfig(env.Getenv)
	if err != nil {
		return nil // the plan's check says what is wrong
	}
	return transportsMatch(cfg, theirs, path)
}

// printRerunHeader says what is re-run and what the re-run does
// differently, before anything runs.
func (a *App) printRerunHeader(path string, b *bundle.Bundle, notes []string, f *rerunFlags) {
	m := b.Manifest()
	fmt.Fprintf(a.Stdout, "Re-running %s (sha256 %s, written by %s %s on %s)\n",
		path, m.SHA256, m.Tool.Name, m.Tool.Version, m.Created.Format("2006-01-02"))
	notes = append(notes, machineNotes(path, b, f.label)...)
	if f.suite.scale != 1 {
		notes = append(notes, fmt.Sprintf("--scale %g changes the data sizes: rows of a data set the bundle did not run are shown apart, not compared with the bundle's", f.suite.scale))
	}
	for _, n := range notes {
		fmt.Fprintf(a.Stdout, "  note: %s\n", n)
	}
}

// rerunReport compares yours (the suite directory dir) with the bundle's:
// the comparison on standard output, the HTML report in a file. Your results
// stay in dir whatever happens here.
func (a *App) rerunReport(dir, path string, f *rerunFlags) error {
	bundleLabel := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if bundleLabel == f.label {
		bundleLabel = "bundle"
	}
	args := []string{f.label + "=" + dir, bundleLabel + "=" + path}
	fmt.Fprintf(a.Stdout, "\n%s vs %s:\n\n", f.label, bundleLabel)
	cf := defaultReportFlags()
	cf.allowMixed = f.allowMixed
	if err := a.compare(args, cf, false); err != nil {
		return rerunCompareErr(err, dir, args)
	}
	out := f.report
	if out == "" {
		out = filepath.Join(dir, "rerun-report.html")
	}
	title := fmt.Sprintf("%s vs %s", f.label, bundleLabel)
	rf := defaultReportFlags()
	rf.format, rf.out, rf.title, rf.allowMixed = "html", out, title, f.allowMixed
	if err := a.runReport(args, rf); err != nil {
		return rerunCompareErr(err, dir, args)
	}
	fmt.Fprintf(a.Stdout, "\nThe report: %s\n", out)
	return nil
}

// machineNotes say what of the bundle's machine and prices this machine
// cannot reproduce: more CPUs than it has, a price sheet that prices the
// bundle's systems (yours only where the sheet lists it).
func machineNotes(path string, b *bundle.Bundle, label string) []string {
	var notes []string
	if data, err := fs.ReadFile(b.FS(), suitedir.ManifestName); err == nil {
		if sm, err := suitedir.ParseManifest(data, path); err == nil {
			if theirs, mine := sm.Machine.LogicalCPUs, machineCPUs(); theirs > mine {
				notes = append(notes, fmt.Sprintf("the bundle's client machine had %d logical CPUs, this process may use %d: the same thread counts run on fewer CPUs, so the comparison is of machines", theirs, mine))
			}
		}
	}
	if sheet, err := sheetOf(b); err == nil && sheet != nil {
		notes = append(notes, fmt.Sprintf("the bundle's price sheet prices %s: this machine has a price only if it is one of them — fairbench cost --prices %s --system %s=SYSTEM prices it, another sheet --prices FILE", strings.Join(sheet.SystemNames(), ", "), path, label))
	}
	return notes
}

// rerunCompareErr says where the results are when the comparison fails.
func rerunCompareErr(err error, dir string, args []string) error {
	var coded *exitError
	code := ExitFailed
	if errors.As(err, &coded) {
		code = coded.code
	}
	return withCode(code, fmt.Errorf("%w\nYour results are kept in %s; compare them with: fairbench compare %s", err, dir, strings.Join(args, " ")))
}
