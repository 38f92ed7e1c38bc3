package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The PNGs are drawn at twice the SVG's pixels (the SVG's size at the web's
// 96 dpi), for high-density screens and posts.
func TestPNGIsTwiceTheSVG(t *testing.T) {
	c := seedReport(t).Sections[0].Charts[0]
	b, err := c.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	svgPx := chartWidth.Dots(96)
	if got := float64(img.Bounds().Dx()); math.Abs(got-2*svgPx) > 2 {
		t.Errorf("PNG %v px wide, want twice the SVG's %.0f px", got, svgPx)
	}
	if got, want := float64(img.Bounds().Dy()), 2*chartHeight.Dots(96); math.Abs(got-want) > 2 {
		t.Errorf("PNG %v px high, want %.0f", got, want)
	}
}

// Every chart of the HTML report is inline SVG in the Okabe–Ito colours of
// its systems (blue for the first, orange for the second) with a marker
// each; no chart uses a red/green pair.
func TestHTMLChartsUseThePalette(t *testing.T) {
	r := seedReport(t)
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	if n, want := strings.Count(page, "<svg"), 2*len(r.Charts()); n != want {
		t.Errorf("%d inline SVGs, want two per chart (%d): the desktop's and the phone's", n, want)
	}
	for _, col := range []string{"#0072B2", "#E69F00"} {
		if !strings.Contains(page, "fill:"+col) || !strings.Contains(page, "stroke:"+col) {
			t.Errorf("the charts do not draw in %s", col)
		}
	}
	// A red and a green of plotutil's old palette, and any saturated pair.
	fills := regexp.MustCompile(`(?:fill|stroke):#([0-9A-F]{6})`).FindAllStringSubmatch(page, -1)
	red, green := false, false
	for _, f := range fills {
		var r, g, b int
		for i, p := range []*int{&r, &g, &b} {
			v := f[1][2*i : 2*i+2]
			for _, ch := range v {
				*p = *p*16 + strings.IndexRune("0123456789ABCDEF", ch)
			}
		}
		red = red || (r > 180 && g < 110 && b < 110)
		green = green || (g > 150 && r < 140 && b < 140)
	}
	if red && green {
		t.Errorf("the charts use a red and a green")
	}
	if !strings.Contains(page, `id="headline"`) || strings.Index(page, `id="headline"`) > strings.Index(page, `id="differences"`) {
		t.Errorf("the headline does not open the report before what differs")
	}
}

// The legend is drawn beside the data, not over it: the systems' colours
// appear in the column right of the plot's axis, above the legend's last
// entry, and nowhere else there.
func TestLegendBesideTheData(t *testing.T) {
	c := seedReport(t).Sections[0].Charts[0]
	b, err := c.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// The legend's column: the right 14 % of the image.
	bounds := img.Bounds()
	col := image.Rect(bounds.Max.X*86/100, 0, bounds.Max.X, bounds.Max.Y)
	seen := map[int]bool{}
	for i := range 2 {
		want := SystemColor(i)
		for y := col.Min.Y; y < col.Max.Y && !seen[i]; y++ {
			for x := col.Min.X; x < col.Max.X; x++ {
				if near(img.At(x, y), want) {
					seen[i] = true
					break
				}
			}
		}
	}
	if !seen[0] || !seen[1] {
		t.Errorf("the legend column right of the data lacks a system's colour: %v", seen)
	}
}

