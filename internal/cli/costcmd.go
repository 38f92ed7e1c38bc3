package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/cost"
	"github.com/fairbench/fairbench/internal/analysis/report"
	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/record/bundle"
)

// costFlags are the cost-model options of `cost` and `report`.
type costFlags struct {
	prices    string
	systems   []string // LABEL=SHEET-SYSTEM
	threads   string   // thread counts whose throughput is averaged
	workload  string
	perDollar string
	pricePerf string
	scenario  string
	budget    float64
	per       string
	allowOver float64
}

func (f *costFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.prices, "prices", "", "price sheet (YAML, see docs/price-sheet.md; examples in prices/), or a bundle holding one, for the cost-performance model")
	fs.StringArrayVar(&f.systems, "system", nil, "which price-sheet system each compared system ran on: LABEL=SYSTEM (repeat; default: the system named like the label, else the one the recorded instance types and region of the server machines match)")
	fs.StringVar(&f.threads, "cost-threads", "", "thread counts whose throughput is averaged for the cost model, e.g. 300,500,800 (default: every thread count all systems ran)")
	fs.StringVar(&f.workload, "cost-workload", "", "the row whose throughput the cost model uses: a workload (tpcc) or a row label as compare prints it (tpcc/uniform/w100); needed when every system ran several")
	fs.StringVar(&f.perDollar, "per-dollar", "year", "cost basis of throughput per dollar: hour, month, year or period")
	fs.StringVar(&f.pricePerf, "price-perf", "period", "cost basis of price-performance (cost ÷ throughput): hour, month, year or period")
}

// bases validates the cost bases of --per-dollar and --price-perf.
func (f *costFlags) bases() (perDollar, pricePerf cost.Basis, err error) {
	if perDollar, err = cost.ParseBasis(f.perDollar); err != nil {
		return "", "", fmt.Errorf("--per-dollar: %w", err)
	}
	if pricePerf, err = cost.ParseBasis(f.pricePerf); err != nil {
		return "", "", fmt.Errorf("--price-perf: %w", err)
	}
	return perDollar, pricePerf, nil
}

// threadList parses --cost-threads.
func (f *costFlags) threadList() ([]int, error) {
	var out []int
	for _, p := range strings.Split(f.threads, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--cost-threads %q: give thread counts, e.g. 300,500,800", f.threads)
		}
		out = append(out, n)
	}
	return out, nil
}

// evaluate prices the compared systems and relates them to their throughput.
func (f *costFlags) evaluate(systems []*analysis.System, cmpOpts analysis.CompareOptions) (*cost.Pricing, error) {
	sheet, err := loadSheet(f.prices)
	if err != nil {
		return nil, err
	}
	threads, err := f.threadList()
	if err != nil {
		return nil, err
	}
	perDollar, pricePerf, err := f.bases()
	if err != nil {
		return nil, err
	}
	return cost.PriceSystems(sheet, systems, cmpOpts, cost.Selection{Systems: f.systems, Threads: threads, Workload: f.workload, PerDollar: perDollar, PricePerf: pricePerf})
}

// section is the report's cost section; nil without --prices.
func (f *costFlags) section(systems []*analysis.System, cmpOpts analysis.CompareOptions) (*report.CostSection, error) {
	if f.prices == "" {
		return nil, nil
	}
	if cmpOpts.Metric.LowerIsBetter {
		return nil, fmt.Errorf("the cost model needs a throughput: use --metric tps, qps or tpmc with --prices")
	}
	pr, err := f.evaluate(systems, cmpOpts)
	if err != nil {
		return nil, err
	}
	return report.NewCostSection(systems, pr, cmpOpts.Metric)
}

// costCmdFlags are the options of `cost` beside the cost model's: the
// comparison's it shares with compare, the metric and the output.
type costCmdFlags struct {
	cmp                 compareFlags
	format, out, metric string
}

