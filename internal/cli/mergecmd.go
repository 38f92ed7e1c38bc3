package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/suite"
	"github.com/fairbench/fairbench/internal/workload"
)

// mergeFlags are the options of `merge`.
type mergeFlags struct {
	output string
	format string
}

// mergeCommand is `fairbench merge RESULTS… -o FILE`.
func (a *App) mergeCommand() *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge RESULTS… [-o FILE] | merge DIRS… -o DIR",
		Short: "Combine the results (or suite directories) of coordinated clients into one",
		Long: strings.TrimSpace(`
merge combines the result files of the N clients of one coordinated run into the
result of the whole, exactly: counters and threads are summed, latency histograms
are merged and every percentile is recomputed from the merged histogram (never
averaged), the interval series are summed on aligned time, fairness is pooled over
all threads, and the workload's figures (TPC-C tpmC) are recomputed.

Each client runs the same command with its own --client-id (0 to N-1):

  fairbench run oltp_read_write --mysql-host=db1 --threads=16 --time=300 \
      --clients=3 --client-id=0 --start-at=2026-11-22T05:00:00Z --output=c0.json
  (the same on two more machines with --client-id=1 and 2)
  fairbench merge c0.json c1.json c2.json -o merged.json

merge refuses results that do not belong together: another workload, other
workload or run options (threads, rate, seed, output and connection details may
differ per client), another database or server, another --clients or
--start-at, or a client id missing or given twice. The message names the field
and the files. See docs/result-format.md, "Merged results".

Suite directories of the coordinated clients of one plan (a plan with clients:,
run as 'suite run PLAN --client-id I --run-id R' on every client) merge cell by
cell into a new suite directory:

  fairbench merge c0/ c1/ c2/ -o merged/

A cell complete in every directory becomes one merged result; the others are
listed as not merged, with why. The merged directory has a manifest, so
compare, report and suite status read it like any suite directory (a cell's
threads are then the clients' sum). Directories of another plan, scale or run
id are refused, naming what differs. The exit code is 1 when some cells did
not merge.`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("merge needs the result files of the clients: fairbench merge c0.json c1.json … -o merged.json (or their suite directories: fairbench merge c0/ c1/ … -o merged/)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.merge(args, f) },
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", "", "write the merged result to this file (atomically); for suite directories, the new directory of the merged suite")
	cmd.Flags().StringVar(&f.format, "format", "text", "standard output format: text (summary) or json (the merged result document)")
	return cmd
}

// merge reads, merges, writes and summarises.
func (a *App) merge(files []string, f *mergeFlags) error {
	if f.format != "text" && f.format != "json" {
		return usageErrorf("unknown --format %q: use text or json", f.format)
	}
	dirs, err := suiteOperands(files)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if dirs {
		return a.mergeSuites(files, f)
	}
	if f.output != "" {
		if err := outfile.Check(f.output); err != nil {
			return withCode(ExitUsage, fmt.Errorf("-o: %w", err))
		}
	}
	parts := make([]result.Part, len(files))
	for i, file := range files {
		r, err := result.Read(file)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		parts[i] = result.Part{File: file, Result: r}
	}
	warn := func(msg string) { fmt.Fprintf(a.Stderr, "fairbench: warning: %s\n", msg) }
	figures, err := a.figuresOf(parts[0].Result)
	if err != nil {
		warn(err.Error())
	}
	merged, err := result.Merge(parts, result.MergeOptions{Figures: figures, Warn: warn})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	merged.Tool = result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()}
	merged.CommandLine = redactArgs(append([]string{"fairbench"}, a.argv...))

	if f.output != "" {
		if err := result.Write(f.output, merged); err != nil {
			return withCode(ExitFailed, fmt.Errorf("writing the merged result to %s: %w", f.output, err))
		}
	}
	if f.format == "json" {
		if err := result.Encode(a.Stdout, merged); err != nil {
			return withCode(ExitFailed, err)
		}
		return mergedStatus(merged)
	}
	mergeSummary(a.Stdout, merged)
	if f.output != "" {
		fmt.Fprintf(a.Stdout, "\nMerged result written to %s.\n", f.output)
	}
	return mergedStatus(merged)
}

// mergedStatus makes a failed merged result (a client failed, or the merged
// phase judged an outage fatal) end the command with the exit code of a
// failed run, as the run itself would, after the result is written.
func mergedStatus(merged *result.Result) error {
	if merged.Status != result.StatusFailed {
		return nil
	}
	return withCode(ExitFailed, fmt.Errorf("the merged result is failed (written with what the clients measured): %s", merged.Error))
}

