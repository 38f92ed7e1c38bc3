// Package site builds a static results site of many systems: one page
// (index.html) listing every system of every operand — one row per system ×
// workload row × thread count, the cell of a comparison — with its machine,
// cloud placement, server, figure and 95 % interval, rounds and
// price-performance, filters and sortable columns, and one full HTML report
// per operand (package report) linked from it. Every figure comes from
// package analysis (the cell's statistics) and package cost (the price per
// unit of throughput); the page only prints them. The page loads nothing:
// its one script and one style sheet are inline and allowed by their hashes
// in a strict Content-Security-Policy, so it works from file://.
package site

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/cost"
	"github.com/fairbench/fairbench/internal/analysis/report"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Options choose what the site shows.
type Options struct {
	// Title heads the page (default "fairbench results: N systems").
	Title string
	// Prices, when set, prices the systems a sheet has a system for:
	// price-performance in the rows, a cost section in the reports.
	Prices *Prices
	// OwnPrices prices a system by its own sheet (a bundle's prices.yaml),
	// by system label, where Prices is nil.
	OwnPrices map[string]*Prices
	// ReadResult reads a sample's result file for the reports' interval
	// series (default result.Read).
	ReadResult func(path string) (*result.Result, error)
}

// Prices is a price sheet and how the site's systems map to its systems.
type Prices struct {
	Sheet *cost.Sheet
	// Systems map labels to the sheet's systems, "LABEL=SYSTEM" each
	// (--system); a system not named is mapped as cost.SheetSystem does.
	Systems []string
	// PricePerf is the cost basis of price-performance (default the
	// sheet's period).
	PricePerf cost.Basis
}

// Site is the built site: its operands with their reports, and the rows of
// the page.
type Site struct {
	Title    string
	Operands []*Operand
	Rows     []Row
	// Filters are the page's select boxes, in order, with the values the
	// rows hold.
	Filters []Filter
	// Notes say what a reader should know (a system not priced, a report
	// without its cost section).
	Notes []string
}

// Operand is one system of the site (an operand of the command, or operands
// given one label) with how the page describes it.
type Operand struct {
	System *analysis.System
	// File is the report's file name in the site's reports directory
	// ("arm-suite.html"); Report the report itself.
	File   string
	Report *report.Report
	// CPU, Arch and VCPUs describe the machine under test (the database
	// server's, analysis.UnderTest): its CPU named briefly (UnderTest.CPU),
	// "" when unknown; Arch "unknown" when no result says.
	CPU   string
	Arch  string
	VCPUs int
	// Cloud is the cloud provider the machine's DMI names (cloudOf);
	// Region and InstanceType its recorded placement, "" when not recorded.
	Cloud, Region, InstanceType string
	// Flavor and Version are the server's; Flavor "unknown" when not recorded.
	Flavor, Version string
	// PriceSystem is the price sheet's system the operand ran on, "" when
	// none is known.
	PriceSystem string
}

// ReportPath is the operand's report relative to the page.
func (o *Operand) ReportPath() string { return path.Join(ReportsDir, o.File) }

// ReportsDir is the site's directory of reports, under the page's.
const ReportsDir = "reports"

// Row is one cell of one system: a workload row at one thread count.
type Row struct {
	// Operand indexes Site.Operands.
	Operand int
	// Key is the cell's key in the system's samples: its workload, the row
	// (Label) and thread count.
	Key analysis.Key
	// Metric is the figure shown: tpmC for TPC-C rows, tps otherwise
	// (analysis.DefaultMetric of the row's workload).
	Metric analysis.Metric
	// Cell is the system's cell in its comparison: the statistics of its
	// rounds (mean, 95 % interval or why there is none), the rounds with an
	// outage and those measured on a busy machine.
	Cell analysis.Cell
	// PricePerf is the cost of the system over the price basis per unit of
	// Cell.Value (cost.Evaluation), NaN without a price; PriceUnit names it
	// ("USD per tpmC over 5y").
	PricePerf float64
	PriceUnit string
}

// Label is the row as compare prints it (analysis.RowLabel:
// "tpcc/uniform/w100").
func (r Row) Label() string { return analysis.RowLabel(r.Key) }

// Filter is a select box of the page: the rows' attribute it filters on and
// the values there are.
type Filter struct {
	// Name is the rows' data attribute ("workload", "threads", "flavor",
	// "arch", "cloud"); Label the box's label.
	Name, Label string
	Values      []string
}

// Build builds the site of systems: their rows, each one's report, and the
// prices of opts.Prices.
func Build(systems []*analysis.System, opts Options) (*Site, error) {
	if len(systems) == 0 {
		return nil, fmt.Errorf("no systems for the site: give result files, suite directories or bundles")
	}
	if opts.ReadResult == nil {
		opts.ReadResult = result.Read
	}
	s := &Site{Title: opts.Title}
	if s.Title == "" {
		s.Title = fmt.Sprintf("fairbench results: %d system%s", len(systems), map[bool]string{true: "", false: "s"}[len(systems) == 1])
	}
	files := reportFiles(systems)
	for i, sys := range systems {
		op := describe(sys)
		op.File = files[i]
		prices := opts.Prices
		if prices == nil {
			prices = opts.OwnPrices[sys.Label]
		}
		if prices != nil {
			op.PriceSystem = s.priceSystem(sys, prices)
		}
		rows, err := s.rowsOf(i, sys, op.PriceSystem, prices)
		if err != nil {
			return nil, err
		}
		s.Rows = append(s.Rows, rows...)
		if op.Report, err = s.reportOf(sys, op.PriceSystem, prices, opts); err != nil {
			return nil, fmt.Errorf("the report of %s: %w", sys.Label, err)
		}
		s.Operands = append(s.Operands, op)
	}
	s.Filters = s.filters()
	return s, nil
}

