package suite

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// tableFigure is what the suite's tables show of a cell: the metric and
// center compare, report and cost show by default (analysis.DefaultMetric of
// the suite's workloads, analysis.DefaultCenter), so that a cell reads the
// same in the suite's closing tables and in 'fairbench compare DIR'.
type tableFigure struct {
	metric analysis.Metric
	center analysis.Center
}

// figureOf is the figure of manifest m's tables.
func figureOf(m *suitedir.Manifest) tableFigure {
	var workloads []string
	for _, c := range m.Cells {
		if !slices.Contains(workloads, c.Workload) {
			workloads = append(workloads, c.Workload)
		}
	}
	return tableFigure{metric: analysis.DefaultMetric(workloads), center: analysis.DefaultCenter}
}

// value is the metric of a cell's summary, and whether it has it.
func (f tableFigure) value(c suitedir.CellRecord) (float64, bool) {
	if c.Summary == nil {
		return 0, false
	}
	return f.metric.Value(analysis.SummarySample(c.Summary))
}

// cellLine is the live line printed after a cell.
func cellLine(r suitedir.CellRecord) string {
	if r.Summary == nil || r.Status == suitedir.StatusFailed && r.Summary.TPS == 0 {
		return fmt.Sprintf("    %s: %s", r.Status, r.Error)
	}
	p95 := "p95        - ms" // the plan's percentiles left out 95
	if r.Summary.P95Ms > 0 {
		p95 = fmt.Sprintf("p95 %8.3f ms", r.Summary.P95Ms)
	}
	line := fmt.Sprintf("    %-11s %10.2f tps %11.2f qps  %s  %.1fs", r.Status, r.Summary.TPS, r.Summary.QPS, p95, r.Seconds)
	if r.Summary.TpmC > 0 {
		line += fmt.Sprintf("  tpmC %.1f", r.Summary.TpmC)
	}
	if n := r.Summary.Reconnects; n > 0 {
		line += fmt.Sprintf("  reconnects %d", n)
	}
	if n := r.Summary.IgnoredErrors; n > 0 {
		line += fmt.Sprintf("  ignored errors %d", n)
	}
	if n := r.Summary.Outages; n > 0 {
		line += fmt.Sprintf("  server away %.1fs (%d outage(s))", r.Summary.OutageSeconds, n)
	}
	if n := r.Summary.Warnings; n > 0 {
		line += fmt.Sprintf("  warnings %d (in the result file)", n)
	}
	if r.Error != "" {
		line += "  error: " + r.Error
	}
	return line
}

// OutageMark marks a table cell whose figure comes from a run during which
// the server went away or stopped answering (a complete one: the outage or
// stall was short and the server was back); a failed cell shows "failed"
// instead.
const OutageMark = "‡"

// outageLegend explains OutageMark under the tables that use it.
const outageLegend = OutageMark + " the server went away or stopped answering during this cell (complete: it was back within 5 % of the measured phase); the figure includes the outage — see the cell's result for when and how long\n"

// block is one seed-style table: a profile, data set, server CPU set (a
// server_cpus sweep) and distribution.
type block struct {
	profile, data, cpus, randType string
}

