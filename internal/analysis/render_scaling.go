package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis/usl"
)

// scaleSectionOf returns the scalability section of key group g over a
// sweep, nil when there is none.
func (c *Comparison) scaleSectionOf(g Key, over string) *ScaleSection {
	g.Threads = 0
	if over == SweepCPUs {
		g.CPUs = ""
	}
	for i := range c.Scaling {
		if c.Scaling[i].Over == over && c.Scaling[i].Group == g {
			return &c.Scaling[i]
		}
	}
	return nil
}

// FormatParam prints a fitted coefficient with its interval: "0.050
// [0.043–0.057]"; CouldNotTellMark before it when the interval reaches zero
// (the term may be absent).
func FormatParam(p usl.Param) string {
	s := fmt.Sprintf("%s [%s–%s]", usl.Coef(p.Value), usl.Coef(p.Lo), usl.Coef(p.Hi))
	if !p.Told {
		s = CouldNotTellMark + " " + s
	}
	return s
}

// FormatEstimate prints a derived figure with its interval; counts selects
// usl.Count over usl.Figure.
func FormatEstimate(e *usl.Estimate, counts bool) string {
	if e == nil {
		return "-"
	}
	f := usl.Figure
	if counts {
		f = usl.Count
	}
	return fmt.Sprintf("%s [%s–%s]", f(e.Value), f(e.Lo), f(e.Hi))
}

// ModelFormula is the model and method every scalability table states.
const ModelFormula = "Universal Scalability Law X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted to every round by least squares on the log scale with σ, κ ≥ 0"

// layoutScaling lays out a scalability section: the fitted parameters side
// by side, the measured means against the models, the readings, the
// contrasts and the reasons for no model.
func (c *Comparison) layoutScaling(ss ScaleSection) section {
	conf := fmt.Sprintf("%g%%", c.confidence()*100)
	unit := ss.Unit()
	sec := section{title: ScaleSectionTitle(ss), rows: -1}
	params := table{caption: fmt.Sprintf("%s; %s intervals from the fit's covariance:", ModelFormula, conf),
		header: []string{"system", unit, "rounds", "σ contention", "κ coherency", "λ (" + c.Metric.Unit + " of one)", "N* peak", "X(N*) " + c.Metric.Unit, "R²"},
		left:   map[int]bool{0: true}}
	var readings, missing []string
	vague := false
	for _, f := range ss.Fits {
		who := f.System
		if f.Series != "" {
			who += " (" + f.Series + ")"
		}
		if f.Model == nil {
			params.rows = append(params.rows, []string{who, fmt.Sprint(f.Points), fmt.Sprint(f.Rounds), "-", "-", "-", "-", "-", "-"})
			missing = append(missing, fmt.Sprintf("%s: no model — %s.", who, f.NoModel))
			continue
		}
		m := f.Model
		vague = vague || !m.Sigma.Told || !m.Kappa.Told
		peak := FormatEstimate(m.Peak, true)
		if m.PeakBeyond {
			peak += " " + BeyondMark
		}
		params.rows = append(params.rows, []string{who, fmt.Sprint(f.Points), fmt.Sprint(f.Rounds), FormatParam(m.Sigma), FormatParam(m.Kappa),
			FormatEstimate(&usl.Estimate{Value: m.Lambda.Value, Lo: m.Lambda.Lo, Hi: m.Lambda.Hi}, false), peak, FormatEstimate(m.PeakX, false),
			fmt.Sprintf("%.3f", m.R2)})
		readings = append(readings, fmt.Sprintf("%s: %s.", who, m.Reading(unit, c.Metric.Unit)))
	}
	if t, ok := residualTable(ss, c.Metric.Unit); ok {
		sec.tables = append(sec.tables, params, t)
	}
	sec.footnotes = append(sec.footnotes, readings...)
	sec.footnotes = append(sec.footnotes, ss.Contrasts...)
	sec.footnotes = append(sec.footnotes, missing...)
	if vague {
		sec.footnotes = append(sec.footnotes, fmt.Sprintf("%s: the term's %s interval reaches zero — the rounds cannot tell it is there; its upper bound is the most they allow.", CouldNotTellMark, conf))
	}
	if slices.ContainsFunc(ss.Fits, func(f ScaleFit) bool { return f.Model != nil && f.Model.PeakBeyond }) {
		sec.footnotes = append(sec.footnotes, fmt.Sprintf("%s: the peak lies beyond the largest count measured: an extrapolation of the model, not a measurement.", BeyondMark))
	}
	if ss.Over == SweepCPUs {
		sec.footnotes = append(sec.footnotes, "Each CPU set's figure is its best thread count's, as in the table above: the peak of noisy rounds leans high, so the fit may too.")
	}
	return sec
}