// describe is how the page describes a system's machine, placement and
// server.
func describe(sys *analysis.System) *Operand {
	u := sys.UnderTest
	op := &Operand{System: sys, CPU: u.CPU(), Arch: u.Arch, VCPUs: sys.VCPUs, Region: u.Region,
		InstanceType: strings.Join(u.InstanceTypes, " + "), Cloud: cloudOf(u), Flavor: sys.Server.Flavor, Version: sys.Server.Version}
	if op.Arch == "" {
		op.Arch = unknown
	}
	if op.Flavor == "" {
		op.Flavor = unknown
	}
	return op
}

// unknown is the filter value of what no result records.
const unknown = "unknown"

// The values of Operand.Cloud beside a provider's name.
const (
	cloudUnnamed = "unnamed cloud"
	cloudNone    = "none recorded"
)

// CloudShown is the cloud as the page's cell shows it: "-" when none is
// recorded.
func (o *Operand) CloudShown() string {
	if o.Cloud == cloudNone {
		return "-"
	}
	return o.Cloud
}

// clouds name the providers by the DMI system vendor (and product) their
// machines report: "Amazon EC2" is AWS. They are compiled on first use (a
// site is built by one command of many; see lazyre).
var clouds = sync.OnceValue(func() []cloudVendor {
	return []cloudVendor{
		{regexp.MustCompile(`(?i)^amazon ec2`), nil, "AWS"},
		{regexp.MustCompile(`(?i)^google`), nil, "GCP"},
		{regexp.MustCompile(`(?i)^microsoft`), regexp.MustCompile(`(?i)virtual machine`), "Azure"},
		{regexp.MustCompile(`(?i)^alibaba`), nil, "Alibaba Cloud"},
		{regexp.MustCompile(`(?i)^(huawei cloud|huaweicloud)`), nil, "Huawei Cloud"},
		{regexp.MustCompile(`(?i)^tencent`), nil, "Tencent Cloud"},
		{regexp.MustCompile(`(?i)^digitalocean`), nil, "DigitalOcean"},
		{regexp.MustCompile(`(?i)^hetzner`), nil, "Hetzner"},
		{regexp.MustCompile(`(?i)^oraclecloud`), nil, "Oracle Cloud"},
	}
})

// cloudVendor is a provider as clouds recognise it.
type cloudVendor struct {
	vendor, product *regexp.Regexp
	name            string
}

// cloudOf names the cloud the machines under test ran in: the provider
// their DMI system vendor names (the first machine's that names one);
// cloudUnnamed when they record an instance type or region but no known
// vendor; cloudNone when they record nothing of a cloud.
func cloudOf(u analysis.UnderTest) string {
	for _, m := range u.Machines {
		for _, c := range clouds() {
			if c.vendor.MatchString(m.SystemVendor) && (c.product == nil || c.product.MatchString(m.Product)) {
				return c.name
			}
		}
	}
	if len(u.InstanceTypes) > 0 || u.Region != "" {
		return cloudUnnamed
	}
	return cloudNone
}

