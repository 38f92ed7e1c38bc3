package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testing/chromium"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// pageLayout is what the layout script reports of a rendered report.
type pageLayout struct {
	ScrollWidth, ViewWidth, Height int
	// SticksOut are the elements whose right edge is past the viewport's,
	// not counting those inside a box that scrolls or clips them.
	SticksOut []string
	// Charts are each chart's id and box on the page (CSS pixels).
	Charts []struct {
		ID         string
		X, Y, W, H int
	}
	// MinFont is the smallest rendered size (CSS pixels) of a chart's text
	// on the page, MinFontText that text.
	MinFont     float64
	MinFontText string
}

const layoutScript = `(() => {
  const doc = document.documentElement, view = doc.clientWidth;
  const contained = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") return true;
    }
    return false;
  };
  const sticksOut = Array.from(document.body.querySelectorAll("*"))
    .filter((e) => e.getBoundingClientRect().right > view + 0.5 && !contained(e))
    .slice(0, 10).map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""));
  const shown = (f) => Array.from(f.querySelectorAll("svg")).find((s) => s.getBoundingClientRect().width > 0);
  const charts = Array.from(document.querySelectorAll("figure.chart")).map((f) => {
    const b = (shown(f) || f).getBoundingClientRect();
    return {ID: f.id, X: Math.round(b.left + scrollX), Y: Math.round(b.top + scrollY), W: Math.round(b.width), H: Math.round(b.height)};
  });
  // A text's rendered size: its font size in the SVG's units times the
  // SVG's scale on the screen (rotated text included).
  let minFont = 1e9, minFontText = "";
  for (const f of document.querySelectorAll("figure.chart")) {
    const svg = shown(f);
    if (!svg) continue;
    for (const t of svg.querySelectorAll("text")) {
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (t.textContent.trim() !== "" && px < minFont) { minFont = px; minFontText = f.id + ": " + t.textContent; }
    }
  }
  return {ScrollWidth: doc.scrollWidth, ViewWidth: view, Height: doc.scrollHeight, SticksOut: sticksOut, Charts: charts, MinFont: minFont, MinFontText: minFontText};
})()`

// minChartFont is the smallest size (CSS pixels) a chart's text may render at.
const minChartFont = 10.0

// externalRef finds a reference to something outside the file: a URL with a
// scheme or a protocol-relative one in an attribute, CSS url() or @import.
var externalRef = regexp.MustCompile(`(?i)((src|href|action|xlink:href|poster|data)\s*=\s*["']?\s*(https?:|//|ftp:|file:))|url\(\s*["']?\s*(https?:|//)|@import`)

