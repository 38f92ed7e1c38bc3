package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fairbench/fairbench/internal/analysis"

	"github.com/fairbench/fairbench/internal/workload"
)

// Series is one line of a chart.
type Series struct {
	Label string
	// Color picks the line's colour and marker, so that a system keeps its
	// colour in every chart (its position among the systems).
	Color int
	// Dashes draws the line dashed (a second latency percentile of the same
	// system); 0 is solid.
	Dashes int
	X, Y   []float64
	// Lo and Hi, when set, are each point's confidence interval: drawn as
	// a band and error bars. NaN where a point has none (a single round).
	Lo, Hi []float64
}

// idealLegend is the legend's entry for a chart's Ideal lines.
const idealLegend = "ideal linear"

// Chart is one figure of a report: lines over x (throughput vs threads,
// latency vs threads, a time series) or bars.
type Chart struct {
	// ID names the chart in the HTML and the PNG file ("tps-oltp_read_write").
	ID     string
	Title  string
	XLabel string
	YLabel string
	// Series are the lines; Bars (one bar per category) or Groups (a group
	// of bars per category) are used instead when set.
	Series []Series
	// Ideal are reference lines beside the series (ideal linear scaling):
	// thin, dotted, in their series' colour, straight between their points
	// on the axis' scale, without markers; the legend has one entry for
	// them all. They lift the y axis at most as far as an interval does
	// (wideCI), and are cut at its top beyond that.
	Ideal  []Series
	Bars   []Bar
	Groups []BarGroup
	// ThreadAxis puts x on a log₂ scale with the thread counts as ticks.
	ThreadAxis bool
	// Shade marks x ranges (a warm-up) with a grey band.
	Shade [][2]float64
	// Outages marks x ranges during which a charted run's server was away
	// (result.Outages: threads without a connection) with a dark band.
	Outages [][2]float64
	// Stalls marks x ranges during which a charted run's server answered
	// nothing (result.Outages marked stall) with a red band.
	Stalls [][2]float64
	// Relative says the bars are percentages of the baseline's figure: they
	// are labelled in % and a dashed line marks 100.
	Relative bool
	// Caption says how to read the chart, under it; "" for none.
	Caption string
	// USL, when set, makes the chart a scalability chart (uslchart.go): the
	// series are points with their intervals and the fitted models are
	// drawn over them.
	USL *USLLayer
}

// Bar is one bar of a bar chart.
type Bar struct {
	Label string
	Value float64
	// Color is the system's position among the systems (Series.Color).
	Color int
	// Lo and Hi are the bar's confidence interval (0, 0 or NaN: none).
	Lo, Hi float64
}

// BarGroup is one category of a grouped bar chart: a bar per system.
type BarGroup struct {
	Label string
	Bars  []Bar
}

// Chart sizes: the SVG's size, and the PNG's in points (drawn at PNGDPI, it
// is twice the SVG's pixels at the web's 96 dpi, for high-density screens
// and blog posts).
const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 9 * vg.Centimeter
	// PNGDPI is the resolution of the PNGs: 2× the 96 dpi of CSS pixels.
	PNGDPI = 192
	// The narrow layout's size (NarrowSVG): about a phone's width in CSS
	// pixels (290 pt ≈ 387 px), so that its text keeps its size there.
	narrowWidth  = 290 * vg.Inch / 72
	narrowHeight = 300 * vg.Inch / 72
)

// The Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"): its
// colours stay apart for the common colour-vision deficiencies. Systems take
// them in this order: blue and orange first (no red/green pair).
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	{0x00, 0x00, 0x00, 0xFF}, // black
}

// SystemColor is the colour of the system at position i among the systems,
// the same in every chart.
func SystemColor(i int) color.RGBA { return palette[i%len(palette)] }

// SystemGlyph is the marker shape of the system at position i: a second cue
// besides the colour, for print in grey and for readers who cannot tell the
// colours apart.
func SystemGlyph(i int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}}
	return shapes[i%len(shapes)]
}

