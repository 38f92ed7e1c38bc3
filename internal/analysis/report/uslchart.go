package report

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/usl"
)

// ScaleView is a scalability section of the HTML report (an
// analysis.ScaleSection): its chart, the fitted parameters side by side
// (the columns of compare's table), the readings, the contrasts and the
// reasons for no model, and each count's mean of rounds against the models.
type ScaleView struct {
	// Title is the section's heading (analysis.ScaleSectionTitle), ID the
	// heading's anchor.
	Title, ID string
	analysis.ScaleSection
	analysis.ScaleLayout
	// Chart draws the models over the measured means; nil when no fit has
	// a model.
	Chart *Chart
}

// USLLayer makes a chart a scalability chart: its series are drawn as
// points with their intervals (not lines), and each fitted model over them
// as a curve with its ideal linear line λN and its peak N*.
type USLLayer struct {
	// Curves are the fits with a model, each in its series' colour.
	Curves []USLCurve
	// Unit names N in the peak's label ("threads", "CPUs").
	Unit string
}

// USLCurve is one fitted model on a scalability chart.
type USLCurve struct {
	// Label is its series' label, Color and Dashes its series'.
	Label         string
	Color, Dashes int
	Model         *usl.Model
}

// uslIdealLegend is the legend's entry for a model's ideal line: the
// line charts' (idealLegend), named by the model's λ.
const uslIdealLegend = idealLegend + " λN"

// extrapolationLimit is how far past the largest count measured a chart
// draws a model towards a peak beyond the sweep (a multiple of that count):
// further, the measured counts would be squeezed into a corner.
const extrapolationLimit = 4.0

// scaleViews gives every section of r and every by-CPUs section its
// scalability section, when the comparison has one.
func (r *Report) scaleViews() {
	cmp := r.Comparison
	for i := range r.Sections {
		if ss := cmp.ScaleSectionOf(r.Sections[i].Rows[0].Key, analysis.SweepThreads); ss != nil {
			r.Sections[i].Scale = newScaleView(cmp, r.Systems, *ss, fmt.Sprintf("s%d-usl", i+1))
		}
	}
	for i := range r.CPUSections {
		if ss := cmp.ScaleSectionOf(r.CPUSections[i].Group, analysis.SweepCPUs); ss != nil {
			r.CPUSections[i].Scale = newScaleView(cmp, r.Systems, *ss, fmt.Sprintf("cpus%d-usl", i+1))
		}
	}
}

// scaleView returns the report's view of scalability section ss, nil when
// it has none.
func (r *Report) scaleView(ss analysis.ScaleSection) *ScaleView {
	var views []*ScaleView
	for _, s := range r.Sections {
		views = append(views, s.Scale)
	}
	for _, s := range r.CPUSections {
		views = append(views, s.Scale)
	}
	for _, v := range views {
		if v != nil && v.Group == ss.Group && v.Over == ss.Over {
			return v
		}
	}
	return nil
}

// newScaleView lays out a scalability section for the HTML report: the
// comparison's layout of it (analysis.ScaleLayout) and its chart when a fit
// has a model.
func newScaleView(cmp *analysis.Comparison, systems []*analysis.System, ss analysis.ScaleSection, id string) *ScaleView {
	v := &ScaleView{Title: analysis.ScaleSectionTitle(ss), ID: "scalability-" + strings.TrimSuffix(id, "-usl"), ScaleSection: ss,
		ScaleLayout: cmp.ScaleLayout(ss)}
	if len(v.Readings) > 0 {
		v.Chart = uslChart(cmp, systems, ss, id)
	}
	return v
}

// sweepStats are the counts and the rounds' statistics of fit f's sweep in
// cmp: the thread counts of its section's rows, or the server CPU sets of
// its by-CPUs curve; dashed says the curve is of one thread per core (dashed
// as on the by-CPUs chart).
func sweepStats(cmp *analysis.Comparison, ss analysis.ScaleSection, f analysis.ScaleFit) (ns []float64, stats []analysis.Stats, dashed bool) {
	if ss.Over == analysis.SweepCPUs {
		for _, cs := range cmp.ByCPUs {
			if cs.Group != ss.Group {
				continue
			}
			for _, cv := range cs.Curves {
				if cv.System != f.System || cv.Mode != f.Series {
					continue
				}
				dashed = cv.SMT != ""
				for _, p := range cv.Points {
					ns, stats = append(ns, float64(p.CPUs)), append(stats, p.Stats)
				}
			}
		}
		return ns, stats, dashed
	}
	i := slices.IndexFunc(cmp.Systems, func(s *analysis.System) bool { return s.Label == f.System })
	if i < 0 {
		return nil, nil, false
	}
	for _, row := range matching(cmp, ss.Group) {
		if st := row.Cells[i].Stats; st.N > 0 {
			ns, stats = append(ns, float64(row.Key.Threads)), append(stats, st)
		}
	}
	return ns, stats, false
}

