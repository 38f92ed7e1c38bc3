package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/observe"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/sysinfo"
	"github.com/fairbench/fairbench/internal/workload"
)

// parsePercentiles reads the --percentile list.
func parsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := strconv.ParseFloat(part, 64)
		if err != nil || !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("--percentile %q: give percentiles in (0,100], e.g. 50,95,99.9", part)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--percentile is empty: give at least one, e.g. 95")
	}
	sort.Float64s(out)
	return out, nil
}

// runnerConfig builds and validates the runner configuration from the flags.
func (inv *invocation) runnerConfig(policy runner.ErrorPolicy) (runner.Config, error) {
	f := &inv.run
	pcts, err := parsePercentiles(f.percentiles)
	if err != nil {
		return runner.Config{}, err
	}
	if f.format != "text" && f.format != "json" {
		return runner.Config{}, fmt.Errorf("unknown --format %q: use text or json", f.format)
	}
	cfg := runner.Config{
		Threads:        f.threads,
		Duration:       time.Duration(f.time) * time.Second,
		Events:         f.events,
		Warmup:         time.Duration(f.warmup) * time.Second,
		Rate:           f.rate,
		ReportInterval: time.Duration(f.reportInterval * float64(time.Second)),
		Percentiles:    pcts,
		Ignore:         policy,
	}
	if f.time < 0 {
		return cfg, fmt.Errorf("--time must not be negative, got %d", f.time)
	}
	if f.warmup < 0 {
		return cfg, fmt.Errorf("--warmup-time must not be negative, got %d", f.warmup)
	}
	return cfg, cfg.Validate()
}

// execute is `fairbench run WORKLOAD`.
func (inv *invocation) execute(cmd *cobra.Command) error {
	ctx := cmd.Context()
	a := inv.app
	// Human output goes to stdout, or to stderr when stdout carries the JSON document.
	human := a.Stdout
	if inv.run.format == "json" {
		human = a.Stderr
	}
	rng, err := inv.rnd.factory(time.Now)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	// Validate everything the user typed before touching the target.
	if _, err := inv.runnerConfig(runner.ErrorPolicy{}); err != nil {
		return withCode(ExitUsage, err)
	}
	if _, _, err := inv.target.config(cmd.Flags(), a.Getenv); err != nil {
		return withCode(ExitUsage, err)
	}
	s, err := inv.openSession(ctx)
	if err != nil {
		return err
	}
	defer s.close()
	policy, err := runner.ParseErrorPolicy(s.ignore, s.drv.DefaultIgnorable())
	if err != nil {
		return withCode(ExitUsage, err)
	}
	rcfg, err := inv.runnerConfig(policy)
	if err != nil {
		return withCode(ExitUsage, err)
	}

	missing, err := inv.missingTables(ctx, s)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		if s.cfg.Kind != driver.KindSQLite {
			return withCode(ExitTarget, fmt.Errorf("%s lacks table(s) %s that %s needs: run 'fairbench prepare %s%s' first",
				describeTarget(s.cfg), strings.Join(missing, ", "), inv.spec.Name, inv.spec.Name, inv.sameFlags()))
		}
		fmt.Fprintf(human, "The embedded database %s lacks %s: preparing it now (as 'fairbench prepare %s' would).\n",
			s.cfg.Path, strings.Join(missing, ", "), inv.spec.Name)
		if err := inv.load(ctx, s, human, runtime.NumCPU(), false); err != nil {
			return err
		}
		fmt.Fprintln(human)
	}

	header(human, a.Version, inv.spec.Name, s, rcfg, rng.Config().Seed)
	if inv.run.cpuProfile != "" {
		stop, err := startCPUProfile(inv.run.cpuProfile)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		defer stop()
	}
	var probe *observe.Probe
	out := runner.Run(ctx, rcfg, runner.Deps{
		Driver:   s.drv,
		Workload: inv.wl,
		Rand:     rng,
		OnInterval: func(iv result.Interval) {
			intervalLine(human, iv, rcfg.Percentiles)
		},
		OnMeasure: func() { probe = observe.Begin(ctx, s.drv, s.server) },
	})

	res := inv.buildResult(s, rcfg, rng.Config().Seed, out)
	if probe != nil {
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		res.Observed = probe.End(octx)
		cancel()
	}
	summary(human, res, rcfg.Percentiles)
	if err := inv.emit(a.Stdout, res); err != nil {
		return withCode(ExitFailed, err)
	}
	switch out.Status {
	case result.StatusInterrupted:
		fmt.Fprintln(human, "\nInterrupted: the figures above cover the time that ran.")
		return withCode(ExitInterrupted, fmt.Errorf("interrupted"))
	case result.StatusFailed:
		return withCode(ExitFailed, fmt.Errorf("run failed: %w", out.Err))
	}
	return nil
}

// startCPUProfile profiles the client until the returned stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// emit writes the result file and/or the JSON document to stdout.
func (inv *invocation) emit(stdout io.Writer, res *result.Result) error {
	if inv.run.output != "" {
		if err := result.Write(inv.run.output, res); err != nil {
			return fmt.Errorf("writing the result to %s: %w", inv.run.output, err)
		}
	}
	if inv.run.format == "json" {
		return result.Encode(stdout, res)
	}
	return nil
}

// buildResult assembles the result document from what the run measured.
func (inv *invocation) buildResult(s *session, rcfg runner.Config, seed uint64, out *runner.Outcome) *result.Result {
	a := inv.app
	res := &result.Result{
		Schema:      result.SchemaVersion,
		Tool:        result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()},
		CommandLine: redactArgs(append([]string{"fairbench"}, a.argv...)),
		Workload:    inv.spec.Name,
		Options:     resolvedOptions(inv.command.Flags()),
		Seed:        seed,
		Target:      result.TargetOf(s.cfg),
		Machine:     sysinfo.LocalMachine(),
		Server:      s.server,
	}
	out.Fill(res, rcfg, inv.wl)
	res.Options["ignore-errors"] = rcfg.Ignore.String()
	return res
}

// load runs the workload's Prepare with progress on w.
func (inv *invocation) load(ctx context.Context, s *session, w io.Writer, threads int, replace bool) error {
	rng, err := inv.rnd.factory(time.Now)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	prog := workload.NewProgress(0)
	stop := startProgress(w, inv.app.IsTerminal(w), prog)
	err = inv.wl.Prepare(ctx, workload.PrepareEnv{
		Driver: s.drv, Threads: threads, Rand: rng, Replace: replace, Log: w, Progress: prog,
	})
	stop()
	done, _, elapsed := prog.Snapshot()
	switch {
	case err != nil && isInterrupted(ctx, err):
		return withCode(ExitInterrupted, fmt.Errorf("prepare interrupted after %d rows; run it again with --replace to start over", done))
	case err != nil:
		return withCode(ExitTarget, fmt.Errorf("prepare %s on %s: %w", inv.spec.Name, describeTarget(s.cfg), err))
	}
	if elapsed > 0 && done > 0 {
		fmt.Fprintf(w, "Loaded %d rows in %.2fs (%.0f rows/s).\n", done, elapsed.Seconds(), float64(done)/elapsed.Seconds())
	}
	return nil
}
