package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/cost"
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
	sec.Headline = rep.Claims
	return sec, nil
}