// chartFont is the charts' typeface: a sans serif like the page's.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle is the charts' text of size pt.
func textStyle(pt float64) text.Style {
	return restyle(text.Style{Handler: plot.DefaultTextHandler}, pt)
}

// restyle gives a text style the charts' typeface, size pt and colour,
// keeping its alignment and rotation.
func restyle(st text.Style, pt float64) text.Style {
	st.Color = color.Gray{Y: 0x33}
	st.Font = font.From(chartFont, font.Length(pt))
	if st.Handler == nil {
		st.Handler = plot.DefaultTextHandler
	}
	return st
}

// StylePlot gives a plot the report's look: sans-serif text, a bold title
// with room above it, grey axes and y tick labels in one unit (k or M)
// each. Every chart of the report goes through it.
func StylePlot(p *plot.Plot) {
	p.Title.TextStyle = restyle(p.Title.TextStyle, 11)
	p.Title.TextStyle.Font.Weight = xfont.WeightBold
	p.Title.Padding = vg.Points(10)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = restyle(a.Label.TextStyle, 9.5)
		a.Tick.Label = restyle(a.Tick.Label, 9)
		a.LineStyle.Color = color.Gray{Y: 0x88}
		a.Tick.LineStyle.Color = color.Gray{Y: 0x88}
	}
	p.Y.Tick.Marker = unitTicks{}
	p.X.Padding, p.Y.Padding = vg.Points(4), 0
}

// newLegend is a legend in the charts' style, drawn beside the data.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(18)
	l.Padding = vg.Points(3)
	return l
}

// unitTicks marks an axis at round steps, one label per tick, with k and M
// units: 0, 50k, 100k, 1.5M; small figures with only the decimals they need.
type unitTicks struct{}

// Ticks returns about five labelled ticks between min and max, all in the
// unit of the largest (0, 2k, 4k … 10k rather than 8000 beside 10k).
func (unitTicks) Ticks(min, max float64) []plot.Tick {
	step := niceStep((max - min) / 5)
	if step <= 0 || math.IsNaN(step) || math.IsInf(step, 0) {
		return []plot.Tick{{Value: min, Label: FormatUnits(min)}}
	}
	scale := unitScale(math.Max(math.Abs(min), math.Abs(max)))
	var out []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, plot.Tick{Value: v, Label: formatIn(v, scale)})
	}
	return out
}

// niceStep rounds a step up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 0
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

// FormatUnits prints an axis or bar figure with k and M units and no
// needless decimals: 0, 850, 12.5k, 1.5M, 0.25.
func FormatUnits(v float64) string { return formatIn(v, unitScale(math.Abs(v))) }

// unitScale is the unit of figures up to a: M from a million, k from ten
// thousand, none below.
func unitScale(a float64) float64 {
	switch {
	case a >= 1e6:
		return 1e6
	case a >= 1e4:
		return 1e3
	}
	return 1
}

// formatIn prints v in the unit scale (1, 1e3: k, 1e6: M).
func formatIn(v, scale float64) string {
	if v == 0 {
		return "0"
	}
	unit := map[float64]string{1: "", 1e3: "k", 1e6: "M"}[scale]
	v /= scale
	a := math.Abs(v)
	s := strconv.FormatFloat(v, 'f', -1, 64)
	switch {
	case a >= 100 || (unit == "" && a >= 10):
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case len(s) > 5:
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if s == "-0" {
		s = "0"
	}
	return s + unit
}

// withAlpha is c with opacity a (0–255), premultiplied as image/color wants.
func withAlpha(c color.RGBA, a uint8) color.NRGBA { return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a} }