// uslChart is a scalability section's chart: each fit's measured means
// with their intervals, and each model's curve, ideal line and peak.
func uslChart(cmp *analysis.Comparison, systems []*analysis.System, ss analysis.ScaleSection, id string) *Chart {
	c := &Chart{ID: id, Title: fmt.Sprintf("%s by %s: the fitted model", cmp.Metric.Unit, ss.Over), XLabel: ss.Over, YLabel: cmp.Metric.Unit,
		ThreadAxis: true, USL: &USLLayer{Unit: ss.Unit()}}
	if ss.Over == analysis.SweepCPUs {
		c.YLabel += " at the best thread count"
	}
	var missing []string
	for _, f := range ss.Fits {
		col := slices.IndexFunc(systems, func(s *analysis.System) bool { return s.Label == f.System })
		ns, stats, dashed := sweepStats(cmp, ss, f)
		dashes := dashesIf(dashed)
		ser := Series{Label: f.Label(), Color: col, Dashes: dashes}
		for j, n := range ns {
			lo, hi := ciOf(stats[j])
			ser.X, ser.Y = append(ser.X, n), append(ser.Y, stats[j].Mean)
			ser.Lo, ser.Hi = append(ser.Lo, lo), append(ser.Hi, hi)
		}
		if len(ser.X) == 0 {
			continue
		}
		c.Series = append(c.Series, ser)
		if f.Model != nil {
			c.USL.Curves = append(c.USL.Curves, USLCurve{Label: ser.Label, Color: col, Dashes: dashes, Model: f.Model})
		} else {
			missing = append(missing, fmt.Sprintf("%s: no model — %s; its points only.", ser.Label, f.NoModel))
		}
	}
	c.Caption = c.uslCaption(cmp.Confidence, ss.Unit(), missing)
	return c
}

// uslCaption says what a scalability chart's lines are, how its intervals
// were found, and why a fit has no curve.
func (c *Chart) uslCaption(confidence float64, unit string, missing []string) string {
	var parts []string
	if len(c.USL.Curves) > 0 {
		one := strings.TrimSuffix(unit, "s")
		s := "Solid lines: the " + analysis.ModelFormula + ", over the counts measured"
		if c.uslReach() > c.uslMaxX() {
			s += "; dashed: the model beyond them, up to its peak N* — an extrapolation, not a measurement"
		}
		parts = append(parts, s+".",
			fmt.Sprintf("Dotted: the ideal linear λN (λ, the model's throughput of one %s, times N), cut at the top of the chart.", one))
		if slices.ContainsFunc(c.USL.Curves, func(u USLCurve) bool { return u.Model.Peak != nil }) {
			parts = append(parts, fmt.Sprintf("Ring and vertical line: the model's peak N*; the horizontal bar through the ring is N*'s %g %% interval (from the fit's covariance; cut at the chart's edge).", confidence*100))
		}
		if slices.ContainsFunc(c.USL.Curves, func(u USLCurve) bool { return u.Model.Peak != nil && u.Model.Peak.Value > c.uslReach() }) {
			parts = append(parts, fmt.Sprintf("A peak further than %g× the largest count measured is left off the chart (the table gives it).", extrapolationLimit))
		}
	}
	parts = append(parts, "Points: the mean of each count's rounds.")
	if ic := c.intervalCaption(); ic != "" {
		parts = append(parts, ic)
	}
	parts = append(parts, missing...)
	return strings.Join(parts, " ")
}

// uslMaxX is the largest count measured on the chart.
func (c *Chart) uslMaxX() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, x := range s.X {
			m = math.Max(m, x)
		}
	}
	return m
}

// uslReach is the largest N the chart draws: the largest count measured, or
// a model's peak beyond it (up to extrapolationLimit times that count).
func (c *Chart) uslReach() float64 {
	maxX := c.uslMaxX()
	reach := maxX
	for _, u := range c.USL.Curves {
		if u.Model.Peak != nil && u.Model.PeakBeyond {
			reach = math.Max(reach, math.Min(u.Model.Peak.Value, extrapolationLimit*maxX))
		}
	}
	return reach
}