// TestHTMLReportAtDesktopAndPhoneWidths renders the reports of the fixtures
// (two systems × four rounds with made-up cost; a TPC-C comparison priced
// with seed 003's sheet; two systems' core sweeps; the scalability fixtures'
// thread and core sweeps, with their models' charts) in headless Chromium at
// 1400 and 390 CSS pixels, driven through the DevTools protocol: the page
// must not overflow horizontally, must load nothing but itself, log no
// error, every chart's box in the screenshot must hold pixels in the colour
// of each system it charts, and no chart text may render below 10 px. The screenshots are kept in
// $FAIRBENCH_ARTIFACTS (default test-artifacts/ at the top of the tree).
func TestHTMLReportAtDesktopAndPhoneWidths(t *testing.T) {
	testdb.SkipShort(t, "chromium")
	path := chromium.Find()
	if path == "" {
		t.Skip("no Chromium to render the report: scripts/test.sh installs it (apt-get install chromium)")
	}
	art := os.Getenv("FAIRBENCH_ARTIFACTS")
	if art == "" {
		art = filepath.Join("..", "..", "..", "test-artifacts")
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := chromium.Start(ctx, t, path)
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		b.Call(t, domain+".enable", map[string]any{}, nil)
	}
	for _, fx := range []struct {
		name string
		r    *Report
	}{{"seed", seedReport(t)}, {"tpcc", tpccReport(t)}, {"cpusweep", sweepReport(t)}, {"threads", scalingFixture(t, "threads")}, {"cores", scalingFixture(t, "cores")}} {
		var html bytes.Buffer
		if err := fx.r.WriteHTML(&html); err != nil {
			t.Fatal(err)
		}
		if m := externalRef.Find(html.Bytes()); m != nil {
			t.Errorf("%s: the HTML refers to something outside the file: %q", fx.name, m)
		}
		file := filepath.Join(t.TempDir(), fx.name+".html")
		if err := os.WriteFile(file, html.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		colours := map[string][]int{} // chart ID -> the systems' colours it draws
		for _, c := range fx.r.Charts() {
			add := func(i int) {
				if !slices.Contains(colours[c.ID], i) {
					colours[c.ID] = append(colours[c.ID], i)
				}
			}
			for _, s := range c.Series {
				add(s.Color)
			}
			for _, bar := range c.Bars {
				add(bar.Color)
			}
			for _, g := range c.Groups {
				for _, bar := range g.Bars {
					add(bar.Color)
				}
			}
		}
		for _, width := range []int{1400, 390} {
			name := fmt.Sprintf("%s-%d", fx.name, width)
			b.ClearEvents()
			metrics := map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}
			b.Call(t, "Emulation.setDeviceMetricsOverride", metrics, nil)
			b.Call(t, "Page.navigate", map[string]any{"url": "file://" + file}, nil)
			b.Wait(t, "Page.loadEventFired")
			var l pageLayout
			b.Eval(t, layoutScript, &l)
			if l.ViewWidth != width {
				t.Fatalf("%s: the viewport is %d px wide, want %d", name, l.ViewWidth, width)
			}
			if l.ScrollWidth > l.ViewWidth || len(l.SticksOut) > 0 {
				t.Errorf("%s: the page is %d px wide in a %d px viewport; sticking out: %v", name, l.ScrollWidth, l.ViewWidth, l.SticksOut)
			}
			if l.MinFont < minChartFont {
				t.Errorf("%s: chart text renders at %.1f px (%q), want at least %g px", name, l.MinFont, l.MinFontText, minChartFont)
			}
			if len(l.Charts) != len(fx.r.Charts()) {
				t.Errorf("%s: %d charts on the page, want %d", name, len(l.Charts), len(fx.r.Charts()))
			}
			checkScreenshot(t, b, name, art, width, l, colours)
			for _, p := range b.Problems() {
				t.Errorf("%s: %s", name, p)
			}
			for _, u := range b.Requests() {
				if u != "file://"+file && !strings.HasPrefix(u, "data:") {
					t.Errorf("%s: the page fetched %s", name, u)
				}
			}
		}
		if fx.name == "seed" {
			checkDarkAndPrint(t, b, file, art, colours)
		}
	}
}

// checkScreenshot takes the whole page at width in one screenshot, keeps it
// as art/report-name.png, and checks that every chart's box holds pixels in
// the colour of each system it charts.
func checkScreenshot(t *testing.T, b *chromium.Browser, name, art string, width int, l pageLayout, colours map[string][]int) {
	t.Helper()
	metrics := map[string]any{"width": width, "height": l.Height, "deviceScaleFactor": 1, "mobile": width < 600}
	b.Call(t, "Emulation.setDeviceMetricsOverride", metrics, nil)
	var shot struct{ Data string }
	b.Call(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	raw, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(art, "report-"+name+".png")
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: the screenshot: %v", name, err)
	}
	if img.Bounds().Dx() != width {
		t.Errorf("%s: the screenshot is %d px wide, want %d", name, img.Bounds().Dx(), width)
	}
	for _, c := range l.Charts {
		if c.W < 200 || c.H < 100 {
			t.Errorf("%s: chart %s is %d×%d px", name, c.ID, c.W, c.H)
		}
		if c.X < 0 || c.X+c.W > width {
			t.Errorf("%s: chart %s spans x %d–%d outside the %d px page", name, c.ID, c.X, c.X+c.W, width)
		}
		for _, i := range colours[c.ID] {
			if n := countNear(img, image.Rect(c.X, c.Y, c.X+c.W, c.Y+c.H), SystemColor(i)); n < 20 {
				t.Errorf("%s: chart %s has %d pixels of system %d's colour %v, want it drawn", name, c.ID, n, i, SystemColor(i))
			}
		}
	}
	t.Logf("%s: %d×%d px, %d charts, smallest chart text %.1f px: %s", name, img.Bounds().Dx(), img.Bounds().Dy(), len(l.Charts), l.MinFont, out)
}

