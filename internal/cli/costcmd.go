package cli

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/cost"
	"github.com/fairbench/fairbench/internal/outfile"
	"github.com/fairbench/fairbench/internal/report"
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
	fs.StringVar(&f.prices, "prices", "", "price sheet (YAML, see docs/price-sheet.md; examples in prices/) for the cost-performance model")
	fs.StringArrayVar(&f.systems, "system", nil, "which price-sheet system each compared system ran on: LABEL=SYSTEM (repeat; default: the system named like the label, else the one the recorded instance types and region of the server machines match)")
	fs.StringVar(&f.threads, "cost-threads", "", "thread counts whose throughput is averaged for the cost model, e.g. 300,500,800 (default: every thread count all systems ran)")
	fs.StringVar(&f.workload, "cost-workload", "", "the row whose throughput the cost model uses: a workload (tpcc) or a row label as compare prints it (tpcc/uniform/w100); needed when every system ran several")
	fs.StringVar(&f.perDollar, "per-dollar", "year", "cost basis of throughput per dollar: hour, month, year or period")
	fs.StringVar(&f.pricePerf, "price-perf", "period", "cost basis of price-performance (cost ÷ throughput): hour, month, year or period")
}

// options validates the bases.
func (f *costFlags) options(workload, metric string) (cost.Options, error) {
	pd, err := cost.ParseBasis(f.perDollar)
	if err != nil {
		return cost.Options{}, fmt.Errorf("--per-dollar: %w", err)
	}
	pp, err := cost.ParseBasis(f.pricePerf)
	if err != nil {
		return cost.Options{}, fmt.Errorf("--price-perf: %w", err)
	}
	return cost.Options{Workload: workload, Metric: metric, PerDollar: pd, PricePerf: pp}, nil
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

// sheetSystem maps a compared system to the price sheet's system: --system
// LABEL=SYSTEM, else the system named like the label, else the one the
// instance types and region its results record of the machine under test
// match (cost.Sheet.SystemFor), with warnings of what may differ.
func (f *costFlags) sheetSystem(sheet *cost.Sheet, sys *analysis.System) (string, []string, error) {
	label := sys.Label
	for _, m := range f.systems {
		l, s, ok := strings.Cut(m, "=")
		if !ok {
			return "", nil, fmt.Errorf("--system %q: write LABEL=SYSTEM, e.g. arm=aws-arm", m)
		}
		if strings.EqualFold(l, label) {
			if _, err := sheet.System(s); err != nil {
				return "", nil, fmt.Errorf("--system %s: %w", m, err)
			}
			return s, nil, nil
		}
	}
	for _, name := range sheet.SystemNames() {
		if strings.EqualFold(name, label) {
			return name, nil, nil
		}
	}
	var recorded []cost.Recorded
	for _, m := range sys.UnderTest.Machines {
		if m.InstanceType != "" {
			recorded = append(recorded, cost.Recorded{Role: m.Role, InstanceType: m.InstanceType, Region: m.Region, VCPUs: m.LogicalCPUs})
		}
	}
	if len(recorded) == 0 {
		return "", nil, fmt.Errorf("which system of %s did %s run on? its results record no instance type of the server's machine: give --system %s=SYSTEM (the sheet's systems: %s)", sheet.File, label, label, strings.Join(sheet.SystemNames(), ", "))
	}
	if len(recorded) < len(sys.UnderTest.Machines) {
		return "", nil, fmt.Errorf("which system of %s did %s run on? its results record the instance type of only %d of its %d server machines: give --system %s=SYSTEM (the sheet's systems: %s)", sheet.File, label, len(recorded), len(sys.UnderTest.Machines), label, strings.Join(sheet.SystemNames(), ", "))
	}
	m, err := sheet.SystemFor(label, recorded)
	if err != nil {
		return "", nil, err
	}
	return m.System, m.Warnings, nil
}

// priced is what the cost model prices: the systems' figures by thread count
// in the one row group that every system ran and the selection
// (--cost-workload, else compare's --workload) chooses, under the matching
// rule of compare.
type priced struct {
	// by are each system's figures by thread count: the center (--center)
	// of each thread count's rounds.
	by []map[int]float64
	// label is the group's row label; mixed what it mixes ("" unless
	// --allow-mixed put different things together).
	label, mixed string
	// outages says which throughputs include runs with an outage (the
	// server went away); "" when none do.
	outages string
	// center is the statistic of rounds used; baseline indexes the
	// baseline system (--baseline, else the first).
	center   analysis.Center
	baseline int
}

// throughputs finds what the cost model prices. Several row groups every
// system ran are refused, naming them, never priced by the first.
func (f *costFlags) throughputs(systems []*analysis.System, base analysis.CompareOptions) (*priced, error) {
	opts := base
	if f.workload != "" {
		sel, err := analysis.ParseSelector(f.workload)
		if err != nil {
			return nil, fmt.Errorf("--cost-workload: %w", err)
		}
		opts.Select, opts.SelectFlag = []analysis.Selector{sel}, "--cost-workload"
	} else if len(opts.Select) == 0 {
		opts.SelectFlag = "--cost-workload"
	}
	cmp, err := analysis.Compare(systems, opts)
	if err != nil {
		return nil, err
	}
	groups := cmp.CommonGroups()
	var labels []string
	for _, g := range groups {
		labels = append(labels, analysis.RowLabel(g))
	}
	switch {
	case len(groups) == 0:
		return nil, fmt.Errorf("no row has %s figures of every system, so none can be priced alike: %s; choose a row every system ran with --cost-workload, or run it on the systems that lack it", opts.Metric.Unit, rowOwners(cmp))
	case len(groups) > 1 && f.workload == "":
		return nil, fmt.Errorf("the results hold %d rows every system ran: %s; choose the one to price with --cost-workload (a workload or a row label as compare prints it)", len(groups), strings.Join(labels, ", "))
	case len(groups) > 1:
		return nil, fmt.Errorf("--cost-workload %s matches %d rows every system ran: %s; give the whole row label", f.workload, len(groups), strings.Join(labels, ", "))
	}
	p := &priced{by: make([]map[int]float64, len(systems)), label: labels[0], center: cmp.Center, baseline: cmp.Baseline}
	for i := range p.by {
		p.by[i] = map[int]float64{}
	}
	var outages []string
	for _, r := range cmp.Rows {
		if r.Key.Group() != groups[0] {
			continue
		}
		p.mixed = analysis.MixedString(r.Mixed)
		for i, c := range r.Cells {
			if c.Stats.N > 0 {
				p.by[i][r.Key.Threads] = c.Value
			}
			if c.Outages > 0 {
				outages = append(outages, fmt.Sprintf("%s: %d of %d runs at %d threads", systems[i].Label, c.Outages, c.Stats.N, r.Key.Threads))
			}
		}
	}
	p.outages = strings.Join(outages, "; ")
	return p, nil
}

// commonThreads returns the thread counts every system ran in the priced
// row, sorted: without --cost-threads each system's throughput is the mean
// over the same thread counts, never over each system's own. None in common
// is refused, naming each system's.
func commonThreads(systems []*analysis.System, by []map[int]float64) ([]int, error) {
	var common []int
	for t := range by[0] {
		if !slices.ContainsFunc(by, func(m map[int]float64) bool { _, ok := m[t]; return !ok }) {
			common = append(common, t)
		}
	}
	slices.Sort(common)
	if len(common) == 0 {
		var each []string
		for i, s := range systems {
			ts := make([]int, 0, len(by[i]))
			for t := range by[i] {
				ts = append(ts, t)
			}
			slices.Sort(ts)
			names := make([]string, len(ts))
			for j, t := range ts {
				names[j] = strconv.Itoa(t)
			}
			each = append(each, fmt.Sprintf("%s ran %s", s.Label, strings.Join(names, ", ")))
		}
		return nil, fmt.Errorf("the systems share no thread count to average their throughput over (%s): run a thread count on every system", strings.Join(each, "; "))
	}
	return common, nil
}

// rowOwners lists a comparison's row groups with the systems that have
// figures in them: "tpcc/uniform/w10 (x86), tpcc/uniform/w500 (arm)".
func rowOwners(c *analysis.Comparison) string {
	var out []string
	for _, rows := range c.Sections() {
		var who []string
		for i, s := range c.Systems {
			if slices.ContainsFunc(rows, func(r analysis.Row) bool { return r.Cells[i].Stats.N > 0 }) {
				who = append(who, s.Label)
			}
		}
		out = append(out, fmt.Sprintf("%s (%s)", analysis.RowLabel(rows[0].Key), strings.Join(who, ", ")))
	}
	return strings.Join(out, ", ")
}

// pricing is the compared systems priced by a sheet.
type pricing struct {
	sheet  *cost.Sheet
	inputs []cost.Input
	opts   cost.Options
	report *cost.Report
	eval   *cost.Evaluation
}

// evaluate prices the compared systems and relates them to their throughput.
func (f *costFlags) evaluate(systems []*analysis.System, cmpOpts analysis.CompareOptions) (*pricing, error) {
	sheet, err := cost.LoadSheet(f.prices)
	if err != nil {
		return nil, err
	}
	threads, err := f.threadList()
	if err != nil {
		return nil, err
	}
	p, err := f.throughputs(systems, cmpOpts)
	if err != nil {
		return nil, err
	}
	by := p.by
	if len(threads) == 0 {
		if threads, err = commonThreads(systems, by); err != nil {
			return nil, err
		}
	}
	var inputs []cost.Input
	var names, warnings []string
	for i, s := range systems {
		name, warn, err := f.sheetSystem(sheet, s)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, warn...)
		inputs = append(inputs, cost.Input{System: name, Throughput: cost.Figure{ByThreads: by[i], Threads: threads}})
		names = append(names, name)
	}
	opts, err := f.options(p.label, cmpOpts.Metric.Unit)
	if err != nil {
		return nil, err
	}
	opts.Mixed, opts.Outages, opts.Center, opts.Baseline = p.mixed, p.outages, string(p.center), names[p.baseline]
	ev, err := sheet.Evaluate(inputs, opts)
	if err != nil {
		return nil, err
	}
	rep, err := cost.NewReport(sheet, names...)
	if err != nil {
		return nil, err
	}
	rep.Evaluations = append(rep.Evaluations, ev)
	rep.Warnings = warnings
	return &pricing{sheet: sheet, inputs: inputs, opts: opts, report: rep, eval: ev}, nil
}

