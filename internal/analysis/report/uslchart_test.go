package report

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/usl"
)

// svgPath is a <path> of an SVG: its points and its attributes.
var svgPath = regexp.MustCompile(`<path d="([^"]*)"([^>]*)>`)

// longPaths counts the SVG's paths of more than long points (a model's
// curve or ideal line: nothing else of a chart has as many), solid and
// dashed, and the most points of a path.
func longPaths(svg []byte, long int) (solid, dashed, most int) {
	for _, m := range svgPath.FindAllSubmatch(svg, -1) {
		n := bytes.Count(m[1], []byte("L")) + 1
		most = max(most, n)
		switch {
		case n <= long:
		case bytes.Contains(m[2], []byte("stroke-dasharray")):
			dashed++
		default:
			solid++
		}
	}
	return solid, dashed, most
}

// scaleSections cuts the scalability sections out of an HTML report, each
// chart's SVG drawings replaced by "[chart]" (the charts are tested apart).
func scaleSections(page string) string {
	svg := regexp.MustCompile(`(?s)<svg.*?</svg>`)
	var b strings.Builder
	for {
		i := strings.Index(page, `<h2 id="scalability-`)
		if i < 0 {
			return b.String()
		}
		page = page[i:]
		end := strings.Index(page[1:], "<h2")
		if end < 0 {
			end = len(page) - 1
		}
		b.WriteString(svg.ReplaceAllString(page[:end+1], "[chart]"))
		page = page[end+1:]
	}
}

// TestScalabilitySectionOfAThreadSweep: the seed fixture's thread sweeps
// (9 counts × 4 rounds) get a scalability section right after their
// workload's: the heading, a chart whose series are each system's means
// with their intervals and whose models are drawn as curves of many points
// with the peak labelled, the fitted parameters (compare's columns and
// formatting), the readings and the contrast, and the means against the
// models; golden: testdata/seed000.scaling.html.golden.
func TestScalabilitySectionOfAThreadSweep(t *testing.T) {
	r := seedReport(t)
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for i, sec := range r.Sections {
		v := sec.Scale
		if v == nil {
			t.Fatalf("section %s has no scalability section", sec.Title)
		}
		if want := analysis.ScaleSectionTitle(v.ScaleSection); v.Title != want {
			t.Errorf("section %d: title %q, want %q", i, v.Title, want)
		}
		if !slices.Contains(r.Charts(), v.Chart) {
			t.Errorf("%s: its chart is not among the report's charts (no PNG, no SVG)", v.Title)
		}
		// Placed after its workload's section and before the next one's.
		at := strings.Index(page, `<h2 id="`+v.ID+`">`)
		own := strings.Index(page, "<h2>"+string(wbr(sec.Title))+"</h2>")
		next := len(page)
		if i+1 < len(r.Sections) {
			next = strings.Index(page, "<h2>"+string(wbr(r.Sections[i+1].Title))+"</h2>")
		}
		if at < 0 || own < 0 || at < own || at > next {
			t.Errorf("%s: heading at %d, its workload's at %d, the next section's at %d", v.Title, at, own, next)
		}
		c := v.Chart
		if len(c.Series) != len(r.Systems) || len(c.USL.Curves) != len(r.Systems) {
			t.Fatalf("%s: %d series and %d curves, want one each per system", v.Title, len(c.Series), len(c.USL.Curves))
		}
		for j, s := range c.Series {
			rows := matching(r.Comparison, v.Group)
			if len(s.X) != len(rows) {
				t.Errorf("%s: %s has %d points, want one per thread count (%d)", v.Title, s.Label, len(s.X), len(rows))
				continue
			}
			for k, row := range rows {
				st := row.Cells[j].Stats
				if s.X[k] != float64(row.Key.Threads) || s.Y[k] != st.Mean || s.Lo[k] != st.CILo || s.Hi[k] != st.CIHi {
					t.Errorf("%s: %s point %d is (%g, %g [%g, %g]), want the cell's mean and interval (%d, %g [%g, %g])",
						v.Title, s.Label, k, s.X[k], s.Y[k], s.Lo[k], s.Hi[k], row.Key.Threads, st.Mean, st.CILo, st.CIHi)
				}
			}
		}
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if solid, _, _ := longPaths(svg, uslSteps); solid != len(c.USL.Curves) {
			t.Errorf("%s: the chart has %d solid paths of more than %d points; want a curve per model (%d)", v.Title, solid, uslSteps, len(c.USL.Curves))
		}
		for _, u := range c.USL.Curves {
			m := u.Model
			row := slices.IndexFunc(v.Params, func(p []string) bool { return p[0] == u.Label })
			if row < 0 {
				t.Fatalf("%s: no parameters of %s", v.Title, u.Label)
			}
			for _, cell := range []string{analysis.FormatParam(m.Sigma), analysis.FormatParam(m.Kappa), analysis.FormatEstimate(m.PeakX, false)} {
				if !slices.Contains(v.Params[row], cell) {
					t.Errorf("%s: %s's parameters %q lack %q", v.Title, u.Label, v.Params[row], cell)
				}
				if !strings.Contains(page, string(intervalApart(cell))) {
					t.Errorf("%s: the page lacks %s's %q", v.Title, u.Label, intervalApart(cell))
				}
			}
			reading := template.HTMLEscapeString(fmt.Sprintf("%s: %s.", u.Label, m.Reading(v.Unit(), r.Comparison.Metric.Unit)))
			if !strings.Contains(page, `<p class="reading">`+reading+`</p>`) {
				t.Errorf("%s: the page lacks the reading %q", v.Title, reading)
			}
			if m.Peak != nil && !bytes.Contains(svg, []byte("N* ≈ "+usl.Count(m.Peak.Value))) {
				t.Errorf("%s: the chart does not label %s's peak N* ≈ %s", v.Title, u.Label, usl.Count(m.Peak.Value))
			}
		}
		if len(v.Contrasts) == 0 || !strings.Contains(page, template.HTMLEscapeString(v.Contrasts[0])) {
			t.Errorf("%s: the contrast %q is not on the page", v.Title, v.Contrasts)
		}
		if len(v.Residuals) != len(matching(r.Comparison, v.Group)) {
			t.Errorf("%s: %d rows of means against the models, want one per thread count", v.Title, len(v.Residuals))
		}
	}
	// The point-select sweep peaks inside the sweep (both systems), the
	// read-write one is contention-limited: no peak to mark.
	if svg, _ := r.Sections[1].Scale.Chart.SVG(); bytes.Contains(svg, []byte("N* ≈")) || bytes.Contains(svg, []byte("peak N*")) {
		t.Error("the read-write chart marks a peak its models do not have")
	}
	checkGolden(t, "seed000.scaling.html.golden", []byte(scaleSections(page)))
}