// costCommand is `fairbench cost`.
func (a *App) costCommand() *cobra.Command {
	f := &costFlags{}
	c := &costCmdFlags{}
	cmd := &cobra.Command{
		Use:   "cost --prices SHEET [LABEL=RESULTS…] [flags]",
		Short: "Cost-performance model: monthly and period cost, throughput per dollar, price-performance, equal-cost scenarios",
		Long:  costHelp,
		RunE:  func(cmd *cobra.Command, args []string) error { return a.cost(cmd, args, f, c) },
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&f.scenario, "scenario", "", "equal-cost (what a --budget buys of each system) or equal-compute (systems of equal vCPUs, cost allowed to differ); default: each system as priced")
	cmd.Flags().Float64Var(&f.budget, "budget", 0, "budget of the equal-cost scenario, per --per")
	cmd.Flags().StringVar(&f.per, "per", "year", "period of --budget: hour, month, year or period")
	cmd.Flags().Float64Var(&f.allowOver, "allow-over", 0, "fraction the budget may be exceeded to fit one more whole system (e.g. 0.03)")
	cmd.Flags().StringVar(&c.metric, "metric", "", "throughput used: tps, qps or tpmc (default: "+metricDefault+")")
	c.cmp.registerMixed(cmd.Flags())
	cmd.Flags().StringVar(&c.cmp.center, "center", string(analysis.DefaultCenter), "the statistic that stands for a thread count's rounds: mean or median")
	cmd.Flags().StringVar(&c.cmp.baseline, "baseline", "", "label of the system the others are compared with (default: the first)")
	cmd.Flags().StringVar(&c.cmp.ghz, "ghz", "", "CPU frequencies overriding the results' fingerprints, e.g. arm=2.6,x86=3.0")
	cmd.Flags().StringVar(&c.format, "format", "text", "output format: text, md, csv or json")
	cmd.Flags().StringVarP(&c.out, "out", "o", "", "write to this file instead of standard output; with --format csv, a directory (an existing one, or a path ending in /) gets one CSV file per table")
	return cmd
}

// costHelp is the cost command's long help.
const costHelp = `cost prices the systems of a price sheet (docs/price-sheet.md; examples in prices/) and,
given results, relates each to its throughput: throughput per dollar, price-performance
(period cost ÷ throughput) and % differences against --baseline (default: the first).
Throughput is the mean over the thread counts every system ran, or over chosen ones
(--cost-threads 300,500,800, as seed 003 does), of each thread count's --center (mean or
median) of its rounds, in the one row (workload, data set, distribution, profile, run
options) every system ran;
with several, choose one with --cost-workload tpcc/uniform/w100 (a label as compare
prints it). Systems that share no row are refused unless --allow-mixed.

  fairbench cost --prices prices/tidb-eks-graviton2-vs-x86-2021.yaml
  fairbench cost --prices prices/mysqlonarm-cpm-2020.yaml arm=arm-suite x86=x86-suite \
      --system arm=huawei-arm --system x86=huawei-x86
  fairbench cost --prices SHEET arm=A x86=B --system arm=... --system x86=... --scenario equal-cost --budget 3500 --per year
  fairbench cost --prices SHEET arm=A x86=B --system arm=... --system x86=... --scenario equal-compute`

// cost is `fairbench cost`: the report of costReport, written in --format
// (one CSV file per table into a directory --out).
func (a *App) cost(cmd *cobra.Command, args []string, f *costFlags, c *costCmdFlags) error {
	if f.prices == "" {
		return usageErrorf("cost needs a price sheet: --prices FILE (examples in prices/)")
	}
	for _, name := range []string{"center", "baseline"} {
		if len(args) == 0 && cmd.Flags().Changed(name) {
			return usageErrorf("--%s applies to the throughput of results, and none were given: give results (LABEL=RESULTS…) or leave --%s out", name, name)
		}
	}
	write, ok := map[string]func(io.Writer, *cost.Report) error{
		"text": cost.WriteText, "md": cost.WriteMarkdown, "markdown": cost.WriteMarkdown, "csv": cost.WriteCSV, "json": cost.WriteJSON,
	}[c.format]
	if !ok {
		return usageErrorf("unknown --format %q: use text, md, csv or json", c.format)
	}
	csvDir := c.format == "csv" && isDirOut(c.out)
	if csvDir {
		if err := outfile.CheckDir(c.out); err != nil {
			return usageErrorf("--out: %v", err)
		}
	}
	rep, err := a.costReport(args, f, &c.cmp, c.metric)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if csvDir {
		return a.writeCostCSVFiles(c.out, rep)
	}
	w, done, err := a.output(c.out)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	return withCode(ExitFailed, done(write(w, rep)))
}

// isDirOut reports whether --out names a directory: an existing one, or a
// path ending in a slash.
func isDirOut(out string) bool {
	if out == "" {
		return false
	}
	if strings.HasSuffix(out, "/") {
		return true
	}
	info, err := os.Stat(out)
	return err == nil && info.IsDir()
}