// uslSamples is N from a to b in steps even on the chart's x axis, both
// ends included.
func (c *Chart) uslSamples(a, b float64, steps int) []float64 {
	out := make([]float64, 0, steps+1)
	for k := 0; k <= steps; k++ {
		t := float64(k) / float64(steps)
		if c.ThreadAxis {
			out = append(out, a*math.Pow(b/a, t))
		} else {
			out = append(out, a+(b-a)*t)
		}
	}
	return out
}

// The number of segments of a model's curve over the counts measured; its
// extrapolation and ideal line get as many per unit of the x axis.
const uslSteps = 120

// uslLegendNames are the entries of a scalability chart's legend: each
// series, then the lines' and marks' kinds that it draws.
func (c *Chart) uslLegendNames() []string {
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Label)
	}
	if len(c.USL.Curves) > 0 {
		if c.uslReach() > c.uslMaxX() {
			names = append(names, "model, extrapolated")
		}
		names = append(names, uslIdealLegend)
		if slices.ContainsFunc(c.USL.Curves, func(u USLCurve) bool { return u.Model.Peak != nil && u.Model.Peak.Value <= c.uslReach() }) {
			names = append(names, "peak N*")
		}
	}
	if slices.ContainsFunc(c.Series, func(s Series) bool { return slices.ContainsFunc(s.Lo, func(v float64) bool { return !math.IsNaN(v) }) }) {
		names = append(names, fmt.Sprintf("%g%% CI", analysis.Confidence*100))
	}
	return names
}