// syntheticSweep is a thread sweep of 1–32 threads, 3 rounds each (± noise,
// a fraction), from a model with parameters sigma, kappa and lambda.
func syntheticSweep(sigma, kappa, lambda, noise float64) (ns, means []float64, obs []usl.Observation) {
	for _, n := range []float64{1, 2, 4, 8, 12, 16, 24, 32} {
		x := lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
		for _, d := range []float64{-noise, 0, noise} {
			obs = append(obs, usl.Observation{N: n, X: x * (1 + d)})
		}
		ns, means = append(ns, n), append(means, x)
	}
	return ns, means, obs
}

// TestScalabilityChartExtrapolates: a model whose peak lies beyond the
// sweep is drawn dashed from the largest count up to N* (labelled and
// said to be an extrapolation); a peak further than extrapolationLimit
// times the largest count is left off, and the caption says so. A series
// without a model beside it keeps its legend entry and its reason.
func TestScalabilityChartExtrapolates(t *testing.T) {
	for _, tc := range []struct {
		name         string
		kappa, noise float64
		onPlot       bool
	}{
		{"peak past the sweep", 2e-4, 0.02, true},        // N* = √(0.98/2e-4) ≈ 70
		{"peak far past the sweep", 8e-6, 0.0005, false}, // N* ≈ 350: told only from rounds this close
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, means, obs := syntheticSweep(0.02, tc.kappa, 1000, tc.noise)
			m, err := usl.Fit(obs, usl.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Peak == nil || !m.PeakBeyond {
				t.Fatalf("the fixture's model has no peak beyond the sweep: %+v", m)
			}
			// x86 has no model: its points only, and the caption says why.
			c := &Chart{ID: "usl", Title: "tps by threads: the fitted model", XLabel: "threads", YLabel: "tps", ThreadAxis: true,
				Series: []Series{{Label: "arm", X: ns, Y: means}, {Label: "x86", Color: 1, X: ns[:3], Y: means[:3]}},
				USL:    &USLLayer{Unit: "threads", Curves: []USLCurve{{Label: "arm", Model: m}}}}
			why := "x86: no model — 3 distinct counts; a model needs at least 6; its points only."
			c.Caption = c.uslCaption(0.95, "threads", []string{why})
			svg, err := c.SVG()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(c.Caption, why) || !bytes.Contains(svg, []byte(">x86<")) {
				t.Errorf("caption %q, x86 in the legend %v: want the reason for no model and its entry", c.Caption, bytes.Contains(svg, []byte(">x86<")))
			}
			// The ideal line and the extrapolation are dashed; the model over
			// the sweep is solid.
			solid, dashed, _ := longPaths(svg, 20)
			label := "N* ≈ " + usl.Count(m.Peak.Value)
			if tc.onPlot {
				if solid != 1 || dashed != 2 || !bytes.Contains(svg, []byte("model, extrapolated")) || !bytes.Contains(svg, []byte(label)) {
					t.Errorf("N* = %s: %d solid and %d dashed curves, legend entry %v, label %q %v; want the model, its ideal line and its extrapolation drawn, in the legend and the peak labelled",
						usl.Count(m.Peak.Value), solid, dashed, bytes.Contains(svg, []byte("model, extrapolated")), label, bytes.Contains(svg, []byte(label)))
				}
				if !strings.Contains(c.Caption, "an extrapolation, not a measurement") || strings.Contains(c.Caption, "left off") {
					t.Errorf("caption %q", c.Caption)
				}
				if reach := c.uslReach(); reach != m.Peak.Value {
					t.Errorf("the chart reaches %g, want the peak %g", reach, m.Peak.Value)
				}
				return
			}
			if bytes.Contains(svg, []byte(label)) || !strings.Contains(c.Caption, "left off the chart") {
				t.Errorf("N* = %s (largest count 32): label drawn %v, caption %q; want it left off and said so", usl.Count(m.Peak.Value), bytes.Contains(svg, []byte(label)), c.Caption)
			}
			if reach := c.uslReach(); reach != extrapolationLimit*32 {
				t.Errorf("the chart reaches %g, want %g", reach, extrapolationLimit*32)
			}
		})
	}
}