func (b block) title() string {
	var parts []string
	for _, s := range []string{b.profile, b.data, b.cpus, b.randType} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// WriteTables prints the seed-style tables of a suite: for every profile, data
// set, distribution and round, thread counts down and test cases across; with
// several rounds also the mean over rounds (analysis.DefaultCenter). Every
// column is headed with its metric, the one compare shows by default
// (figureOf), and every figure is printed as compare prints it. Cells not
// run show "-", failed ones "failed".
func WriteTables(w io.Writer, m *suitedir.Manifest) {
	writeTables(w, m, func(suitedir.Cell) bool { return true })
}

// hadOutage reports whether a cell's run had an outage.
func hadOutage(c suitedir.CellRecord) bool { return c.Summary != nil && c.Summary.Outages > 0 }

// sameTable reports whether two cells belong to the same table (and round).
func sameTable(a, b suitedir.Cell) bool {
	return sameServer(a, b) && a.Data == b.Data && a.RandType == b.RandType && a.Round == b.Round
}

// writeTables prints the tables of the cells that keep selects, in the
// figure of the whole suite (figureOf), whichever cells keep selects.
func writeTables(w io.Writer, m *suitedir.Manifest, keep func(suitedir.Cell) bool) {
	fig := figureOf(m)
	fewer := false
	var blocks []block
	byBlock := map[block][]suitedir.CellRecord{}
	marked := false
	for _, c := range m.Cells {
		if !keep(c.Cell) {
			continue
		}
		marked = marked || hadOutage(c) && c.Status != suitedir.StatusFailed
		b := block{c.Profile, c.Data, setLabel(c.ServerCPUs, c.SMT), c.RandType}
		if _, ok := byBlock[b]; !ok {
			blocks = append(blocks, b)
		}
		byBlock[b] = append(byBlock[b], c)
	}
	for _, b := range blocks {
		cells := byBlock[b]
		var workloads []string
		var threads, rounds []int
		for _, c := range cells {
			if !slices.Contains(workloads, c.Workload) {
				workloads = append(workloads, c.Workload)
			}
			if !slices.Contains(threads, c.Threads) {
				threads = append(threads, c.Threads)
			}
			if !slices.Contains(rounds, c.Round) {
				rounds = append(rounds, c.Round)
			}
		}
		sort.Ints(threads)
		sort.Ints(rounds)
		for _, r := range rounds {
			title := b.title()
			if len(rounds) > 1 || r > 1 {
				title += fmt.Sprintf(" · round %d", r)
			}
			writeTable(w, title, fig.metric, workloads, threads, func(wl string, t int) string {
				for _, c := range cells {
					if c.Round == r && c.Workload == wl && c.Threads == t {
						return fig.cellText(c)
					}
				}
				return "-"
			})
		}
		if len(rounds) > 1 {
			title := b.title() + " · " + fig.center.OfRounds(len(rounds))
			writeTable(w, title, fig.metric, workloads, threads, func(wl string, t int) string {
				var vals []float64
				mark := ""
				for _, c := range cells {
					if c.Workload != wl || c.Threads != t || c.Status != suitedir.StatusComplete {
						continue
					}
					if v, ok := fig.value(c); ok {
						vals = append(vals, v)
						if hadOutage(c) {
							mark = OutageMark
						}
					}
				}
				if len(vals) == 0 {
					return "-"
				}
				text := analysis.FormatFigure(fig.center.Of(analysis.Describe(vals))) + mark
				if len(vals) < len(rounds) {
					fewer = true
					text += fmt.Sprintf(" (%d of %d)", len(vals), len(rounds))
				}
				return text
			})
		}
	}
	if marked {
		fmt.Fprint(w, outageLegend)
		fmt.Fprintln(w)
	}
	if fewer {
		fmt.Fprintf(w, "(N of M): the %s of the N rounds that completed, of the plan's M; the others are in the per-round tables\n\n", fig.center)
	}
}

// cellText is a cell's figure as the table shows it.
func (f tableFigure) cellText(c suitedir.CellRecord) string {
	if c.Status == suitedir.StatusFailed {
		return "failed"
	}
	x, ok := f.value(c)
	if !ok {
		return "-"
	}
	v := analysis.FormatFigure(x)
	if c.Status == suitedir.StatusInterrupted {
		v += "*"
	}
	if hadOutage(c) {
		v += OutageMark
	}
	return v
}

// writeTable prints one table: its title, then thread counts down and
// workloads across, each column headed with the metric.
func writeTable(w io.Writer, title string, metric analysis.Metric, workloads []string, threads []int, cell func(string, int) string) {
	fmt.Fprintf(w, "%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "threads\t")
	for _, wl := range workloads {
		fmt.Fprintf(tw, "%s (%s)\t", wl, metric.Unit)
	}
	fmt.Fprintln(tw)
	for _, t := range threads {
		fmt.Fprintf(tw, "%d\t", t)
		for _, wl := range workloads {
			fmt.Fprintf(tw, "%s\t", cell(wl, t))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
