package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/report"
	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/compat/importer"
	"github.com/fairbench/fairbench/internal/record/bundle"
)

// compareFlags are the options shared by `compare` and `report`.
type compareFlags struct {
	metric   string
	baseline string
	ghz      string
	vcpus    string
	center   string
	alpha    float64
	format   string
	out      string
	latency  string
	png      string
	title    string
	// barThreads is report --bar-threads (0: the default).
	barThreads int
	// rows select rows by workload or row label (--workload); allowMixed
	// puts figures of different things in one row, marked (--allow-mixed).
	rows       []string
	allowMixed bool
	costFlag   costFlags
}

func (f *compareFlags) register(fs *pflag.FlagSet, formats string) {
	fs.StringVar(&f.metric, "metric", "", "the figure compared: tps, qps, tpmc, or a latency percentile such as p95, p99 (default: "+metricDefault+")")
	fs.StringVar(&f.baseline, "baseline", "", "label of the system the others are compared with (default: the first)")
	fs.StringVar(&f.ghz, "ghz", "", "CPU frequencies of the machines under test (the database servers'), overriding what the results record, e.g. arm=2.6,x86=3.0 (used to frequency-scale)")
	fs.StringVar(&f.vcpus, "vcpus", "", "vCPU counts of the machines under test (the database servers'), overriding what the results record, e.g. arm=24,x86=24")
	fs.StringVar(&f.center, "center", string(analysis.DefaultCenter), "the statistic that stands for a cell's rounds: mean or median")
	fs.Float64Var(&f.alpha, "alpha", analysis.DefaultAlpha, "significance level of the Mann-Whitney U test")
	fs.StringVar(&f.format, "format", "text", "output format: "+formats)
	fs.StringVarP(&f.out, "out", "o", "", "write to this file instead of standard output")
	fs.StringArrayVar(&f.rows, "workload", nil, "compare only these rows: a workload (tpcc) or a row label as compare prints it (tpcc/uniform/w100, \"tpcc (uniform, w100)\"); repeat for several")
	f.registerMixed(fs)
}

// registerMixed adds --allow-mixed, shared by compare, report and cost.
func (f *compareFlags) registerMixed(fs *pflag.FlagSet) {
	fs.BoolVar(&f.allowMixed, "allow-mixed", false, "when the systems share no row of a workload (different data sets, distributions, profiles or run options), put their figures in one row anyway, marked † mixed; without it such a comparison is refused")
}

// loadSystems reads the operands (analysis.LoadSystems: PATH or
// LABEL=PATH, each a result file, a suite directory, a directory of result
// files or a log; operands given the same label are one system) and gives
// them the frequencies and vCPU counts of --ghz and --vcpus.
func loadSystems(args []string, f *compareFlags) ([]*analysis.System, error) {
	systems, err := analysis.LoadSystems(args, loadOperand)
	if err != nil {
		return nil, err
	}
	ghz, err := analysis.ParseGHz(f.ghz)
	if err != nil {
		return nil, fmt.Errorf("--ghz: %w", err)
	}
	if err := analysis.ApplyGHz(systems, ghz); err != nil {
		return nil, fmt.Errorf("--ghz: %w", err)
	}
	vcpus, err := analysis.ParseVCPUs(f.vcpus)
	if err != nil {
		return nil, fmt.Errorf("--vcpus: %w", err)
	}
	if err := analysis.ApplyVCPUs(systems, vcpus); err != nil {
		return nil, fmt.Errorf("--vcpus: %w", err)
	}
	return systems, nil
}

// loadOperand reads one operand: a result file, a suite directory, a directory
// of result files, a bundle, or a sysbench / go-tpc log (imported on the fly).
func loadOperand(path, label string) (*analysis.System, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && !strings.HasSuffix(path, ".json") && !bundle.IsBundle(path) && !strings.EqualFold(filepath.Ext(path), bundle.Ext) {
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if importer.Detect(text) != importer.FormatAuto {
			results, err := importer.ParseFile(path, importer.Options{Label: label})
			if err != nil {
				return nil, err
			}
			s, err := analysis.FromResults(label, results)
			if err != nil {
				return nil, fmt.Errorf("%s: %w (write LABEL=%s)", path, err, path)
			}
			return s, nil
		}
	}
	return analysis.Load(path, label)
}