// plot builds the gonum plot of c and its legend (drawn beside the plot).
func (c *Chart) plot() (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	StylePlot(p)
	leg := newLegend()
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{Y: 0xE4}, color.Gray{Y: 0xE4}
	grid.Vertical.Dashes, grid.Horizontal.Dashes = nil, nil
	p.Add(grid)
	if len(c.Bars) > 0 || len(c.Groups) > 0 {
		grid.Vertical.Width = 0
		return p, leg, c.addBars(p, &leg)
	}
	if c.USL != nil {
		return p, leg, c.addUSL(p, &leg)
	}
	top := niceTop(c.yRange())
	bands := []struct {
		spans [][2]float64
		col   color.Color
		label string
	}{{c.Shade, color.Gray{Y: 0xEC}, "warm-up"}, {c.Outages, color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0x50}, "server away"},
		{c.Stalls, color.NRGBA{R: 0xC0, G: 0x00, B: 0x00, A: 0x38}, "stall"}}
	for _, b := range bands {
		for i, r := range b.spans {
			band, err := plotter.NewPolygon(plotter.XYs{{X: r[0], Y: 0}, {X: r[1], Y: 0}, {X: r[1], Y: top}, {X: r[0], Y: top}})
			if err != nil {
				return nil, leg, fmt.Errorf("chart %s: %w", c.ID, err)
			}
			band.Color = b.col
			band.LineStyle.Width = 0
			p.Add(band)
			if i == 0 {
				leg.Add(b.label, band)
			}
		}
	}
	var ticks plot.ConstantTicks
	seen := map[float64]bool{}
	xOf := func(x float64) float64 {
		if !c.ThreadAxis {
			return x
		}
		if !seen[x] {
			seen[x] = true
			ticks = append(ticks, plot.Tick{Value: math.Log2(x), Label: strconv.FormatFloat(x, 'f', -1, 64)})
		}
		return math.Log2(x)
	}
	for _, s := range c.Ideal {
		line, err := plotter.NewLine(c.idealXYs(s))
		if err != nil {
			return nil, leg, fmt.Errorf("chart %s, %s: %w", c.ID, s.Label, err)
		}
		line.Color, line.Width, line.Dashes = SystemColor(s.Color), vg.Points(1.2), idealDashes
		p.Add(line)
	}
	for _, s := range c.Series {
		col := SystemColor(s.Color)
		xys, errs, lo, hi := s.points(xOf, top)
		if len(errs) > 1 {
			// The band of the confidence intervals, under the line.
			poly := make(plotter.XYs, 0, 2*len(errs))
			for j, e := range errs {
				poly = append(poly, plotter.XY{X: e.X, Y: e.Y + hi[j]})
			}
			for j := len(errs) - 1; j >= 0; j-- {
				poly = append(poly, plotter.XY{X: errs[j].X, Y: errs[j].Y - lo[j]})
			}
			band, err := plotter.NewPolygon(poly)
			if err != nil {
				return nil, leg, fmt.Errorf("chart %s, series %s: %w", c.ID, s.Label, err)
			}
			band.Color, band.LineStyle.Width = withAlpha(col, 0x38), 0
			p.Add(band)
		}
		if err := addErrorBars(p, errs, lo, hi, col); err != nil {
			return nil, leg, fmt.Errorf("chart %s, series %s: %w", c.ID, s.Label, err)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, leg, fmt.Errorf("chart %s, series %s: %w", c.ID, s.Label, err)
		}
		line.Color, points.Color = col, col
		line.Width = vg.Points(2)
		if s.Dashes > 0 {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Shape, points.Radius = SystemGlyph(s.Color), vg.Points(3)
		if len(c.Series[0].X) > 40 {
			points.Radius = 0 // a time series: the line alone
		}
		p.Add(line, points)
		leg.Add(s.Label, line, points)
	}
	if c.ThreadAxis {
		p.X.Tick.Marker = ticks
	}
	p.Y.Min, p.Y.Max = 0, top
	if len(c.Series) > 0 && len(c.Series[0].Lo) > 0 {
		leg.Add("95% CI", ciThumb{})
	}
	if len(c.Ideal) > 0 {
		leg.Add(idealLegend, idealThumb{})
	}
	return p, leg, nil
}

// idealDashes is the dotted pattern of an Ideal line.
var idealDashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}