// figuresOf returns the workload's figure function, configured with the
// options the run recorded; nil when the workload has no figures.
func (a *App) figuresOf(r *result.Result) (func(*result.Phase) []result.Figure, error) {
	spec, err := a.Workloads.Lookup(r.Workload)
	if err != nil {
		return nil, fmt.Errorf("workload %q is unknown to this fairbench: the merged result has no workload figures", r.Workload)
	}
	fs := pflag.NewFlagSet(r.Workload, pflag.ContinueOnError)
	wl := spec.New(fs)
	sum, ok := wl.(workload.Summarizer)
	if !ok {
		return nil, nil
	}
	var setErr error
	fs.VisitAll(func(fl *pflag.Flag) {
		if v, ok := r.Options[fl.Name]; ok && setErr == nil {
			if err := fs.Set(fl.Name, v); err != nil {
				setErr = fmt.Errorf("option --%s=%s: %w", fl.Name, v, err)
			}
		}
	})
	if setErr != nil {
		return nil, fmt.Errorf("%w: the merged result has no workload figures", setErr)
	}
	return sum.Figures, nil
}

// mergeSummary prints the parts and the sysbench-like summary of the whole.
func mergeSummary(w io.Writer, m *result.Result) {
	fmt.Fprintf(w, "fairbench merge: %s, %d clients, %d threads in all\n\n", m.Workload, len(m.MergedFrom), m.Threads)
	fmt.Fprintf(w, "    %-6s %-24s %-20s %8s %10s %10s  %s\n", "client", "file", "machine", "threads", "seconds", "events", "status")
	for _, p := range m.MergedFrom {
		host := p.Machine.Hostname
		if host == "" {
			host = "?"
		}
		fmt.Fprintf(w, "    %-6d %-24s %-20s %8d %10.3f %10d  %s\n", p.ClientID, p.File, host, p.Threads, p.Seconds, p.Events, p.Status)
	}
	var pcts []float64
	for k := range m.Totals.Latency.Percentiles {
		if v, err := strconv.ParseFloat(k, 64); err == nil {
			pcts = append(pcts, v)
		}
	}
	sort.Float64s(pcts)
	if len(pcts) == 0 {
		pcts = []float64{95}
	}
	fmt.Fprintln(w)
	summary(w, m, pcts)
}

// suiteOperands reports whether merge was given suite directories (all of
// them) rather than result files, and refuses a mix.
func suiteOperands(args []string) (bool, error) {
	var dirs, files []string
	for _, arg := range args {
		if info, err := os.Stat(arg); err == nil && info.IsDir() {
			dirs = append(dirs, arg)
		} else {
			files = append(files, arg)
		}
	}
	if len(dirs) > 0 && len(files) > 0 {
		return false, fmt.Errorf("merge takes either result files or suite directories, not both: %s is a directory, %s is not", dirs[0], files[0])
	}
	return len(dirs) > 0, nil
}

// mergeSuites merges the suite directories of coordinated clients cell by cell.
func (a *App) mergeSuites(dirs []string, f *mergeFlags) error {
	if f.output == "" {
		return usageErrorf("merging suite directories needs -o DIR, a new directory for the merged suite: fairbench merge %s -o merged", strings.Join(dirs, " "))
	}
	if f.format != "text" {
		return usageErrorf("--format %s applies to result files; the merged suite's manifest is %s", f.format, filepath.Join(f.output, suitedir.ManifestName))
	}
	warn := func(msg string) { fmt.Fprintf(a.Stderr, "fairbench: warning: %s\n", msg) }
	m, err := suite.MergeDirs(dirs, f.output, suite.MergeOptions{
		Figures:     a.figuresOf,
		Warn:        warn,
		Tool:        result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()},
		CommandLine: redactArgs(append([]string{"fairbench"}, a.argv...)),
	})
	if err != nil {
		if m == nil {
			return withCode(ExitUsage, err)
		}
		return withCode(ExitFailed, err)
	}
	merged := m.Counts()[suitedir.StatusComplete]
	fmt.Fprintf(a.Stdout, "fairbench merge: suite %s, run %s, %d clients: %d of %d cells merged\n\n", m.Plan.Name, m.Merged.RunID, m.Merged.Clients, merged, len(m.Cells))
	for _, c := range m.Cells {
		if c.Status == suitedir.StatusComplete {
			fmt.Fprintf(a.Stdout, "  %4d %-40s merged: %d threads, %.2f tps, %.2f qps\n", c.Index, c.ID, c.Threads, c.Summary.TPS, c.Summary.QPS)
			continue
		}
		fmt.Fprintf(a.Stdout, "  %4d %-40s %s\n", c.Index, c.ID, c.Error)
	}
	fmt.Fprintln(a.Stdout)
	suite.WriteTables(a.Stdout, m)
	fmt.Fprintf(a.Stdout, "Merged suite written to %s (fairbench suite status %s; fairbench report %s).\n", f.output, f.output, f.output)
	if merged < len(m.Cells) {
		return withCode(ExitFailed, fmt.Errorf("%d of %d cells were not merged (listed above, with why): resume the clients with the cells missing, then merge again into a new directory",
			len(m.Cells)-merged, len(m.Cells)))
	}
	return nil
}