// section is the report's cost section; nil without --prices.
func (f *costFlags) section(systems []*analysis.System, cmpOpts analysis.CompareOptions) (*report.CostSection, error) {
	metric := cmpOpts.Metric
	if f.prices == "" {
		return nil, nil
	}
	if metric.LowerIsBetter {
		return nil, fmt.Errorf("the cost model needs a throughput: use --metric tps, qps or tpmc with --prices")
	}
	pr, err := f.evaluate(systems, cmpOpts)
	if err != nil {
		return nil, err
	}
	rep, ev := pr.report, pr.eval
	var text, md, html bytes.Buffer
	for _, w := range []struct {
		b     *bytes.Buffer
		write func(io.Writer, *cost.Report) error
	}{{&text, cost.WriteText}, {&md, cost.WriteMarkdown}, {&html, cost.WriteHTML}} {
		if err := w.write(w.b, rep); err != nil {
			return nil, err
		}
	}
	source := strings.Join(strings.Fields(rep.Sheet.Source), " ")
	if rep.Sheet.URL != "" {
		source += " (" + rep.Sheet.URL + ")"
	}
	sec := &report.CostSection{
		Title:                fmt.Sprintf("Cost and price-performance over %s", ev.Period),
		Source:               source,
		Text:                 text.String(),
		Markdown:             md.String(),
		HTML:                 template.HTML(html.String()), // cost.WriteHTML escapes every text
		MonthlyUnit:          ev.Currency + "/month",
		PricePerformanceUnit: fmt.Sprintf("%s per %s (%s)", ev.Currency, metric.Unit, ev.PricePerf),
		PerDollarUnit:        fmt.Sprintf("%s per %s (%s)", metric.Unit, ev.Currency, ev.PerDollar),
	}
	for i, row := range ev.Rows {
		label := systems[i].Label
		sec.Monthly = append(sec.Monthly, report.Bar{Label: label, Value: row.Cost.Monthly, Color: i})
		sec.PricePerformance = append(sec.PricePerformance, report.Bar{Label: label, Value: row.PricePerformance, Color: i})
		sec.PerDollar = append(sec.PerDollar, report.Bar{Label: label, Value: row.PerDollar, Color: i})
	}
	for i, row := range ev.Rows {
		if row.Diff == nil {
			sec.Baseline = systems[i].Label
		}
	}
	sec.Headline = costHeadline(systems, ev, metric.Unit)
	return sec, nil
}