// addUSL draws a scalability chart: each series' points with their
// intervals (cut at the top as a line chart's are), each model's curve
// (solid over the counts measured, dashed up to a peak beyond them), its
// ideal line λN cut at the top, and its peak N* with N*'s interval.
func (c *Chart) addUSL(p *plot.Plot, leg *plot.Legend) error {
	xOf := func(n float64) float64 {
		if c.ThreadAxis {
			return math.Log2(n)
		}
		return n
	}
	maxX, reach := c.uslMaxX(), c.uslReach()
	minX := maxX
	for _, s := range c.Series {
		for _, x := range s.X {
			minX = math.Min(minX, x)
		}
	}
	// The curves first: the axis' top holds them as well as the points.
	type drawn struct {
		u           USLCurve
		fit, beyond plotter.XYs
	}
	var curves []drawn
	top := c.yRange()
	for _, u := range c.USL.Curves {
		m := u.Model
		d := drawn{u: u}
		for _, n := range c.uslSamples(m.MinN, m.MaxN, uslSteps) {
			d.fit = append(d.fit, plotter.XY{X: xOf(n), Y: m.X(n)})
			top = math.Max(top, m.X(n))
		}
		if m.Peak != nil && m.PeakBeyond {
			end := math.Min(m.Peak.Value, reach)
			steps := max(uslSteps/4, int(uslSteps*(xOf(end)-xOf(m.MaxN))/math.Max(xOf(m.MaxN)-xOf(m.MinN), 1e-9)))
			for _, n := range c.uslSamples(m.MaxN, end, steps) {
				d.beyond = append(d.beyond, plotter.XY{X: xOf(n), Y: m.X(n)})
				top = math.Max(top, m.X(n))
			}
		}
		curves = append(curves, d)
	}
	top = niceTop(top)
	p.Y.Min, p.Y.Max = 0, top
	p.X.Min, p.X.Max = xOf(minX), xOf(reach)
	var ticks plot.ConstantTicks
	for _, s := range c.Series {
		for _, x := range s.X {
			if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == xOf(x) }) {
				ticks = append(ticks, plot.Tick{Value: xOf(x), Label: usl.Count(x)})
			}
		}
	}
	if c.ThreadAxis {
		p.X.Tick.Marker = ticks
	}
	lineOf := func(xys plotter.XYs, col color.Color, width vg.Length, dashes []vg.Length) (*plotter.Line, error) {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.ID, err)
		}
		l.Color, l.Width, l.Dashes = col, width, dashes
		return l, nil
	}
	seriesDashes := func(d int) []vg.Length {
		if d > 0 {
			return []vg.Length{vg.Points(7), vg.Points(3)}
		}
		return nil
	}
	beyondDashes := []vg.Length{vg.Points(3), vg.Points(3)}
	fitted := map[string]*plotter.Line{}
	peaks := 0
	for _, d := range curves {
		m, col := d.u.Model, SystemColor(d.u.Color)
		// The ideal line λN up to the top of the axis (or the chart's end).
		if end := math.Min(reach, top/m.Lambda.Value); end > m.MinN {
			var xys plotter.XYs
			for _, n := range c.uslSamples(m.MinN, end, uslSteps) {
				xys = append(xys, plotter.XY{X: xOf(n), Y: m.Linear(n)})
			}
			l, err := lineOf(xys, withAlpha(col, 0xC0), vg.Points(1.2), idealDashes)
			if err != nil {
				return err
			}
			p.Add(l)
		}
		l, err := lineOf(d.fit, col, vg.Points(2), seriesDashes(d.u.Dashes))
		if err != nil {
			return err
		}
		p.Add(l)
		fitted[d.u.Label] = l
		if len(d.beyond) > 1 {
			l, err := lineOf(d.beyond, col, vg.Points(1.5), beyondDashes)
			if err != nil {
				return err
			}
			p.Add(l)
		}
		if m.Peak == nil || m.Peak.Value > reach {
			continue
		}
		// The peak: a thin line down to the axis, a ring on the curve with
		// N*'s interval through it, and "N* ≈ 135" low beside the line,
		// each model's a row above the previous one's.
		n, y := m.Peak.Value, m.X(m.Peak.Value)
		v, err := lineOf(plotter.XYs{{X: xOf(n), Y: 0}, {X: xOf(n), Y: y}}, withAlpha(col, 0xA0), vg.Points(1), nil)
		if err != nil {
			return err
		}
		p.Add(v)
		lo, hi := math.Max(m.Peak.Lo, minX), math.Min(m.Peak.Hi, reach)
		eb, err := plotter.NewXErrorBars(peakErrors{XYs: plotter.XYs{{X: xOf(n), Y: y}}, lo: xOf(n) - xOf(lo), hi: xOf(hi) - xOf(n)})
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.ID, err)
		}
		eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1.5), vg.Points(6)
		ring, err := plotter.NewScatter(plotter.XYs{{X: xOf(n), Y: y}})
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.ID, err)
		}
		ring.Shape, ring.Color, ring.Radius = thickRing{}, col, vg.Points(5)
		sty := textStyle(9)
		sty.Color = col
		sty.YAlign = draw.YBottom
		off := vg.Points(4)
		if xOf(n) > (xOf(minX)+xOf(reach))/2 {
			sty.XAlign, off = draw.XRight, -off
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: xOf(n), Y: top * (0.03 + 0.08*float64(peaks))}},
			Labels: []string{"N* ≈ " + usl.Count(n)}})
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.ID, err)
		}
		lab.TextStyle[0], lab.Offset = sty, vg.Point{X: off}
		p.Add(eb, ring, lab)
		peaks++
	}
	for _, s := range c.Series {
		col := SystemColor(s.Color)
		xys, errs, lo, hi := s.points(xOf, top)
		if err := addErrorBars(p, errs, lo, hi, col); err != nil {
			return fmt.Errorf("chart %s, series %s: %w", c.ID, s.Label, err)
		}
		pts, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("chart %s, series %s: %w", c.ID, s.Label, err)
		}
		pts.Shape, pts.Color, pts.Radius = SystemGlyph(s.Color), col, vg.Points(3)
		if s.Dashes > 0 {
			// A system's second series (one thread per core): hollow
			// marks, told apart from its first's without a line.
			pts.Shape, pts.Radius = hollowGlyph{SystemGlyph(s.Color)}, vg.Points(3.5)
		}
		p.Add(pts)
		if l := fitted[s.Label]; l != nil {
			leg.Add(s.Label, l, pts)
		} else {
			leg.Add(s.Label, pts)
		}
	}
	grey := color.Gray{Y: 0x55}
	for _, name := range c.uslLegendNames()[len(c.Series):] {
		var th plot.Thumbnailer
		switch name {
		case "model, extrapolated":
			th = lineThumb{grey, vg.Points(1.5), beyondDashes}
		case uslIdealLegend:
			th = idealThumb{}
		case "peak N*":
			th = peakThumb{}
		default:
			th = errorBarThumb{}
		}
		leg.Add(name, th)
	}
	return nil
}

// peakErrors feeds NewXErrorBars: a peak's interval on the x axis.
type peakErrors struct {
	plotter.XYs
	lo, hi float64
}

func (e peakErrors) XError(int) (float64, float64) { return e.lo, e.hi }

// lineThumb is a legend's sample of a line style in grey.
type lineThumb struct {
	col    color.Color
	width  vg.Length
	dashes []vg.Length
}

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(draw.LineStyle{Color: l.col, Width: l.width, Dashes: l.dashes}, c.Min.X, mid, c.Max.X, mid)
}

// peakThumb is the legend's sample of a peak mark: a ring on a horizontal
// bar.
type peakThumb struct{}

