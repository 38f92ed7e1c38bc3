package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis/usl"
	"github.com/fairbench/fairbench/internal/record/result"
)

// ScaleSectionOf returns the scalability section of key group g over a
// sweep (SweepThreads, SweepCPUs), nil when there is none.
func (c *Comparison) ScaleSectionOf(g Key, over string) *ScaleSection {
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

// ScaleLayout is a scalability section laid out for every rendering (compare's
// text and Markdown, the HTML report): the fitted parameters side by side,
// the readings, the reasons for no model, the marks' notes and each count's
// mean of rounds against the models. Params and Residuals are empty when no
// fit has a model. Captions carry no closing punctuation.
type ScaleLayout struct {
	ParamCaption string
	ParamHeader  []string
	Params       [][]string
	// Readings are each model's reading ("ARM: coherency-limited …."),
	// Missing why a fit has none ("x86: no model — …."), Notes what the
	// table's marks mean.
	Readings, Missing, Notes []string
	ResidualCaption          string
	ResidualHeader           []string
	Residuals                [][]string
}

// Label names a fit in tables and legends: the system, and its by-CPUs
// series when there is one ("x86 one per core").
func (f ScaleFit) Label() string {
	return strings.TrimSpace(f.System + " " + f.Series)
}

// ScaleLayout lays out scalability section ss of c.
func (c *Comparison) ScaleLayout(ss ScaleSection) ScaleLayout {
	conf := fmt.Sprintf("%g%%", c.confidence()*100)
	unit, x := ss.Unit(), c.Metric.Unit
	l := ScaleLayout{ParamCaption: fmt.Sprintf("%s; %s intervals from the fit's covariance", ModelFormula, conf),
		ParamHeader: []string{"system", unit, "rounds", "σ contention", "κ coherency", "λ (" + x + " of one)", "N* peak", "X(N*) " + x, "R²"}}
	vague, beyond := false, false
	for _, f := range ss.Fits {
		who := f.Label()
		m := f.Model
		if m == nil {
			l.Params = append(l.Params, []string{who, fmt.Sprint(f.Points), fmt.Sprint(f.Rounds), "-", "-", "-", "-", "-", "-"})
			l.Missing = append(l.Missing, fmt.Sprintf("%s: no model — %s.", who, f.NoModel))
			continue
		}
		vague = vague || !m.Sigma.Told || !m.Kappa.Told
		beyond = beyond || m.PeakBeyond
		peak := FormatEstimate(m.Peak, true)
		if m.PeakBeyond {
			peak += " " + BeyondMark
		}
		l.Params = append(l.Params, []string{who, fmt.Sprint(f.Points), fmt.Sprint(f.Rounds), FormatParam(m.Sigma), FormatParam(m.Kappa),
			FormatEstimate(&usl.Estimate{Value: m.Lambda.Value, Lo: m.Lambda.Lo, Hi: m.Lambda.Hi}, false), peak, FormatEstimate(m.PeakX, false),
			fmt.Sprintf("%.3f", m.R2)})
		l.Readings = append(l.Readings, fmt.Sprintf("%s: %s.", who, m.Reading(unit, x)))
	}
	if len(l.Readings) == 0 {
		l.Params = nil // the reasons say it all
		return l
	}
	if vague {
		l.Notes = append(l.Notes, fmt.Sprintf("%s: the term's %s interval reaches zero — the rounds cannot tell it is there; its upper bound is the most they allow.", CouldNotTellMark, conf))
	}
	if beyond {
		l.Notes = append(l.Notes, fmt.Sprintf("%s: the peak lies beyond the largest count measured: an extrapolation of the model, not a measurement.", BeyondMark))
	}
	if ss.Over == SweepCPUs {
		l.Notes = append(l.Notes, "Each CPU set's figure is its best thread count's, as in the table above: the peak of noisy rounds leans high, so the fit may too.")
	}
	l.residuals(ss, x)
	return l
}

// residuals fills l's table of each count's mean of rounds beside each
// model's X(N) and the residual.
func (l *ScaleLayout) residuals(ss ScaleSection, x string) {
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
	slices.Sort(counts)
	l.ResidualCaption = fmt.Sprintf("mean of rounds, the model's X(N) and the residual (mean ÷ model − 1), %s", x)
	l.ResidualHeader = []string{ss.Unit()}
	for _, f := range fits {
		l.ResidualHeader = append(l.ResidualHeader, f.Label()+": measured", "model", "residual")
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
		l.Residuals = append(l.Residuals, line)
	}
}

// layoutScaling lays out a scalability section for text and Markdown
// (ScaleLayout): the parameters' and residuals' tables, then the readings,
// contrasts, reasons for no model and notes as footnotes.
func (c *Comparison) layoutScaling(ss ScaleSection) section {
	l := c.ScaleLayout(ss)
	sec := section{title: ScaleSectionTitle(ss), ref: SectionRef{SectionScaling, slices.IndexFunc(c.Scaling, func(o ScaleSection) bool { return o.Group == ss.Group && o.Over == ss.Over })}}
	if len(l.Params) > 0 {
		sec.tables = append(sec.tables,
			table{caption: l.ParamCaption + ":", header: l.ParamHeader, rows: l.Params, left: map[int]bool{0: true}},
			table{caption: "Measured against the model (" + l.ResidualCaption + "):", header: l.ResidualHeader, rows: l.Residuals})
	}
	sec.footnotes = append(sec.footnotes, l.Readings...)
	sec.footnotes = append(sec.footnotes, ss.Contrasts...)
	sec.footnotes = append(sec.footnotes, l.Missing...)
	sec.footnotes = append(sec.footnotes, l.Notes...)
	return sec
}

// BeyondMark marks a peak N* beyond the sweep (an extrapolation).
const BeyondMark = "»"

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
			brief := f.Label() + " " + briefReading(f.Model, ss.Unit())
			if m := f.Model; m.Misfit {
				why := fmt.Sprintf("R² = %.2f", m.R2)
				if m.LackOfFitP < usl.MisfitAlpha && m.MaxResidual >= usl.MisfitResidual {
					why = fmt.Sprintf("points up to %.0f %% off the curve", m.MaxResidual*100)
				}
				brief += " (a rough fit: " + why + ")"
			}
			if f.Noisy > 0 {
				counts := "thread counts"
				if ss.Over == SweepCPUs {
					counts = "CPU sets"
				}
				brief += fmt.Sprintf(" — %s %d of its %d %s measured while other processes used more than %d %% of the machine", NoisyMark, f.Noisy, f.Points, counts, result.OtherProcessesLimitPct)
			}
			parts = append(parts, brief)
		}
		if len(parts) == 0 {
			continue
		}
		line := fmt.Sprintf("%s by %s: %s", RowLabel(ss.Group), ss.Over, strings.Join(parts, "; "))
		if len(ss.Contrasts) > 0 {
			line += ". " + strings.Join(ss.Contrasts, " ")
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