// idealXYs are the points of an Ideal line on the chart's x scale: on a
// thread axis (log₂) a line straight in the data's units is drawn through
// points between its own, so that it stays the line it is.
func (c *Chart) idealXYs(s Series) plotter.XYs {
	var xys plotter.XYs
	for j := range s.X {
		if !c.ThreadAxis {
			xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j]})
			continue
		}
		xys = append(xys, plotter.XY{X: math.Log2(s.X[j]), Y: s.Y[j]})
		if j+1 == len(s.X) {
			break
		}
		const steps = 16
		for k := 1; k < steps; k++ {
			u := math.Log2(s.X[j]) + (math.Log2(s.X[j+1])-math.Log2(s.X[j]))*float64(k)/steps
			x := math.Exp2(u)
			xys = append(xys, plotter.XY{X: u, Y: s.Y[j] + (s.Y[j+1]-s.Y[j])*(x-s.X[j])/(s.X[j+1]-s.X[j])})
		}
	}
	return xys
}

// idealThumb is the legend's sample of the Ideal lines: a grey dotted line.
type idealThumb struct{}

func (idealThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	mid := (r.Min.Y + r.Max.Y) / 2
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(1.2), Dashes: idealDashes}, r.Min.X, mid, r.Max.X, mid)
}

// wideCI is how far above the highest figure an interval may lift a chart's
// y axis: an interval wider than that (a vague figure of two noisy rounds)
// is cut at the axis' top rather than flatten every line to the bottom.
const wideCI = 2.0

// yRange is the largest y a line chart shows: its highest figure, or the
// highest top of an interval or Ideal line up to wideCI times that.
func (c *Chart) yRange() float64 {
	maxY, maxHi := 0.0, 0.0
	for _, s := range c.Series {
		for j, y := range s.Y {
			maxY = math.Max(maxY, y)
			if j < len(s.Hi) && !math.IsNaN(s.Hi[j]) {
				maxHi = math.Max(maxHi, s.Hi[j])
			}
		}
	}
	for _, s := range c.Ideal {
		for _, y := range s.Y {
			maxHi = math.Max(maxHi, y)
		}
	}
	return math.Max(maxY, math.Min(maxHi, wideCI*maxY))
}

// intervalCaption says how to read the error bars of a line chart: their
// level and scale, that one is cut at the top of the axis when one is, and
// that a point without one has no interval (a single round); "" for a chart
// without intervals or points that lack one.
func (c *Chart) intervalCaption() string {
	some, none, cut := false, false, false
	top := c.yRange()
	for _, s := range c.Series {
		for j := range s.Y {
			if j < len(s.Lo) && !math.IsNaN(s.Lo[j]) {
				some = true
				cut = cut || s.Hi[j] > top
			} else {
				none = true
			}
		}
	}
	var parts []string
	what := "Bands and error bars"
	if c.USL != nil {
		what = "Error bars" // a scalability chart's points have no band
	}
	if some {
		parts = append(parts, fmt.Sprintf("%s: %g %% confidence intervals of the mean, on the log scale (never below zero).", what, analysis.Confidence*100))
	}
	if cut {
		parts = append(parts, fmt.Sprintf("An error bar cut at the top of the axis reaches beyond %g× the highest figure: that figure tells next to nothing.", wideCI))
	}
	if none {
		parts = append(parts, "A point without an error bar has no interval: it rests on one round.")
	}
	return strings.Join(parts, " ")
}

// niceTop is the top of a y axis that holds max with a little room: a
// multiple of its tick step.
func niceTop(max float64) float64 {
	if max <= 0 {
		return 1
	}
	step := niceStep(max * 1.05 / 5)
	return math.Ceil(max*1.05/step) * step
}

// ciErrors feeds NewYErrorBars.
type ciErrors struct {
	plotter.XYs
	lo, hi []float64
}

func (e ciErrors) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// ciThumb is the legend's sample of a confidence band.
type ciThumb struct{}

func (ciThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	mid := (r.Min.Y + r.Max.Y) / 2
	c.SetColor(color.Gray{Y: 0xC8})
	c.Fill(vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: mid - vg.Points(4)}, Max: vg.Point{X: r.Max.X, Y: mid + vg.Points(4)}}.Path())
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0x66}, Width: vg.Points(1)}, (r.Min.X+r.Max.X)/2, mid-vg.Points(5), (r.Min.X+r.Max.X)/2, mid+vg.Points(5))
}

