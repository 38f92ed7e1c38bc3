package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/cost"
)

// NewCostSection is the report's cost section of systems priced by the cost
// model (cost.PriceSystems): the cost tables as the cost command renders
// them, the bars of each system's monthly cost, price-performance and
// throughput per dollar, and the cost's headline. metric is the compared
// throughput.
func NewCostSection(systems []*analysis.System, pr *cost.Pricing, metric analysis.Metric) (*CostSection, error) {
	rep, ev := pr.Report, pr.Eval
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
	sec := &CostSection{
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
		sec.Monthly = append(sec.Monthly, Bar{Label: label, Value: row.Cost.Monthly, Color: i})
		sec.PricePerformance = append(sec.PricePerformance, Bar{Label: label, Value: row.PricePerformance, Color: i})
		sec.PerDollar = append(sec.PerDollar, Bar{Label: label, Value: row.PerDollar, Color: i})
		if row.Diff == nil {
			sec.Baseline = label
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
			systems[i].Label, math.Abs(d), word, unit, systems[base].Label, basisName(ev), ev.Currency, unit, r.PricePerformance, ev.Rows[base].PricePerformance, cost.JoinInts(r.Threads)))
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