// BeyondMark marks a peak N* beyond the sweep (an extrapolation).
const BeyondMark = "»"

// residualTable lists each count's mean of rounds beside each model's
// X(N) and the residual; false when no system has a model.
func residualTable(ss ScaleSection, unit string) (table, bool) {
	var fits []ScaleFit
	var counts []float64
	for _, f := range ss.Fits {
		if f.Model == nil {
			continue
		}
		fits = append(fits, f)
		for _, p := range f.Model.Points {
			if !slices.Contains(counts, p.N) {
				counts = append(counts, p.N)
			}
		}
	}
	if len(fits) == 0 {
		return table{}, false
	}
	slices.Sort(counts)
	t := table{caption: fmt.Sprintf("Measured against the model (mean of rounds, the model's X(N), residual = mean ÷ model − 1), %s:", unit),
		header: []string{ss.Unit()}}
	for _, f := range fits {
		who := f.System
		if f.Series != "" {
			who += " (" + f.Series + ")"
		}
		t.header = append(t.header, who+": measured", "model", "residual")
	}
	for _, n := range counts {
		line := []string{usl.Count(n)}
		for _, f := range fits {
			i := slices.IndexFunc(f.Model.Points, func(p usl.Point) bool { return p.N == n })
			if i < 0 {
				line = append(line, "-", "-", "-")
				continue
			}
			p := f.Model.Points[i]
			line = append(line, fmtNum(p.Mean), fmtNum(p.Fitted), fmt.Sprintf("%+.1f%%", p.Residual*100))
		}
		t.rows = append(t.rows, line)
	}
	return t, true
}

// ScalingHeadline is one sentence per scalability section with a model:
// each system's reading in brief, and the contrasts; nil when no sweep has
// a model.
func (c *Comparison) ScalingHeadline() []string {
	var out []string
	for _, ss := range c.Scaling {
		var parts []string
		for _, f := range ss.Fits {
			if f.Model == nil {
				continue
			}
			who := f.System
			if f.Series != "" {
				who += " (" + f.Series + ")"
			}
			brief := who + " " + briefReading(f.Model, ss.Unit())
			if f.Model.Misfit {
				brief += fmt.Sprintf(" (a rough fit: points up to %.0f %% off the curve)", f.Model.MaxResidual*100)
			}
			parts = append(parts, brief)
		}
		if len(parts) == 0 {
			continue
		}
		line := fmt.Sprintf("%s by %s: %s", RowLabel(ss.Group), ss.Over, strings.Join(parts, "; "))
		if len(ss.Contrasts) > 0 {
			line += " — " + strings.Join(ss.Contrasts, "; ")
		}
		out = append(out, line)
	}
	return out
}

// briefReading is a model's reading in a few words for the headline.
func briefReading(m *usl.Model, unit string) string {
	switch {
	case m.Peak != nil:
		s := fmt.Sprintf("peaks at about %s %s (%s–%s)", usl.Count(m.Peak.Value), unit, usl.Count(m.Peak.Lo), usl.Count(m.Peak.Hi))
		if m.PeakBeyond {
			s += ", beyond the sweep (extrapolated)"
		}
		return s
	case m.Ceiling != nil:
		return fmt.Sprintf("is contention-limited (σ = %s), within 5 %% of its ceiling from about %s %s", usl.Coef(m.Sigma.Value), usl.Count(m.Near), unit)
	}
	if eff := m.X(m.MaxN) / m.Linear(m.MaxN); eff < usl.LinearShare {
		return fmt.Sprintf("grows to %.0f %% of linear at %s %s (contention and coherency cannot be told apart)", eff*100, usl.Count(m.MaxN), unit)
	}
	return fmt.Sprintf("grows close to linearly over %s–%s %s", usl.Count(m.MinN), usl.Count(m.MaxN), unit)
}