// TestScalabilityOfAShortCoreSweep: the core sweeps of the analysis
// fixtures (1, 2 and 4 server CPUs) are too short for a model: the
// by-CPUs section is followed by a scalability section that says why for
// each series, with no chart, parameters or means against a model (as the
// comparison's text); their chart, drawn all the same, has each series'
// means with their intervals (one thread per core hollow), no curve, and a
// caption with the reasons.
func TestScalabilityOfAShortCoreSweep(t *testing.T) {
	r := sweepReport(t)
	if len(r.CPUSections) != 1 {
		t.Fatalf("%d by-CPUs sections, want 1", len(r.CPUSections))
	}
	cs := r.CPUSections[0]
	v := cs.Scale
	if v == nil {
		t.Fatal("the by-CPUs section has no scalability section")
	}
	if v.Over != analysis.SweepCPUs || v.Chart != nil || len(v.Params) != 0 || len(v.Residuals) != 0 || len(v.Readings) != 0 {
		t.Errorf("over %q, chart %v, %d parameter rows, %d residual rows, %d readings; want server CPUs and nothing but the reasons",
			v.Over, v.Chart != nil, len(v.Params), len(v.Residuals), len(v.Readings))
	}
	if len(v.Missing) != len(cs.Curves) {
		t.Errorf("%d reasons for no model, want one per by-CPUs curve (%d)", len(v.Missing), len(cs.Curves))
	}
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	at, by := strings.Index(page, `<h2 id="`+v.ID+`">`), strings.Index(page, "<h2>"+string(wbr(cs.Title))+"</h2>")
	if at < 0 || by < 0 || at < by {
		t.Errorf("the scalability section's heading is at %d, the by-CPUs section's at %d: want it after", at, by)
	}
	for _, m := range v.Missing {
		if !strings.Contains(page, `<p class="note nomodel">`+template.HTMLEscapeString(m)+`</p>`) {
			t.Errorf("the page lacks %q", m)
		}
	}
	if secs := scaleSections(page); strings.Contains(secs, "<table") || strings.Contains(secs, "<figure") {
		t.Error("a scalability section without a model has a table or a chart")
	}

	c := uslChart(r.Comparison, r.Systems, v.ScaleSection, "usl")
	if len(c.USL.Curves) != 0 || len(c.Series) != len(cs.Curves) {
		t.Fatalf("%d curves, %d series; want none and one per by-CPUs curve (%d)", len(c.USL.Curves), len(c.Series), len(cs.Curves))
	}
	for i, s := range c.Series {
		cv := cs.Curves[i]
		if want := strings.TrimSpace(cv.System + " " + cv.Mode); s.Label != want || (s.Dashes > 0) != (cv.SMT != "") {
			t.Errorf("series %d: %q dashed %v, want %q dashed %v (as on the by-CPUs chart)", i, s.Label, s.Dashes > 0, want, cv.SMT != "")
		}
		for j, p := range cv.Points {
			lo, hi := ciOf(p.Stats)
			if s.X[j] != float64(p.CPUs) || s.Y[j] != p.Stats.Mean || !sameFloat(s.Lo[j], lo) || !sameFloat(s.Hi[j], hi) {
				t.Errorf("%s point %d: (%g, %g [%g, %g]), want (%d, %g [%g, %g])", s.Label, j, s.X[j], s.Y[j], s.Lo[j], s.Hi[j], p.CPUs, p.Stats.Mean, lo, hi)
			}
		}
	}
	if !strings.Contains(c.Caption, v.Fits[0].NoModel) || strings.Contains(c.Caption, "Solid lines") {
		t.Errorf("caption %q: want the reason %q and no lines described", c.Caption, v.Fits[0].NoModel)
	}
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, most := longPaths(svg, uslSteps); most > uslSteps {
		t.Errorf("a chart without a model draws a path of %d points", most)
	}
}