// costHeadline is the cost's verdict for a report's headline: per system
// other than the baseline, how much less or more it costs per unit of
// throughput than the baseline over the sheet's price-performance basis.
func costHeadline(systems []*analysis.System, ev *cost.Evaluation, unit string) []string {
	base := slices.IndexFunc(ev.Rows, func(r cost.Row) bool { return r.Diff == nil })
	if base < 0 || ev.Rows[base].PricePerformance == 0 {
		return nil
	}
	var out []string
	for i, r := range ev.Rows {
		if r.Diff == nil || r.PricePerformance == 0 {
			continue
		}
		d := r.Diff.PricePerformance
		word := "less"
		if d > 0 {
			word = "more"
		}
		out = append(out, fmt.Sprintf("Cost: %s costs %.0f %% %s per %s than %s over %s (price-performance %s per %s: %.4g against %.4g; throughput the mean over %s threads).",
			systems[i].Label, math.Abs(d), word, unit, systems[base].Label, basisName(ev), ev.Currency, unit, r.PricePerformance, ev.Rows[base].PricePerformance, threadList(r.Threads)))
	}
	return out
}

// basisName names the price-performance basis of ev: "5y" for the period.
func basisName(ev *cost.Evaluation) string {
	if ev.PricePerf == cost.BasisPeriod {
		return ev.Period
	}
	return "a " + string(ev.PricePerf)
}

