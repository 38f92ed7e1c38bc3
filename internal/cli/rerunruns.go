package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/compat/sysbenchcli"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/result"
)

// replay is one recorded `fairbench run` of a results bundle, made into the
// command lines that prepare its data and run it again against the user's
// target.
type replay struct {
	workload string
	threads  string
	prepare  []string      // fairbench prepare WORKLOAD [data options] [target]
	run      []string      // fairbench run WORKLOAD [options] [target] (--output added)
	planned  time.Duration // its warm-up and measured time, for the time left
}

// replayDrop are run's options a replay leaves out: where the result,
// profiles and event logs go (the re-run chooses: an author's paths are not
// written on the re-running machine), live metrics, and the text layout.
var replayDrop = []string{"output", "format", "output-style", "cpu-profile", "mem-profile", "metrics-addr", "metrics-linger", "db-debug",
	"event-log", "event-log-files", "event-log-aggregate", "event-log-sample"}

// replayMethodFlags are the connection options that are part of the method
// (how each connection behaves), kept from the recorded command line unless
// the user gives them: rerun's methodKeys, as run spells them. Those bound
// to one driver (error codes, MySQL protocol options) are left out.
var replayMethodFlags = []string{"db-ps-mode", "isolation-level", "session-var"}

// replayOf turns a recorded command line into a replay; target are the
// user's target options. Command lines that are not `fairbench run
// WORKLOAD …` (the sysbench, pgbench and go-tpc forms, imported logs) and
// coordinated runs are refused, naming why.
func (a *App) replayOf(r bundle.Run, target []string) (*replay, error) {
	line := a.canonicalRun(r.CommandLine)
	if len(line) < 3 || line[1] != string(phaseRun) {
		return nil, fmt.Errorf("%s: recorded as %q, not as `fairbench run WORKLOAD …` or sysbench's `fairbench WORKLOAD … run`: only such command lines can be re-run (the pgbench and go-tpc forms and imported logs cannot)", r.File, strings.Join(r.CommandLine, " "))
	}
	spec, err := a.Workloads.Lookup(line[2])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.File, err)
	}
	inv := a.newInvocation(phaseRun, spec)
	fs := inv.command.Flags()
	if err := fs.Parse(line[3:]); err != nil {
		return nil, fmt.Errorf("%s: its command line %q: %w", r.File, strings.Join(line, " "), err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: its command line has arguments fairbench run takes no more: %s", r.File, strings.Join(fs.Args(), " "))
	}
	if clients, _ := fs.GetInt("clients"); clients > 0 {
		return nil, fmt.Errorf("%s: one of %d coordinated clients (--clients): a coordinated run cannot be re-run alone", r.File, clients)
	}
	rp := &replay{workload: spec.Name, threads: fs.Lookup("threads").Value.String(),
		planned: time.Duration(inv.run.time + inv.run.warmup)}
	rp.prepare = []string{string(phasePrepare), spec.Name}
	rp.run = []string{string(phaseRun), spec.Name}
	for _, g := range inv.groups {
		args := changedArgs(g.fs, fs)
		switch {
		case g.title == "Connection options":
			// The user's target, but the method's session settings.
			kept := keepFlags(args, replayMethodFlags)
			rp.prepare = append(rp.prepare, withoutGiven(kept, target)...)
			rp.run = append(rp.run, withoutGiven(kept, target)...)
		case g.title == serverMachineGroup:
			continue // the user's server, whose machine the run finds itself
		case runGroups[g.title]:
			rp.run = append(rp.run, withoutFlags(args, replayDrop)...)
		default: // the workload's options and random numbers shape the data too
			rp.prepare = append(rp.prepare, args...)
			rp.run = append(rp.run, args...)
		}
	}
	rp.prepare = append(rp.prepare, target...)
	rp.run = append(rp.run, target...)
	return rp, nil
}

// canonicalRun is a recorded command line in fairbench's own form: one
// typed in sysbench's order and spellings ("fairbench oltp_read_only
// --threads=4 run") is translated as Execute translates it; any other is
// returned as it is.
func (a *App) canonicalRun(line []string) []string {
	if len(line) < 2 || line[1] == string(phaseRun) {
		return line
	}
	args := line[1:]
	c, err := sysbenchcli.Translate(args, a.sysbenchCatalog(a.commandTree(args)))
	if err != nil || c == nil {
		return line
	}
	return append([]string{line[0]}, c.Args...)
}