// metricDefault says what --metric is when not given (analysis.DefaultMetric).
const metricDefault = "tpmc when every compared row is TPC-C, tps otherwise — as the suite's tables"

// compareOptions turns the flags into analysis options; without --metric
// the metric is left for defaultMetric to choose once the systems are read.
func (f *compareFlags) compareOptions() (analysis.CompareOptions, error) {
	var m analysis.Metric
	if f.metric != "" {
		var err error
		if m, err = analysis.ParseMetric(f.metric); err != nil {
			return analysis.CompareOptions{}, fmt.Errorf("--metric: %w", err)
		}
	}
	c, err := analysis.ParseCenter(f.center)
	if err != nil {
		return analysis.CompareOptions{}, fmt.Errorf("--center: %w", err)
	}
	if !(f.alpha > 0 && f.alpha < 1) {
		return analysis.CompareOptions{}, fmt.Errorf("--alpha %v: give a level between 0 and 1, e.g. 0.05", f.alpha)
	}
	opts := analysis.CompareOptions{Metric: m, Center: c, Alpha: f.alpha, Baseline: f.baseline, AllowMixed: f.allowMixed, SelectFlag: "--workload"}
	for _, r := range f.rows {
		sel, err := analysis.ParseSelector(r)
		if err != nil {
			return analysis.CompareOptions{}, fmt.Errorf("--workload: %w", err)
		}
		opts.Select = append(opts.Select, sel)
	}
	return opts, nil
}

// defaultMetric fills in the default metric of the rows opts select
// (analysis.DefaultMetricOf) when --metric was not given, so that the
// comparison, the report's charts and the cost section use the same one.
func defaultMetric(systems []*analysis.System, opts *analysis.CompareOptions) {
	if opts.Metric.Name == "" {
		opts.Metric = analysis.DefaultMetricOf(systems, *opts)
	}
}

// output opens --out (or returns stdout; see outfile for what a path may
// name) and the function that ends it with the writing's error: the file is
// committed when that is nil, dropped otherwise; it returns the first error.
func (a *App) output(path string) (io.Writer, func(error) error, error) {
	if path == "" {
		return a.Stdout, func(err error) error { return err }, nil
	}
	file, err := outfile.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--out: %w", err)
	}
	return file, func(err error) error {
		if err != nil {
			file.Abort()
			return err
		}
		return file.Commit()
	}, nil
}