func (peakThumb) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	cx := (c.Min.X + c.Max.X) / 2
	st := draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(1.5)}
	c.StrokeLine2(st, c.Min.X+vg.Points(2), mid, c.Max.X-vg.Points(2), mid)
	c.DrawGlyph(draw.GlyphStyle{Color: color.Gray{Y: 0x55}, Radius: vg.Points(4), Shape: thickRing{}}, vg.Point{X: cx, Y: mid})
}

// hollowGlyph is a glyph drawn hollow: its shape in the colour, a smaller
// one in white inside (a system's filled mark, told apart).
type hollowGlyph struct{ shape draw.GlyphDrawer }

func (h hollowGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	h.shape.DrawGlyph(c, sty, pt)
	switch h.shape.(type) {
	case draw.CircleGlyph, draw.BoxGlyph, draw.PyramidGlyph:
		// The canvas sets a glyph's colour before drawing it, not the glyph.
		c.SetColor(color.White)
		h.shape.DrawGlyph(c, draw.GlyphStyle{Color: color.White, Radius: sty.Radius * 0.5, Shape: h.shape}, pt)
		c.SetColor(sty.Color)
	}
}

// thickRing is a ring glyph drawn with a line thick enough to see on the
// curve it sits on (draw.RingGlyph's is half a point).
type thickRing struct{}

func (thickRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// errorBarThumb is the legend's sample of a point's confidence interval.
type errorBarThumb struct{}

func (errorBarThumb) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	cx := (c.Min.X + c.Max.X) / 2
	st := draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(1)}
	c.StrokeLine2(st, cx, mid-vg.Points(5), cx, mid+vg.Points(5))
	c.StrokeLine2(st, cx-vg.Points(2.5), mid-vg.Points(5), cx+vg.Points(2.5), mid-vg.Points(5))
	c.StrokeLine2(st, cx-vg.Points(2.5), mid+vg.Points(5), cx+vg.Points(2.5), mid+vg.Points(5))
}

// scaleData is what the "scale" template renders: a scalability section
// and its chart's SVG.
type scaleData struct {
	View *ScaleView
	SVG  template.HTML
}

// Scaled is the "scale" template's data for v.
func (d htmlData) Scaled(v *ScaleView) scaleData {
	if v.Chart == nil {
		return scaleData{View: v}
	}
	return scaleData{View: v, SVG: d.SVG[v.Chart.ID]}
}

// scaleTemplate renders a scalability section of the HTML report (after its
// workload's or by-CPUs section): the heading, the chart and the fitted
// parameters (when a fit has a model), the readings, contrasts and reasons for no model, the marks'
// notes, and the means against the models folded away.
const scaleTemplate = `{{define "scale"}}{{$v := .View}}
<h2 id="{{$v.ID}}">{{wbr $v.Title}}</h2>
{{with $v.Chart}}<div class="charts"><figure class="chart" id="{{.ID}}">{{$.SVG}}{{if .Caption}}<figcaption class="note">{{.Caption}}</figcaption>{{end}}</figure></div>
{{end}}{{if $v.Params}}<p class="note">{{$v.ParamCaption}}.</p>
<table class="usl">
<thead><tr>{{range $v.ParamHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range $v.Params}}<tr>{{range .}}<td>{{intervalApart .}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{range $v.Readings}}<p class="reading">{{.}}</p>
{{end}}{{range $v.Contrasts}}<p class="contrast">{{.}}</p>
{{end}}{{range $v.Missing}}<p class="note nomodel">{{.}}</p>
{{end}}{{with $v.Notes}}<div class="legend">{{range .}}<p>{{.}}</p>{{end}}</div>
{{end}}{{if $v.Residuals}}<details class="residuals"><summary><strong>Measured against the model</strong> ({{len $v.Residuals}} counts)</summary>
<p class="note">Per count: {{$v.ResidualCaption}}.</p>
<table class="cmp usl-residuals">
<thead><tr>{{range $v.ResidualHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range $v.Residuals}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></details>
{{end}}{{end}}`

// intervalApart sets a table cell's interval ("0.014 [0.012–0.015]", as
// analysis.FormatParam and FormatEstimate print it) apart from its figure,
// in the muted style of the main table's intervals, so that a narrow column
// breaks between the two.
func intervalApart(s string) template.HTML {
	i := strings.Index(s, " [")
	if i < 0 {
		return template.HTML(template.HTMLEscapeString(s))
	}
	return template.HTML(template.HTMLEscapeString(s[:i]) + ` <span class="ci">` + template.HTMLEscapeString(s[i+1:]) + `</span>`)
}