// checkDarkAndPrint renders the page at 1400 px for a reader who prefers a
// dark scheme (dark page, light text, the charts still in the systems'
// colours) and for print (no chart, table or legend split across pages;
// tables as tables, not scroll boxes), and checks that its
// Content-Security-Policy stops a load: an image and a script planted in a
// copy of the page are refused without a request reaching the server.
func checkDarkAndPrint(t *testing.T, b *chromium.Browser, file, art string, colours map[string][]int) {
	t.Helper()
	metrics := map[string]any{"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false}
	load := func(url string, media string, features ...map[string]string) pageLayout {
		b.ClearEvents()
		if features == nil {
			features = []map[string]string{}
		}
		b.Call(t, "Emulation.setDeviceMetricsOverride", metrics, nil)
		b.Call(t, "Emulation.setEmulatedMedia", map[string]any{"media": media, "features": features}, nil)
		b.Call(t, "Page.navigate", map[string]any{"url": url}, nil)
		b.Wait(t, "Page.loadEventFired")
		var l pageLayout
		b.Eval(t, layoutScript, &l)
		return l
	}
	defer b.Call(t, "Emulation.setEmulatedMedia", map[string]any{"media": "", "features": []map[string]string{}}, nil)

	l := load("file://"+file, "", map[string]string{"name": "prefers-color-scheme", "value": "dark"})
	var lum struct{ Bg, Fg float64 }
	b.Eval(t, `(() => {
	  const rgb = (s) => s.match(/[\d.]+/g).slice(0, 3).map(Number);
	  const lum = (c) => (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
	  const st = getComputedStyle(document.body);
	  return {Bg: lum(rgb(st.backgroundColor)), Fg: lum(rgb(st.color))};
	})()`, &lum)
	if lum.Bg > 0.2 || lum.Fg < 0.7 {
		t.Errorf("dark scheme: page luminance %.2f, text %.2f; want a dark page (≤ 0.2) and light text (≥ 0.7)", lum.Bg, lum.Fg)
	}
	checkScreenshot(t, b, "seed-1400-dark", art, 1400, l, colours)
	for _, p := range b.Problems() {
		t.Errorf("dark scheme: %s", p)
	}

	load("file://"+file, "print")
	var print struct {
		Figure, Table, Legend, TableDisplay string
	}
	b.Eval(t, `(() => ({
	  Figure: getComputedStyle(document.querySelector("figure.chart")).breakInside,
	  Table: getComputedStyle(document.querySelector("table.cmp")).breakInside,
	  Legend: getComputedStyle(document.querySelector(".legend")).breakInside,
	  TableDisplay: getComputedStyle(document.querySelector("table.cmp")).display,
	}))()`, &print)
	if print.Figure != "avoid" || print.Table != "avoid" || print.Legend != "avoid" || print.TableDisplay != "table" {
		t.Errorf("print: break-inside of a chart %q, a table %q, a legend %q, table display %q; want avoid, avoid, avoid, table", print.Figure, print.Table, print.Legend, print.TableDisplay)
	}

	// The policy at work: a planted image and script must not load.
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	planted := bytes.Replace(page, []byte("</body>"), []byte(`<img src="`+srv.URL+`/probe.png"><script src="`+srv.URL+`/probe.js"></script><script>document.title = "ran"</script></body>`), 1)
	probe := filepath.Join(filepath.Dir(file), "planted.html")
	if err := os.WriteFile(probe, planted, 0o644); err != nil {
		t.Fatal(err)
	}
	load("file://"+probe, "")
	var title string
	b.Eval(t, "document.title", &title)
	// Chromium announces a request before the policy blocks it: the
	// planted image and script must be among the blocked.
	if blocked := b.BlockedByCSP(); hits > 0 || title == "ran" || blocked < 2 {
		t.Errorf("the Content-Security-Policy let a planted load through: %d request(s) reached the server, title %q, %d of the 2 planted loads blocked", hits, title, blocked)
	}
	if !slices.ContainsFunc(b.Problems(), func(p string) bool { return strings.Contains(p, "Content Security Policy") }) {
		t.Errorf("no Content-Security-Policy violation reported for the planted loads: %v", b.Problems())
	}
}

// countNear counts the pixels of img within r whose colour is within a small
// distance of c (anti-aliased edges and translucent bands do not count).
func countNear(img image.Image, r image.Rectangle, c color.RGBA) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			d := abs(int(pr>>8)-int(c.R)) + abs(int(pg>>8)-int(c.G)) + abs(int(pb>>8)-int(c.B))
			if d < 30 {
				n++
			}
		}
	}
	return n
}