// threadList prints thread counts as "1, 2, 4".
func threadList(ts []int) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = strconv.Itoa(t)
	}
	return strings.Join(s, ", ")
}

// costCommand is `fairbench cost`.
func (a *App) costCommand() *cobra.Command {
	f := &costFlags{}
	var (
		format, out, metric string
		cf                  compareFlags
	)
	cmd := &cobra.Command{
		Use:   "cost --prices SHEET [LABEL=RESULTS…] [flags]",
		Short: "Cost-performance model: monthly and period cost, throughput per dollar, price-performance, equal-cost scenarios",
		Long: `cost prices the systems of a price sheet (docs/price-sheet.md; examples in prices/) and,
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
  fairbench cost --prices SHEET arm=A x86=B --system arm=... --system x86=... --scenario equal-compute`,
		RunE: func(cmd *cobra.Command, args []string) error {
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
			}[format]
			if !ok {
				return usageErrorf("unknown --format %q: use text, md, csv or json", format)
			}
			csvDir := format == "csv" && isDirOut(out)
			if csvDir {
				if err := outfile.CheckDir(out); err != nil {
					return usageErrorf("--out: %v", err)
				}
			}
			rep, err := a.costReport(args, f, &cf, metric)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if csvDir {
				return a.writeCostCSVFiles(out, rep)
			}
			w, done, err := a.output(out)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			return withCode(ExitFailed, done(write(w, rep)))
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&f.scenario, "scenario", "", "equal-cost (what a --budget buys of each system) or equal-compute (systems of equal vCPUs, cost allowed to differ); default: each system as priced")
	cmd.Flags().Float64Var(&f.budget, "budget", 0, "budget of the equal-cost scenario, per --per")
	cmd.Flags().StringVar(&f.per, "per", "year", "period of --budget: hour, month, year or period")
	cmd.Flags().Float64Var(&f.allowOver, "allow-over", 0, "fraction the budget may be exceeded to fit one more whole system (e.g. 0.03)")
	cmd.Flags().StringVar(&metric, "metric", "tps", "throughput used: tps, qps or tpmc")
	cf.registerMixed(cmd.Flags())
	cmd.Flags().StringVar(&cf.center, "center", "mean", "the statistic that stands for a thread count's rounds: mean or median")
	cmd.Flags().StringVar(&cf.baseline, "baseline", "", "label of the system the others are compared with (default: the first)")
	cmd.Flags().StringVar(&cf.ghz, "ghz", "", "CPU frequencies overriding the results' fingerprints, e.g. arm=2.6,x86=3.0")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, md, csv or json")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output; with --format csv, a directory (an existing one, or a path ending in /) gets one CSV file per table")
	return cmd
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

// costReport builds what `cost` prints.
func (a *App) costReport(args []string, f *costFlags, cf *compareFlags, metricName string) (*cost.Report, error) {
	if len(args) == 0 {
		if f.scenario != "" {
			return nil, fmt.Errorf("--scenario %s needs results to relate the cost to", f.scenario)
		}
		sheet, err := cost.LoadSheet(f.prices)
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
	metric, err := analysis.ParseMetric(metricName)
	if err != nil || metric.LowerIsBetter {
		return nil, fmt.Errorf("--metric %q: the cost model needs a throughput: tps, qps or tpmc", metricName)
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
	switch f.scenario {
	case "":
	case "equal-compute":
		eq, err := pr.sheet.EqualCompute(pr.inputs, pr.opts)
		if err != nil {
			return nil, err
		}
		pr.report.Evaluations = append(pr.report.Evaluations, eq)
	case "equal-cost":
		if f.budget <= 0 {
			return nil, fmt.Errorf("--scenario equal-cost needs --budget, e.g. --budget 3500 --per year")
		}
		per, err := cost.ParseBasis(f.per)
		if err != nil {
			return nil, fmt.Errorf("--per: %w", err)
		}
		ec, err := pr.sheet.EqualCost(pr.inputs, cost.EqualCostOptions{Budget: f.budget, Per: per, AllowOver: f.allowOver, Workload: pr.opts.Workload, Mixed: pr.opts.Mixed, Outages: pr.opts.Outages, Metric: pr.opts.Metric, Center: pr.opts.Center, Baseline: pr.opts.Baseline})
		if err != nil {
			return nil, err
		}
		pr.report.EqualCosts = append(pr.report.EqualCosts, ec)
	default:
		return nil, fmt.Errorf("unknown --scenario %q: use equal-cost or equal-compute", f.scenario)
	}
	return pr.report, nil
}