// sameFloat is a == b, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// scalingFixture is the report of a sweep of package analysis'
// testdata/scaling ("threads": a real sweep of 8 thread counts; "cores": a
// core sweep of 8 CPU sets generated from a known model whose peak lies
// beyond it).
func scalingFixture(t *testing.T, set string) *Report {
	t.Helper()
	s, err := analysis.Load(filepath.Join("..", "testdata", "scaling", set), set)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{s}, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestScalabilityOfACoreSweep: the generated core sweep (8 CPU sets, its
// model's peak N* ≈ 22 beyond the 16 CPUs measured) gets a scalability
// section after its by-CPUs section, whose chart is over server CPUs with
// the model solid over the sweep and dashed on to its peak, labelled, and
// whose table and reading give the peak as an extrapolation.
func TestScalabilityOfACoreSweep(t *testing.T) {
	r := scalingFixture(t, "cores")
	if len(r.CPUSections) != 1 || r.CPUSections[0].Scale == nil {
		t.Fatalf("%d by-CPUs sections; want one with a scalability section", len(r.CPUSections))
	}
	cs := r.CPUSections[0]
	v := cs.Scale
	if v.Chart == nil || len(v.Chart.USL.Curves) != 1 || len(v.Params) != 1 {
		t.Fatalf("chart %v, parameter rows %d; want a chart with the model and its row", v.Chart != nil, len(v.Params))
	}
	m := v.Chart.USL.Curves[0].Model
	if m.Peak == nil || !m.PeakBeyond {
		t.Fatalf("the fixture's model has no peak beyond the sweep: %+v", m)
	}
	if v.Chart.XLabel != analysis.SweepCPUs || v.Chart.uslReach() != m.Peak.Value {
		t.Errorf("x axis %q reaching %g; want server CPUs up to N* = %g", v.Chart.XLabel, v.Chart.uslReach(), m.Peak.Value)
	}
	svg, err := v.Chart.SVG()
	if err != nil {
		t.Fatal(err)
	}
	solid, dashed, _ := longPaths(svg, 20)
	if solid != 1 || dashed != 2 || !bytes.Contains(svg, []byte("N* ≈ "+usl.Count(m.Peak.Value))) {
		t.Errorf("%d solid and %d dashed curves, peak labelled %v; want the model, its ideal line and its extrapolation, and N* labelled",
			solid, dashed, bytes.Contains(svg, []byte("N* ≈ "+usl.Count(m.Peak.Value))))
	}
	if peak := v.Params[0][6]; !strings.HasSuffix(peak, " "+analysis.BeyondMark) {
		t.Errorf("the N* cell %q is not marked beyond the sweep (%s)", peak, analysis.BeyondMark)
	}
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	at, by := strings.Index(page, `<h2 id="`+v.ID+`">`), strings.Index(page, "<h2>"+string(wbr(cs.Title))+"</h2>")
	if at < 0 || by < 0 || at < by {
		t.Errorf("the scalability section's heading is at %d, the by-CPUs section's at %d: want it after", at, by)
	}
	for _, want := range []string{template.HTMLEscapeString(m.Reading(v.Unit(), "tps")), "an extrapolation", `id="` + v.Chart.ID + `"`, analysis.BeyondMark + ": the peak lies beyond"} {
		if !strings.Contains(scaleSections(page), want) {
			t.Errorf("the scalability section lacks %q", want)
		}
	}
}