// changedArgs are the flags of group that were given in parsed, as
// --name=value arguments (a list flag once per value).
func changedArgs(group, parsed *pflag.FlagSet) []string {
	var out []string
	group.VisitAll(func(f *pflag.Flag) {
		pf := parsed.Lookup(f.Name)
		if pf == nil || !pf.Changed {
			return
		}
		if list, ok := pf.Value.(pflag.SliceValue); ok {
			for _, v := range list.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+pf.Value.String())
	})
	return out
}

// withoutFlags drops the --name=value arguments of names.
func withoutFlags(args, names []string) []string {
	return slices.DeleteFunc(args, func(arg string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		return slices.Contains(names, name)
	})
}

// keepFlags keeps the --name=value arguments of names.
func keepFlags(args, names []string) []string {
	return slices.DeleteFunc(slices.Clone(args), func(arg string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		return !slices.Contains(names, name)
	})
}

// withoutGiven drops the arguments whose flag the given arguments set.
func withoutGiven(args, given []string) []string {
	var names []string
	for _, g := range given {
		name, _, _ := strings.Cut(strings.TrimPrefix(g, "--"), "=")
		names = append(names, name)
	}
	return withoutFlags(slices.Clone(args), names)
}

// targetArgsGiven are the target options given to this command (those
// newTargetFlags registers), as --name=value arguments.
func targetArgsGiven(fs *pflag.FlagSet) []string {
	targetFS := pflag.NewFlagSet("target", pflag.ContinueOnError)
	newTargetFlags(targetFS)
	return changedArgs(targetFS, fs)
}

// rerunRuns re-runs a results bundle: each recorded `fairbench run` against
// the user's target, after preparing each data set once, each result in
// the output directory; then yours vs the bundle's.
func (a *App) rerunRuns(ctx context.Context, path string, b *bundle.Bundle, f *rerunFlags, fs *pflag.FlagSet, getenv func(string) string) error {
	m := b.Manifest()
	if f.managed || len(f.only) > 0 || f.suite.scale != 1 || f.suite.skip || f.suite.resume {
		return usageErrorf("%s holds single runs: --managed, --only, --scale, --skip-impossible and --resume re-run a suite's plan; re-run these runs with target options alone", path)
	}
	target := targetArgsGiven(fs)
	if err := a.sameRunTransport(b, f, fs, getenv, path); err != nil {
		return withCode(ExitUsage, err)
	}
	var replays []*replay
	for _, r := range m.Runs {
		rp, err := a.replayOf(r, target)
		if err != nil {
			return withCode(ExitUsage, fmt.Errorf("%s: %w", path, err))
		}
		replays = append(replays, rp)
	}
	dir := f.suite.out
	if dir == "" {
		dir = filepath.Join(resultsParent, "rerun-"+dirSafe(strings.TrimSuffix(filepath.Base(path), bundle.Ext))+"-"+time.Now().Format("20060102-150405"))
	}
	if err := checkNewDir(dir); err != nil {
		return withCode(ExitUsage, err)
	}
	fmt.Fprintf(a.Stdout, "Re-running %s (sha256 %s): %d recorded run(s) into %s\n", path, m.SHA256, len(replays), dir)
	for _, n := range machineNotes(path, b, f.label) {
		fmt.Fprintf(a.Stdout, "  note: %s\n", n)
	}
	if f.suite.dryRun {
		for _, rp := range replays {
			fmt.Fprintf(a.Stdout, "  fairbench %s\n", strings.Join(redactArgs(rp.run), " "))
		}
		return nil
	}
	if err := a.runReplays(ctx, replays, dir, getenv); err != nil {
		return err
	}
	return a.rerunReport(dir, path, f)
}

// checkNewDir checks, before anything runs, that dir can be made and holds
// no results yet.
func checkNewDir(dir string) error {
	if err := outfile.CheckDir(dir); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("--out %s: the directory exists and is not empty: name a new one", dir)
	}
	return nil
}