// rowsOf is a system's rows: for each of its workloads, its comparison
// alone in the workload's default metric (tpmC for TPC-C, tps otherwise),
// one row per cell, priced with sheet system name when there is one.
func (s *Site) rowsOf(op int, sys *analysis.System, name string, prices *Prices) ([]Row, error) {
	var workloads []string
	for _, k := range sys.Keys() {
		if !slices.Contains(workloads, k.Workload) {
			workloads = append(workloads, k.Workload)
		}
	}
	var rows []Row
	for _, w := range workloads {
		metric := analysis.DefaultMetric([]string{w})
		cmp, err := analysis.Compare([]*analysis.System{sys}, analysis.CompareOptions{Metric: metric, Workloads: []string{w}})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sys.Label, err)
		}
		for _, r := range cmp.Rows {
			row := Row{Operand: op, Key: r.Key, Metric: metric, Cell: r.Cells[0], PricePerf: math.NaN()}
			if name != "" {
				if row.PricePerf, row.PriceUnit, err = pricePerf(prices, name, metric, row.Cell.Value); err != nil {
					return nil, fmt.Errorf("pricing %s: %w", sys.Label, err)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// pricePerf is the cost model's price-performance of sheet system name at
// throughput v of metric (cost.Sheet.Evaluate): the cost over the price
// basis per unit of v, and its unit; NaN when v is not a positive figure.
func pricePerf(p *Prices, name string, metric analysis.Metric, v float64) (float64, string, error) {
	if !(v > 0) || math.IsInf(v, 0) {
		return math.NaN(), "", nil
	}
	ev, err := p.Sheet.Evaluate([]cost.Input{{System: name, Throughput: cost.Figure{Value: v}}}, cost.Options{Metric: metric.Unit, PricePerf: p.PricePerf})
	if err != nil {
		return 0, "", err
	}
	basis := "per " + string(ev.PricePerf)
	if ev.PricePerf == cost.BasisPeriod {
		basis = "over " + ev.Period
	}
	return ev.Rows[0].PricePerformance, fmt.Sprintf("%s per %s %s", ev.Currency, metric.Unit, basis), nil
}

// priceSystem is the sheet's system sys ran on (cost.SheetSystem), "" with a
// note when the sheet has none for it.
func (s *Site) priceSystem(sys *analysis.System, p *Prices) string {
	name, warnings, err := cost.SheetSystem(p.Sheet, sys, p.Systems)
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("%s is not priced: %v", sys.Label, err))
		return ""
	}
	for _, w := range warnings {
		s.Notes = append(s.Notes, fmt.Sprintf("%s is priced as %s: %s", sys.Label, name, w))
	}
	return name
}

// reportOf is a system's full report (report.Build) with the latency
// percentiles report draws by default when the results have them, and the
// cost section when the system is priced and the cost model can price it
// alone (one row); otherwise a note says why the report has none.
func (s *Site) reportOf(sys *analysis.System, name string, prices *Prices, opts Options) (*report.Report, error) {
	systems := []*analysis.System{sys}
	cmp := analysis.CompareOptions{}
	cmp.Metric = analysis.DefaultMetricOf(systems, cmp)
	ropts := report.Options{Title: "fairbench: " + sys.Label, Compare: cmp, LatencyPercentile: "95,99", ReadResult: opts.ReadResult}
	if name != "" {
		sec, err := costSection(sys, cmp, prices)
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("the report of %s has no cost section: %v", sys.Label, err))
		}
		ropts.Cost = sec
	}
	r, err := report.Build(systems, ropts)
	if err != nil && ropts.LatencyPercentile != "" {
		// Results without the latency percentiles (imported ones may lack
		// them) get a report without latency charts.
		ropts.LatencyPercentile = ""
		r, err = report.Build(systems, ropts)
	}
	return r, err
}

// costSection is the report's cost section of sys priced by the sheet
// (cost.PriceSystems, report.NewCostSection).
func costSection(sys *analysis.System, cmp analysis.CompareOptions, p *Prices) (*report.CostSection, error) {
	systems := []*analysis.System{sys}
	// p.Systems maps sys to name as it did for the rows (cost.SheetSystem).
	sel := cost.Selection{Systems: p.Systems, PerDollar: cost.BasisYear, PricePerf: p.PricePerf}
	pr, err := cost.PriceSystems(p.Sheet, systems, cmp, sel)
	if err != nil {
		return nil, err
	}
	return report.NewCostSection(systems, pr, cmp.Metric)
}

// reportFiles names each system's report file after its operand's file or
// directory name (its label when it has none), in letters, digits, dots,
// dashes and underscores, told apart by "-2", "-3"… when two would share a
// name.
func reportFiles(systems []*analysis.System) []string {
	unsafe := regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	seen := map[string]bool{}
	out := make([]string, len(systems))
	for i, sys := range systems {
		base := sys.Name
		if base == "" {
			base = sys.Label
		}
		base = strings.Trim(unsafe.ReplaceAllString(base, "-"), ".-")
		if base == "" {
			base = "system"
		}
		name := base
		for n := 2; seen[strings.ToLower(name)]; n++ {
			name = base + "-" + strconv.Itoa(n)
		}
		seen[strings.ToLower(name)] = true
		out[i] = name + ".html"
	}
	return out
}

// filters are the page's select boxes with the values the rows hold:
// workloads and the rest in alphabetical order, thread counts in
// numerical order.
func (s *Site) filters() []Filter {
	fs := []Filter{{Name: "workload", Label: "workload"}, {Name: "threads", Label: "threads"}, {Name: "flavor", Label: "server"},
		{Name: "arch", Label: "architecture"}, {Name: "cloud", Label: "cloud"}}
	for i := range fs {
		seen := map[string]bool{}
		for _, r := range s.Rows {
			v := s.Value(r, fs[i].Name)
			if !seen[v] {
				seen[v] = true
				fs[i].Values = append(fs[i].Values, v)
			}
		}
		if fs[i].Name == "threads" {
			slices.SortFunc(fs[i].Values, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
		} else {
			slices.Sort(fs[i].Values)
		}
	}
	return fs
}

// Value is a row's value of filter name.
func (s *Site) Value(r Row, name string) string {
	op := s.Operands[r.Operand]
	switch name {
	case "workload":
		return r.Key.Workload
	case "threads":
		return strconv.Itoa(r.Key.Threads)
	case "flavor":
		return op.Flavor
	case "arch":
		return op.Arch
	case "cloud":
		return op.Cloud
	}
	return ""
}