// compareCommand is `fairbench compare A B [C…]`.
func (a *App) compareCommand() *cobra.Command {
	f := &compareFlags{}
	var wide bool
	cmd := &cobra.Command{
		Use:   "compare [LABEL=]RESULTS [LABEL=]RESULTS… [flags]",
		Short: "Compare systems from result files or suite directories: % differences, frequency scaling, significance",
		Long:  compareHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usageErrorf("compare needs result files or suite directories: fairbench compare arm=DIR x86=DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.compare(args, f, wide) },
	}
	f.register(cmd.Flags(), "text, md, csv or json")
	cmd.Flags().BoolVar(&wide, "wide", false, "with --format csv or md: the seeds' layout alone — one row per thread count, one column per system, the frequency-scaled figures, % and p values beside them (for a spreadsheet or a blog post)")
	return cmd
}

// compareHelp is the compare command's long help.
const compareHelp = `compare puts two or more systems side by side, per workload and thread count, as the
seeds' tables do. It opens with what differs between the systems (server machines, server
flavour and version, every server variable and managed setting whose value differs); then
each system's figure, the % difference to the baseline, the
frequency-scaled figures and % (--ghz), figures per vCPU and per GHz·vCPU, and with
several rounds the mean, spread and 95% confidence interval (on the log scale: never below
zero; ≈ marks one wider than the figure), and per cell the 95% interval of the change against
the baseline (Welch's t test on the rounds' logarithms: a ratio of geometric means). A
difference is claimed only when that interval excludes no change; ? marks one the rounds could
not tell, which is not evidence of no difference. The headline says so with the smallest
difference the rounds could have shown (docs/statistics.md).

A cell's figure is the mean of its rounds (--center median for the median) in tps, or
tpmC when every compared row is TPC-C (--metric for another): the figure a suite's own
tables show, so a cell reads the same in 'suite run' and here. The title says which.

Each operand is a result file, a suite directory or a directory of result files (read
with its subdirectories), optionally labelled: arm=results/arm-suite x86=results/x86-suite.
Operands given the same label are one system (arm=day1 arm=day2).

Frequency, vCPUs and derived labels are those of the machine under test, the database
server's: the results' server_machines (recorded by run --server-agent, --server-machine,
--server-* flags or local detection; vCPUs summed over the machines, a frequency only when
all have the same); for older results, the client machine when the target was a Unix
socket, a loopback address or SQLite, or when import was told the machine; otherwise the
server's machine is unknown and nothing is scaled unless --ghz and --vcpus give it.

Figures share a row only when workload, data set, distribution (rand type), profile and
the run options that shape what was measured (--rate, --db-ps-mode, the OLTP statement
options, tpcc --wait and --mix; shown in row labels when not the defaults) are the same.
Results of one of several coordinated clients are refused: fairbench merge them first. Systems that share no row of a workload are refused, saying what differs:
choose rows with --workload tpcc/uniform/w100, or give --allow-mixed to put them side by
side, each such row marked † with a footnote.`

// The writers of compare's --format, of its --wide layout, and of the
// headline its human layouts open with.
var (
	compareWriters = map[string]func(io.Writer, *analysis.Comparison) error{
		"text": analysis.WriteText, "md": analysis.WriteMarkdown, "markdown": analysis.WriteMarkdown,
		"csv": analysis.WriteCSV, "json": analysis.WriteJSON,
	}
	wideWriters = map[string]func(io.Writer, *analysis.Comparison) error{
		"md": analysis.WriteWideMarkdown, "markdown": analysis.WriteWideMarkdown, "csv": analysis.WriteWideCSV,
	}
	headlineWriters = map[string]func(io.Writer, []string) error{
		"text": analysis.WriteHeadlineText, "md": analysis.WriteHeadlineMarkdown, "markdown": analysis.WriteHeadlineMarkdown,
	}
)

// compare compares the systems of args and writes the comparison.
func (a *App) compare(args []string, f *compareFlags, wide bool) error {
	opts, err := f.compareOptions()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	write, ok := compareWriters[f.format]
	if !ok {
		return usageErrorf("unknown --format %q: use text, md, csv or json (fairbench report makes HTML)", f.format)
	}
	if wide {
		if write, ok = wideWriters[f.format]; !ok {
			return usageErrorf("--wide is a layout of --format csv or md (one row per thread count, one column per system); --format %s has no wide form", f.format)
		}
	}
	systems, err := loadSystems(args, f)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defaultMetric(systems, &opts)
	c, err := analysis.Compare(systems, opts)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	w, done, err := a.output(f.out)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	// The human layouts open with the headline, as the report does.
	if headline := headlineWriters[f.format]; headline != nil {
		if err := headline(w, analysis.Headline(c)); err != nil {
			return withCode(ExitFailed, done(err))
		}
	}
	return withCode(ExitFailed, done(write(w, c)))
}

// reportCommand is `fairbench report RESULTS…`.
func (a *App) reportCommand() *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "report [LABEL=]RESULTS… [flags]",
		Short: "A report of result files or suite directories: tables, or one self-contained HTML file with charts",
		Long: `report renders what compare computes, plus scalability, latency and the interval series,
and with --prices the cost and price-performance of each system:

  fairbench report arm=arm-suite x86=x86-suite --ghz arm=2.6,x86=3.0 --format html --out report.html
  fairbench report arm=arm-suite x86=x86-suite --format html --out r.html --png charts/ \
      --prices prices/mysqlonarm-cpm-2020.yaml --system arm=ARM --system x86=x86

The HTML file needs no network to view; --png also writes every chart as a PNG.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usageErrorf("report needs result files or suite directories: fairbench report arm=DIR x86=DIR --format html --out report.html")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.runReport(args, f) },
	}
	f.registerReport(cmd.Flags())
	return cmd
}

// registerReport adds report's options.
func (f *compareFlags) registerReport(fs *pflag.FlagSet) {
	f.register(fs, "text, md, csv, json or html")
	fs.StringVar(&f.latency, "latency", "95,99", "latency percentiles charted against threads, comma-separated (the first is required of the results, a further one they lack is left out; empty: none)")
	fs.IntVar(&f.barThreads, "bar-threads", 0, "the thread count of the overview chart, a bar group per test case (default: the largest count every test case has for every system; refused when no system ran it)")
	fs.StringVar(&f.png, "png", "", "also write every chart as DIR/ID.png")
	fs.StringVar(&f.title, "title", "", "the report's title")
	f.costFlag.register(fs)
}

// defaultReportFlags are report's options at their defaults (text format).
func defaultReportFlags() *compareFlags {
	f := &compareFlags{}
	f.registerReport(pflag.NewFlagSet("report", pflag.ContinueOnError))
	return f
}

// checkReport checks report's own flags: --format, --prices with it,
// --bar-threads and --png.
func (f *compareFlags) checkReport() error {
	switch f.format {
	case "text", "md", "markdown", "csv", "json", "html":
	default:
		return usageErrorf("unknown --format %q: use text, md, csv, json or html", f.format)
	}
	if f.costFlag.prices != "" && (f.format == "csv" || f.format == "json") {
		return usageErrorf("report --format %s holds the comparison only, not the cost section of --prices: use --format text, md or html for a report with the cost, or fairbench cost --prices %s --format %s with the same results for the cost as %s", f.format, f.costFlag.prices, f.format, strings.ToUpper(f.format))
	}
	if f.barThreads < 0 {
		return usageErrorf("--bar-threads %d: give a thread count the results have (or 0 for the default)", f.barThreads)
	}
	if f.png != "" {
		if err := outfile.CheckDir(f.png); err != nil {
			return withCode(ExitUsage, fmt.Errorf("--png: %w", err))
		}
	}
	return nil
}

// runReport is `fairbench report`: the report of the systems of args
// (report.Build), written in --format and, with --png, its charts.
func (a *App) runReport(args []string, f *compareFlags) error {
	opts, err := f.compareOptions()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := f.checkReport(); err != nil {
		return err
	}
	systems, err := loadSystems(args, f)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defaultMetric(systems, &opts)
	costSec, err := f.costFlag.section(systems, opts)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	rep, err := report.Build(systems, report.Options{Title: f.title, Compare: opts, LatencyPercentile: f.latency, BarThreads: f.barThreads, Cost: costSec, ReadResult: analysis.ResultReader()})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	w, done, err := a.output(f.out)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	switch f.format {
	case "html":
		err = rep.WriteHTML(w)
	case "text":
		err = rep.WriteText(w)
	case "md", "markdown":
		err = rep.WriteMarkdown(w, imagePath(f.png, f.out))
	case "csv":
		err = analysis.WriteCSV(w, rep.Comparison)
	case "json":
		err = analysis.WriteJSON(w, rep.Comparison)
	}
	if err := done(err); err != nil {
		return withCode(ExitFailed, err)
	}
	if f.png != "" {
		files, err := rep.WritePNGs(f.png)
		if err != nil {
			return withCode(ExitFailed, err)
		}
		fmt.Fprintf(a.Stderr, "Wrote %d charts to %s\n", len(files), f.png)
	}
	return nil
}

// imagePath is where a Markdown report written to out finds the PNGs of
// --png dir: dir relative to out's directory (slash-separated, as Markdown
// links are), dir as given when the report goes to stdout or the two share
// no relative path; "" without --png.
func imagePath(dir, out string) string {
	if dir == "" {
		return ""
	}
	if out != "" {
		if rel, err := filepath.Rel(filepath.Dir(out), dir); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(dir)
}