// runReplays prepares each data set once and runs each replay, its result
// in dir; the first failure stops them (the results so far are kept).
func (a *App) runReplays(ctx context.Context, replays []*replay, dir string, getenv func(string) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--out: %w", err))
	}
	var prepared [][]string
	start := time.Now()
	for i, rp := range replays {
		if ctx.Err() != nil {
			return withCode(ExitInterrupted, fmt.Errorf("interrupted: the results so far are in %s", dir))
		}
		child := &App{Stdout: a.Stdout, Stderr: a.Stderr, Getenv: getenv, IsTerminal: a.IsTerminal,
			Version: a.Version, Commit: a.Commit, Workloads: a.Workloads, Self: a.Self, Kubernetes: a.Kubernetes}
		if !slices.ContainsFunc(prepared, func(p []string) bool { return slices.Equal(p, rp.prepare) }) {
			fmt.Fprintf(a.Stdout, "-- [%d/%d] fairbench %s\n", i+1, len(replays), strings.Join(redactArgs(rp.prepare), " "))
			if code := child.Execute(ctx, rp.prepare); code != ExitOK {
				return withCode(code, fmt.Errorf("preparing the data of %s failed (exit %d): the results so far are in %s", rp.workload, code, dir))
			}
			prepared = append(prepared, rp.prepare)
		}
		out := filepath.Join(dir, fmt.Sprintf("%04d-%s-t%s.json", i+1, rp.workload, rp.threads))
		args := append(slices.Clone(rp.run), "--output="+out)
		fmt.Fprintf(a.Stdout, "-- [%d/%d] fairbench %s %s\n", i+1, len(replays), strings.Join(redactArgs(args), " "), replaysLeft(replays, i, time.Since(start)))
		if code := child.Execute(ctx, args); code != ExitOK {
			return withCode(code, fmt.Errorf("run %d of %d failed (exit %d): the results so far are in %s", i+1, len(replays), code, dir))
		}
	}
	return nil
}

// replaysLeft estimates the time the replays from i on take: their planned
// times, scaled by the pace of those done (preparing included).
func replaysLeft(replays []*replay, i int, elapsed time.Duration) string {
	var done, left time.Duration
	for j, rp := range replays {
		if j < i {
			done += rp.planned
		} else {
			left += rp.planned
		}
	}
	if done > 0 && elapsed > 0 {
		left = time.Duration(float64(left) * float64(elapsed) / float64(done))
	}
	return fmt.Sprintf("(%s left, ETA %s)", progress.Duration(left), time.Now().Add(left).Format("15:04:05"))
}

// sameRunTransport is sameTransport for a results bundle: the user's
// target against the bundle's runs.
func (a *App) sameRunTransport(b *bundle.Bundle, f *rerunFlags, fs *pflag.FlagSet, getenv func(string) string, path string) error {
	theirs := bundleTransport(b)
	if f.allowMixed || theirs == "" {
		return nil
	}
	cfg, _, err := f.target.config(fs, getenv)
	if err != nil {
		return err
	}
	return transportsMatch(cfg, theirs, path)
}

// transportsMatch refuses a target reached another way (Unix socket, TCP)
// than theirs ("" lets anything through).
func transportsMatch(cfg driver.Config, theirs, path string) error {
	if theirs == "" || cfg.Kind == driver.KindSQLite || cfg.DryRun {
		return nil
	}
	mine, how := result.TransportTCP, "hosts "+strings.Join(cfg.Hosts, ",")
	if cfg.Socket != "" {
		mine, how = result.TransportSocket, "the Unix socket "+cfg.Socket
	}
	if mine == theirs {
		return nil
	}
	fix := "name your server by host and port (--mysql-host 127.0.0.1 --mysql-port 3306, or --pgsql-…)"
	if theirs == result.TransportSocket {
		fix = "name its Unix socket (--mysql-socket or --pgsql-socket)"
	}
	return fmt.Errorf("%s reached its server over %s; your target is %s: the transport is part of every row's key, so no row would be compared: %s, or give --allow-mixed to run and compare rows marked † mixed",
		path, theirs, how, fix)
}