// groups are the bar groups of a bar chart: Groups, or a group of each of
// Bars; none for a line chart.
func (c *Chart) groups() []BarGroup {
	if len(c.Groups) > 0 {
		return c.Groups
	}
	var groups []BarGroup
	for _, b := range c.Bars {
		groups = append(groups, BarGroup{Label: b.Label, Bars: []Bar{b}})
	}
	return groups
}

// addBars draws c's bars: a group per category, a bar per system in the
// system's colour, each with its value above it (and its confidence interval
// as an error bar when it has one), the axis starting at 0 with room around
// the bars.
func (c *Chart) addBars(p *plot.Plot, leg *plot.Legend) error {
	groups := c.groups()
	maxY, maxHi, most := 0.0, 0.0, 1
	for _, g := range groups {
		most = max(most, len(g.Bars))
		for _, b := range g.Bars {
			maxY = math.Max(maxY, b.Value)
			if !math.IsNaN(b.Hi) {
				maxHi = math.Max(maxHi, b.Hi)
			}
		}
	}
	top := niceTop(math.Max(maxY, math.Min(maxHi, wideCI*maxY)) * 1.08) // room for the value labels
	width := 0.8 / float64(most)
	p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
	if c.Relative {
		// The baseline's 100 %, under the bars and their labels.
		ref, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: 100}, {X: p.X.Max, Y: 100}})
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.ID, err)
		}
		ref.Color, ref.Width, ref.Dashes = color.Gray{Y: 0x55}, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ref)
	}
	var ticks plot.ConstantTicks
	legended := map[int]bool{}
	for gi, g := range groups {
		ticks = append(ticks, plot.Tick{Value: float64(gi), Label: strings.ReplaceAll(g.Label, groupLabelSep, "\n")})
		for bi, b := range g.Bars {
			x := float64(gi) + (float64(bi)-float64(len(g.Bars)-1)/2)*width
			col := SystemColor(b.Color)
			rect, err := plotter.NewPolygon(plotter.XYs{{X: x - width*0.45, Y: 0}, {X: x + width*0.45, Y: 0}, {X: x + width*0.45, Y: b.Value}, {X: x - width*0.45, Y: b.Value}})
			if err != nil {
				return fmt.Errorf("chart %s: %w", c.ID, err)
			}
			rect.Color, rect.LineStyle.Width = col, 0
			p.Add(rect)
			labelY := b.Value
			if b.Hi > b.Lo && !math.IsNaN(b.Lo) {
				hi := math.Min(b.Hi, top/1.08)
				eb, err := plotter.NewYErrorBars(ciErrors{plotter.XYs{{X: x, Y: b.Value}}, []float64{b.Value - b.Lo}, []float64{hi - b.Value}})
				if err != nil {
					return fmt.Errorf("chart %s: %w", c.ID, err)
				}
				eb.Color, eb.Width, eb.CapWidth = color.Gray{Y: 0x33}, vg.Points(1), vg.Points(5)
				p.Add(eb)
				labelY = hi
			}
			text := barLabel(b.Value)
			if c.Relative {
				text = strconv.FormatFloat(b.Value, 'f', 0, 64) + "%"
			}
			lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: labelY}}, Labels: []string{text}})
			if err != nil {
				return fmt.Errorf("chart %s: %w", c.ID, err)
			}
			sty := textStyle(8.5)
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
			lab.TextStyle[0] = sty
			lab.Offset = vg.Point{Y: vg.Points(2)}
			p.Add(lab)
			if len(c.Groups) > 0 && !legended[b.Color] {
				legended[b.Color] = true
				leg.Add(b.Label, rect)
			}
		}
	}
	p.X.Tick.Marker = ticks
	p.X.Tick.LineStyle.Width = 0
	p.Y.Min, p.Y.Max = 0, top
	return nil
}