func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) int { return int(a>>8) - int(w) }
	return abs(d(r, want.R)) < 8 && abs(d(g, want.G)) < 8 && abs(d(b, want.B)) < 8
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestFormatUnits(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0"}, {850, "850"}, {8000, "8000"}, {12500, "12.5k"}, {250000, "250k"}, {1.5e6, "1.5M"}, {0.0075, "0.0075"}, {-0.0, "0"}, {0.25, "0.25"}} {
		if got := FormatUnits(tc.v); got != tc.want {
			t.Errorf("FormatUnits(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	// An axis labels every tick in one unit: no "8000" beside "10k", and
	// no two ticks alike.
	ticks := unitTicks{}.Ticks(0, 10000)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0 2k 4k 6k 8k 10k" {
		t.Errorf("ticks of 0–10000: %s", got)
	}
}

// The series chart leaves out the fixture's trailing partial interval
// (0.4 s of a 1 s tick) instead of charting its rate as a plunge.
func TestTimeSeriesDropsAPartialInterval(t *testing.T) {
	for _, c := range seedReport(t).Sections[0].Charts {
		if !strings.HasSuffix(c.ID, "-series") {
			continue
		}
		for _, s := range c.Series {
			if last := s.X[len(s.X)-1]; last != 12 {
				t.Errorf("%s: last point at %vs, want 12 (the partial interval to 12.4 s left out)", s.Label, last)
			}
		}
		return
	}
	t.Fatal("no series chart")
}

// The chart of bar groups has a group per test case at the largest thread
// count both ran, a bar per system with its colour and confidence interval,
// each as a percentage of the baseline's figure: seed 000's 256-thread
// figures, ARM 209,797 against x86's 224,009 qps (point select) and 5,676
// against 8,562 tps (read-write).
func TestOverviewChart(t *testing.T) {
	o := seedReport(t).Overview
	if o == nil || len(o.Groups) != 2 || o.Title != "tps by test case at 256 threads, % of x86" || !o.Relative {
		t.Fatalf("overview %+v", o)
	}
	want := map[string]float64{"oltp_point_select": 100 * 209797.0 / 224009, "oltp_read_write": 100 * 5676.0 / 8562}
	for _, g := range o.Groups {
		if len(g.Bars) != 2 || g.Bars[0].Color != 0 || g.Bars[1].Color != 1 || !(g.Bars[0].Lo < g.Bars[0].Value && g.Bars[0].Value < g.Bars[0].Hi) {
			t.Errorf("group %s: bars %+v", g.Label, g.Bars)
			continue
		}
		if arm, x86 := g.Bars[0].Value, g.Bars[1].Value; math.Abs(arm-want[g.Label]) > 0.01 || math.Abs(x86-100) > 1e-9 {
			t.Errorf("group %s: ARM %.2f %%, x86 %.2f %% of x86; want %.2f and 100", g.Label, arm, x86, want[g.Label])
		}
	}
}

func TestPctHasNoNegativeZero(t *testing.T) {
	for v, want := range map[float64]string{-0.3: "0%", 0.4: "0%", -6.2: "-6%", 12.6: "+13%", math.NaN(): "-"} {
		if got := pct(v); got != want {
			t.Errorf("pct(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestAxisLabelsFit: a y-axis label longer than the plot is high is made to
// fit it (smaller, then on several lines, never below 9 pt), and bar-group
// labels wider than the room between groups are slanted onto one line each,
// while short ones stay upright on their two lines — at the desktop's size
// and the phone's.
func TestAxisLabelsFit(t *testing.T) {
	long := "amd64 AMD EPYC 7B13 64-Core Processor ×2 MariaDB 10.11"
	for _, tt := range []struct {
		name    string
		groups  int
		label   string
		slanted bool
	}{
		{"two short groups", 2, "oltp_read_only · 2 CPUs", false},
		{"many long groups", 8, "oltp_point_select · 4 CPUs, with SMT siblings", true},
	} {
		for _, size := range []struct {
			name string
			w, h vg.Length
		}{{"desktop", chartWidth, chartHeight}, {"phone", narrowWidth, narrowHeight}} {
			t.Run(tt.name+" "+size.name, func(t *testing.T) {
				c := &Chart{ID: "t", Title: "tps by test case", YLabel: "% of " + long + "'s tps", Relative: true}
				for i := range tt.groups {
					c.Groups = append(c.Groups, BarGroup{Label: tt.label, Bars: []Bar{{Label: "a", Value: 100 + float64(i)}, {Label: "b", Value: 90, Color: 1}}})
				}
				p, _, err := c.plot()
				if err != nil {
					t.Fatal(err)
				}
				dc := draw.New(vgimg.New(size.w, size.h))
				fitAxes(p, dc, len(c.Groups))
				st := p.Y.Label.TextStyle
				if got, room := st.Rectangle(p.Y.Label.Text).Size().X, p.DataCanvas(dc).Size().Y; got > room {
					t.Errorf("y label %q is %v long, the plot %v high", p.Y.Label.Text, got, room)
				}
				if st.Font.Size < vg.Points(9) || !strings.Contains(p.Y.Label.Text, "\n") {
					t.Errorf("y label %q at %v: want it on several lines at 9 pt or more", p.Y.Label.Text, st.Font.Size)
				}
				if strings.Join(strings.Fields(p.Y.Label.Text), " ") != "% of "+long+"'s tps" {
					t.Errorf("y label %q lost words", p.Y.Label.Text)
				}
				ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
				if slanted := p.X.Tick.Label.Rotation != 0; slanted != tt.slanted {
					t.Errorf("tick labels slanted %v, want %v", slanted, tt.slanted)
				}
				want := strings.ReplaceAll(tt.label, groupLabelSep, "\n")
				if tt.slanted {
					want = tt.label
				}
				if len(ticks) != tt.groups || ticks[0].Label != want {
					t.Errorf("ticks %+v, want %d labelled %q", ticks, tt.groups, want)
				}
			})
		}
	}
}