// writeCostCSVFiles writes a cost report as one CSV file per table into dir,
// and names the files on standard error. A file that cannot be written
// removes the ones written before it, and the directory when it was made.
func (a *App) writeCostCSVFiles(dir string, rep *cost.Report) error {
	files, err := cost.CSVFiles(rep)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	d, err := outfile.MakeDir(dir)
	if err != nil {
		return usageErrorf("--out: %v", err)
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if err := outfile.Write(path, func(w io.Writer) error { _, err := w.Write(f.Body); return err }); err != nil {
			for _, p := range written {
				os.Remove(p)
			}
			d.Discard()
			return withCode(ExitFailed, fmt.Errorf("--out %s: %w; the files written before it were removed", dir, err))
		}
		written = append(written, path)
	}
	fmt.Fprintf(a.Stderr, "fairbench: wrote %d CSV files to %s: %s\n", len(files), dir, strings.Join(names(files), ", "))
	return nil
}

// names are the files' names.
func names(files []cost.CSVFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}

// sheetReport is what `cost` prints without results: the sheet's systems
// (those --system names, else all).
func (f *costFlags) sheetReport() (*cost.Report, error) {
	if f.scenario != "" {
		return nil, fmt.Errorf("--scenario %s needs results to relate the cost to", f.scenario)
	}
	sheet, err := loadSheet(f.prices)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range f.systems {
		_, s, _ := strings.Cut(m, "=")
		names = append(names, s)
	}
	return cost.NewReport(sheet, names...)
}

// costReport builds what `cost` prints.
func (a *App) costReport(args []string, f *costFlags, cf *compareFlags, metricName string) (*cost.Report, error) {
	if len(args) == 0 {
		return f.sheetReport()
	}
	var metric analysis.Metric // left out: the default of the row priced (analysis.DefaultMetric)
	if metricName != "" {
		var err error
		if metric, err = analysis.ParseMetric(metricName); err != nil || metric.LowerIsBetter {
			return nil, fmt.Errorf("--metric %q: the cost model needs a throughput: tps, qps or tpmc", metricName)
		}
	}
	systems, err := loadSystems(args, cf)
	if err != nil {
		return nil, err
	}
	center, err := analysis.ParseCenter(cf.center)
	if err != nil {
		return nil, fmt.Errorf("--center: %w", err)
	}
	pr, err := f.evaluate(systems, analysis.CompareOptions{Metric: metric, AllowMixed: cf.allowMixed, Center: center, Baseline: cf.baseline})
	if err != nil {
		return nil, err
	}
	if err := f.addScenario(pr); err != nil {
		return nil, err
	}
	return pr.Report, nil
}

// addScenario adds the scenario of --scenario, if any, to the pricing's report.
func (f *costFlags) addScenario(pr *cost.Pricing) error {
	switch f.scenario {
	case "":
		return nil
	case "equal-compute":
		return pr.AddEqualCompute()
	case "equal-cost":
		if f.budget <= 0 {
			return fmt.Errorf("--scenario equal-cost needs --budget, e.g. --budget 3500 --per year")
		}
		per, err := cost.ParseBasis(f.per)
		if err != nil {
			return fmt.Errorf("--per: %w", err)
		}
		return pr.AddEqualCost(f.budget, per, f.allowOver)
	}
	return fmt.Errorf("unknown --scenario %q: use equal-cost or equal-compute", f.scenario)
}

// loadSheet reads --prices: a price sheet, or the one a bundle holds
// (bundle create --prices), the bundle verified first.
func loadSheet(path string) (*cost.Sheet, error) {
	if !bundle.IsBundle(path) {
		return cost.LoadSheet(path)
	}
	sheet, err := bundleSheet(path)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	if sheet == nil {
		return nil, fmt.Errorf("--prices: the bundle %s holds no price sheet (it was made without --prices): give a price sheet", path)
	}
	return sheet, nil
}

// bundleSheet is the price sheet bundled in the bundle at path (nil when
// it holds none), the bundle verified first.
func bundleSheet(path string) (*cost.Sheet, error) {
	b, err := bundle.Open(path)
	if err != nil {
		return nil, err
	}
	return sheetOf(b)
}

// sheetOf is the price sheet an open bundle holds (nil when none).
func sheetOf(b *bundle.Bundle) (*cost.Sheet, error) {
	path := b.Path()
	data, ok := b.Prices()
	if !ok {
		return nil, nil
	}
	return cost.ParseSheet(path+"/"+bundle.PricesName, data)
}