// barLabel is a bar's figure as its label: whole and with thousands
// separators from 1,000 (a cost of 2,117 USD, not 2.12k), else three
// significant digits (2.36).
func barLabel(v float64) string {
	if math.Abs(v) >= 1000 {
		return workload.GroupDigits(int64(math.Round(v)))
	}
	if v == 0 || math.IsNaN(v) {
		return FormatUnits(v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// render writes the chart in format "svg" or "png": the plot, and its
// legend outside the data — in a column to the right of it, or, in the
// narrow layout for phones, in rows under it.
func (c *Chart) render(format string, narrow bool) ([]byte, error) {
	p, leg, err := c.plot()
	if err != nil {
		return nil, err
	}
	w, h := chartWidth, chartHeight
	if narrow {
		w, h = narrowWidth, narrowHeight
	}
	var canvas vg.CanvasWriterTo
	switch format {
	case "svg":
		canvas = vgsvg.New(w, h)
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}
	default:
		return nil, fmt.Errorf("chart %s: unknown format %q", c.ID, format)
	}
	dc := draw.New(canvas)
	// A white page, and a margin all round: nothing touches the edges.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	margin := vg.Points(8)
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	names := legendNames(c)
	switch {
	case len(names) == 0:
		fitTitle(p, dc.Size().X)
		fitAxes(p, dc, len(c.groups()))
		p.Draw(dc)
	case narrow:
		// The legend's rows under the plot, the x axis' label above them.
		row := leg.TextStyle.Rectangle("M").Size().Y + leg.Padding
		legH := vg.Length(len(names)) * row
		plotArea := draw.Crop(dc, 0, 0, legH+vg.Points(8), 0)
		legArea := draw.Crop(dc, 0, 0, 0, -(dc.Size().Y - legH))
		fitTitle(p, plotArea.Size().X)
		fitAxes(p, plotArea, len(c.groups()))
		p.Draw(plotArea)
		leg.Draw(legArea)
	default:
		lw := legendWidth(leg, names)
		plotArea := draw.Crop(dc, 0, -(lw + vg.Points(10)), 0, 0)
		fitTitle(p, plotArea.Size().X)
		fitAxes(p, plotArea, len(c.groups()))
		legArea := draw.Crop(dc, plotArea.Max.X-dc.Min.X+vg.Points(10), 0, 0, -(p.Title.TextStyle.Rectangle("M").Size().Y + p.Title.Padding + vg.Points(6)))
		p.Draw(plotArea)
		leg.Draw(legArea)
	}
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.ID, err)
	}
	return b.Bytes(), nil
}

// fitTitle makes the title fit width (fitText, down to 9 pt).
func fitTitle(p *plot.Plot, width vg.Length) {
	fitText(&p.Title.TextStyle, &p.Title.Text, width, vg.Points(9))
}

// fitText makes a text fit a length: a smaller size first (down to least),
// then two lines broken after its first ": ", ", " or before " (", or, when
// those do not fit either, as many lines as it takes broken at spaces.
func fitText(st *text.Style, txt *string, length, least vg.Length) {
	fits := func(s string) bool { return st.Rectangle(s).Size().X <= length }
	for !fits(*txt) && st.Font.Size > least {
		st.Font.Size -= vg.Points(0.5)
	}
	if fits(*txt) {
		return
	}
	for _, sep := range []string{": ", ", ", " ("} {
		if i := strings.Index(*txt, sep); i > 0 {
			first, rest := (*txt)[:i+len(strings.TrimSpace(sep))], (*txt)[i+len(sep):]
			if sep == " (" {
				first, rest = (*txt)[:i], (*txt)[i+1:]
			}
			if fits(first + "\n" + rest) {
				*txt = first + "\n" + rest
				return
			}
			break
		}
	}
	var lines []string
	for _, w := range strings.Fields(*txt) {
		if n := len(lines); n > 0 && fits(lines[n-1]+" "+w) {
			lines[n-1] += " " + w
		} else {
			lines = append(lines, w)
		}
	}
	*txt = strings.Join(lines, "\n")
}

