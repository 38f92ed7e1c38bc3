package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a chart.
type Series struct {
	Label string
	// Color picks the line's colour and marker, so that a system keeps its
	// colour in every chart (its position among the systems).
	Color int
	X, Y  []float64
}

// Chart is one figure of a report: lines over x (throughput vs threads,
// latency vs threads, a time series) or bars.
type Chart struct {
	// ID names the chart in the HTML and the PNG file ("tps-oltp_read_write").
	ID     string
	Title  string
	XLabel string
	YLabel string
	// Series are the lines; Bars are used instead when set.
	Series []Series
	Bars   []Bar
	// ThreadAxis puts x on a log₂ scale with the thread counts as ticks.
	ThreadAxis bool
	// Shade marks x ranges (a warm-up) with a grey band.
	Shade [][2]float64
	// Outages marks x ranges during which a charted run's server was away
	// or stalled (result.Outages) with a red band.
	Outages [][2]float64
}

// Bar is one bar of a bar chart.
type Bar struct {
	Label string
	Value float64
	// Color is the system's position among the systems (Series.Color).
	Color int
}

// Chart sizes.
const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 9 * vg.Centimeter
)

// plot builds the gonum plot of c.
func (c *Chart) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	if len(c.Bars) > 0 {
		return p, c.addBars(p)
	}
	maxY := 0.0
	for _, s := range c.Series {
		for _, y := range s.Y {
			maxY = math.Max(maxY, y)
		}
	}
	for _, r := range c.Shade {
		band, err := plotter.NewPolygon(plotter.XYs{{X: r[0], Y: 0}, {X: r[1], Y: 0}, {X: r[1], Y: maxY * 1.25}, {X: r[0], Y: maxY * 1.25}})
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.ID, err)
		}
		band.Color = color.Gray{Y: 225}
		band.LineStyle.Width = 0
		p.Add(band)
		p.Legend.Add("warm-up", band)
	}
	for i, r := range c.Outages {
		band, err := plotter.NewPolygon(plotter.XYs{{X: r[0], Y: 0}, {X: r[1], Y: 0}, {X: r[1], Y: maxY * 1.25}, {X: r[0], Y: maxY * 1.25}})
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.ID, err)
		}
		band.Color = color.RGBA{R: 250, G: 200, B: 200, A: 255}
		band.LineStyle.Width = 0
		p.Add(band)
		if i == 0 {
			p.Legend.Add("server away", band)
		}
	}
	var ticks plot.ConstantTicks
	seen := map[float64]bool{}
	for _, s := range c.Series {
		xys := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			x := s.X[j]
			if c.ThreadAxis {
				if !seen[x] {
					seen[x] = true
					ticks = append(ticks, plot.Tick{Value: math.Log2(x), Label: strconv.FormatFloat(x, 'f', -1, 64)})
				}
				x = math.Log2(x)
			}
			xys = append(xys, plotter.XY{X: x, Y: s.Y[j]})
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %s, series %s: %w", c.ID, s.Label, err)
		}
		line.Color, points.Color = plotutil.Color(s.Color), plotutil.Color(s.Color)
		line.Width = vg.Points(1.5)
		points.Shape = plotutil.Shape(s.Color)
		p.Add(line, points)
		p.Legend.Add(s.Label, line, points)
	}
	if c.ThreadAxis {
		p.X.Tick.Marker = ticks
	}
	// Head room above the lines keeps the legend off them.
	p.Y.Min, p.Y.Max = 0, maxY*1.25
	return p, nil
}

// addBars draws c.Bars as a bar chart with the labels under the bars.
func (c *Chart) addBars(p *plot.Plot) error {
	vals := make(plotter.Values, len(c.Bars))
	names := make([]string, len(c.Bars))
	for i, b := range c.Bars {
		vals[i], names[i] = b.Value, b.Label
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return fmt.Errorf("chart %s: %w", c.ID, err)
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalX(names...)
	p.Legend.Top = false
	return nil
}

// render writes the chart in format "svg" or "png".
func (c *Chart) render(format string) ([]byte, error) {
	p, err := c.plot()
	if err != nil {
		return nil, err
	}
	wt, err := p.WriterTo(chartWidth, chartHeight, format)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.ID, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.ID, err)
	}
	return b.Bytes(), nil
}

// SVG renders the chart as an SVG document.
func (c *Chart) SVG() ([]byte, error) { return c.render("svg") }

// PNG renders the chart as a PNG image.
func (c *Chart) PNG() ([]byte, error) { return c.render("png") }