// fitAxes makes the y axis' label fit the height of the plot's data area
// (fitText, down to 9 pt: its text, drawn upright, is measured unrotated),
// and slants the x axis' tick labels of a bar chart (on one line each) when
// the widest of them is wider than the room between two groups, so that
// neither is cut nor overlaps its neighbour; c is the plot's area.
func fitAxes(p *plot.Plot, c draw.Canvas, groups int) {
	if p.Y.Label.Text != "" {
		fitText(&p.Y.Label.TextStyle, &p.Y.Label.Text, p.DataCanvas(c).Size().Y, vg.Points(9))
	}
	if groups == 0 {
		return
	}
	ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	widest := vg.Length(0)
	for _, t := range ticks {
		widest = max(widest, p.X.Tick.Label.Width(t.Label))
	}
	room := p.DataCanvas(c).Size().X / vg.Length(p.X.Max-p.X.Min)
	if widest > room*0.95 {
		// Slanted, a label's lines are one again: its neighbours are
		// further off along it.
		for i := range ticks {
			ticks[i].Label = strings.ReplaceAll(ticks[i].Label, "\n", groupLabelSep)
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
	}
}

// legendNames are the entries of c's legend (each system or line, the
// shaded bands, the confidence band); none for a chart without a legend.
func legendNames(c *Chart) []string {
	if c.USL != nil {
		return c.uslLegendNames()
	}
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Label)
	}
	for _, g := range c.Groups {
		for _, b := range g.Bars {
			if !slices.Contains(names, b.Label) {
				names = append(names, b.Label)
			}
		}
	}
	if len(c.Shade) > 0 {
		names = append(names, "warm-up")
	}
	if len(c.Outages) > 0 {
		names = append(names, "server away")
	}
	if len(c.Stalls) > 0 {
		names = append(names, "stall")
	}
	if len(c.Series) > 0 && len(c.Series[0].Lo) > 0 {
		names = append(names, "95% CI")
	}
	if len(c.Ideal) > 0 {
		names = append(names, idealLegend)
	}
	return names
}

// legendWidth is the width of the legend's column: its widest entry and
// thumbnail.
func legendWidth(l plot.Legend, names []string) vg.Length {
	w := vg.Length(0)
	for _, n := range names {
		w = max(w, l.TextStyle.Rectangle(n).Size().X)
	}
	return w + l.ThumbnailWidth + l.TextStyle.Rectangle(" ").Size().X + vg.Points(4)
}

// SVG renders the chart as an SVG document.
func (c *Chart) SVG() ([]byte, error) { return c.render("svg", false) }

// NarrowSVG renders the chart as an SVG document laid out for phones: a
// narrower drawing with the legend under the plot, so that its text is as
// large on a phone's screen as the SVG's is on a desktop's.
func (c *Chart) NarrowSVG() ([]byte, error) { return c.render("svg", true) }

// PNG renders the chart as a PNG image at PNGDPI (twice the SVG's pixels).
func (c *Chart) PNG() ([]byte, error) { return c.render("png", false) }

// points are series s's points at x positions xOf(x), and those with an
// interval (errs) with their extents below (lo) and above (hi), the upper
// ones cut at top.
func (s Series) points(xOf func(float64) float64, top float64) (xys, errs plotter.XYs, lo, hi []float64) {
	xys = make(plotter.XYs, 0, len(s.X))
	for j := range s.X {
		x := xOf(s.X[j])
		xys = append(xys, plotter.XY{X: x, Y: s.Y[j]})
		if j < len(s.Lo) && !math.IsNaN(s.Lo[j]) && !math.IsNaN(s.Hi[j]) {
			errs = append(errs, plotter.XY{X: x, Y: s.Y[j]})
			lo, hi = append(lo, s.Y[j]-s.Lo[j]), append(hi, math.Min(s.Hi[j], top)-s.Y[j])
		}
	}
	return xys, errs, lo, hi
}

// addErrorBars draws the intervals of points errs (extents lo, hi) in col;
// nothing without any.
func addErrorBars(p *plot.Plot, errs plotter.XYs, lo, hi []float64, col color.Color) error {
	if len(errs) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(ciErrors{errs, lo, hi})
	if err != nil {
		return err
	}
	eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1), vg.Points(5)
	p.Add(eb)
	return nil
}
