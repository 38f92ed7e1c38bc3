package site

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testing/chromium"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// pageState is what stateScript reports of the page.
type pageState struct {
	ScrollWidth, ViewWidth int
	// Shown counts the rows shown and Count is the page's "N of M rows
	// shown".
	Shown int
	Count string
	// Figures are the shown rows' sort keys of the column sorted on last
	// (data-v, "" for none), in the order shown, and Units their units
	// (data-g).
	Figures, Units []string
}

const stateScript = `(() => {
  const doc = document.documentElement;
  const rows = Array.from(document.querySelectorAll("#results tbody tr")).filter((r) => !r.hidden);
  const th = document.querySelector("#results th[aria-sort]");
  const col = th ? th.cellIndex : 0;
  return {ScrollWidth: doc.scrollWidth, ViewWidth: window.innerWidth, Shown: rows.length,
    Count: document.getElementById("count").textContent, Figures: rows.map((r) => r.cells[col].dataset.v || ""),
    Units: rows.map((r) => r.cells[col].dataset.g || "")};
})()`

// choose sets filter name to value ("" for all) as a user does.
func choose(name, value string) string {
	return fmt.Sprintf(`(() => { const s = document.querySelector('#filters select[name=%q]'); s.value = %q; s.dispatchEvent(new Event("change")); return s.value; })()`, name, value)
}

// sortBy clicks the heading of the column headed label.
func sortBy(label string) string {
	return fmt.Sprintf(`(() => { const b = Array.from(document.querySelectorAll("#results th button")).find((b) => b.textContent === %q); b.click(); return b.parentElement.getAttribute("aria-sort"); })()`, label)
}

// TestSiteInChromium loads the fixture's site from file:// in headless
// Chromium at 1400 and 390 CSS pixels, driven through the DevTools
// protocol: the page must not be wider than the window, must load nothing
// but itself and log no error or Content-Security-Policy violation (its
// script runs under the policy: the filters would not work otherwise);
// choosing a filter value shows the rows that have it and says how many;
// a click on the throughput heading sorts the rows by their figures as
// numbers, a second click the other way. Each operand's report loads
// nothing but itself either. The screenshots go to a temporary directory
// (and $FAIRBENCH_ARTIFACTS when set).
func TestSiteInChromium(t *testing.T) {
	testdb.SkipShort(t, "chromium")
	path := chromium.Find()
	if path == "" {
		t.Skip("no Chromium to render the site: scripts/test.sh installs it (apt-get install chromium)")
	}
	s := fixtureSite(t)
	dir := t.TempDir()
	if _, err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	shots := t.TempDir()
	if art := os.Getenv("FAIRBENCH_ARTIFACTS"); art != "" {
		shots = art
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := chromium.Start(ctx, t, path)
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		b.Call(t, domain+".enable", map[string]any{}, nil)
	}
	index := "file://" + filepath.Join(dir, IndexFile)
	total := len(s.Rows)
	for _, width := range []int{1400, 390} {
		name := fmt.Sprintf("site-%d", width)
		b.ClearEvents()
		b.SetViewport(t, width, 900)
		b.Load(t, index)
		var st pageState
		b.Eval(t, stateScript, &st)
		if st.ViewWidth != width {
			t.Fatalf("%s: the window is %d px wide, want %d", name, st.ViewWidth, width)
		}
		if st.ScrollWidth > st.ViewWidth {
			t.Errorf("%s: the page is %d px wide in a %d px window", name, st.ScrollWidth, st.ViewWidth)
		}
		if st.Shown != total || st.Count != fmt.Sprintf("%d of %d rows shown", total, total) {
			t.Errorf("%s: %d rows shown (%q), want all %d", name, st.Shown, st.Count, total)
		}
		checkFilters(t, b, s, name)
		checkSort(t, b, name)
		b.Eval(t, choose("workload", ""), new(string))
		if err := os.WriteFile(filepath.Join(shots, name+".png"), b.Screenshot(t), 0o644); err != nil {
			t.Fatal(err)
		}
		checkLoads(t, b, name, index)
	}
	for _, op := range s.Operands {
		b.ClearEvents()
		url := "file://" + filepath.Join(dir, filepath.FromSlash(op.ReportPath()))
		b.Load(t, url)
		checkLoads(t, b, op.ReportPath(), url)
	}
}

// checkFilters chooses each filter's values in turn and checks the rows
// shown are those the site's rows have it, then two filters at once.
func checkFilters(t *testing.T, b *chromium.Browser, s *Site, name string) {
	t.Helper()
	total := len(s.Rows)
	for _, f := range s.Filters {
		for _, v := range f.Values {
			want := 0
			for _, r := range s.Rows {
				if s.Value(r, f.Name) == v {
					want++
				}
			}
			var got string
			b.Eval(t, choose(f.Name, v), &got)
			var st pageState
			b.Eval(t, stateScript, &st)
			if got != v || st.Shown != want || st.Count != fmt.Sprintf("%d of %d rows shown", want, total) {
				t.Errorf("%s: %s = %q (set %q): %d rows shown (%q), want %d", name, f.Name, v, got, st.Shown, st.Count, want)
			}
		}
		b.Eval(t, choose(f.Name, ""), new(string))
	}
	// TPC-C on amd64: x86's five rows; then no row is both TPC-C and AWS.
	b.Eval(t, choose("workload", "tpcc"), new(string))
	b.Eval(t, choose("arch", "amd64"), new(string))
	var st pageState
	b.Eval(t, stateScript, &st)
	if st.Shown != 5 {
		t.Errorf("%s: tpcc on amd64 shows %d rows, want 5", name, st.Shown)
	}
	b.Eval(t, choose("arch", ""), new(string))
	b.Eval(t, choose("cloud", "AWS"), new(string))
	b.Eval(t, stateScript, &st)
	if st.Shown != 0 || st.Count != fmt.Sprintf("0 of %d rows shown", total) {
		t.Errorf("%s: tpcc on AWS shows %d rows (%q), want none", name, st.Shown, st.Count)
	}
	b.Eval(t, choose("cloud", ""), new(string))
	b.Eval(t, choose("workload", ""), new(string))
}

// checkSort clicks the throughput heading twice: the figures go up as
// numbers (not as text: 410 before 1502 before 32090), then down, each
// unit's rows together and the units in the same order both ways (tpmC
// figures are never ranked among tps figures: in the fixture every tps
// figure is below every tpmC one, so a plain numeric sort would put the
// units in opposite orders).
func checkSort(t *testing.T, b *chromium.Browser, name string) {
	t.Helper()
	var unitOrders []string
	for _, dir := range []string{"ascending", "descending"} {
		var got string
		b.Eval(t, sortBy("throughput"), &got)
		var st pageState
		b.Eval(t, stateScript, &st)
		byUnit := map[string][]float64{}
		var order []string // the units in the order their rows come
		for i, v := range st.Figures {
			var f float64
			if _, err := fmt.Sscan(v, &f); err != nil {
				t.Fatalf("%s: sort key %q: %v", name, v, err)
			}
			u := st.Units[i]
			if len(order) == 0 || order[len(order)-1] != u {
				if slices.Contains(order, u) {
					t.Errorf("%s: sorted %s: the %s rows are not together: %q", name, dir, u, st.Units)
				}
				order = append(order, u)
			}
			byUnit[u] = append(byUnit[u], f)
		}
		if len(order) < 2 {
			t.Errorf("%s: the fixture shows %d units (%q), want tpmC and tps rows", name, len(order), order)
		}
		unitOrders = append(unitOrders, strings.Join(order, ","))
		for u, figs := range byUnit {
			sorted := sort.Float64sAreSorted(figs)
			if dir == "descending" {
				sorted = slices.IsSortedFunc(figs, func(a, b float64) int { return cmp.Compare(b, a) })
			}
			if !sorted {
				t.Errorf("%s: sorted %s: the %s figures %v", name, dir, u, figs)
			}
		}
		texts := slices.Clone(st.Figures)
		slices.Sort(texts)
		if got != dir || len(st.Figures) != st.Shown || (dir == "ascending" && slices.Equal(texts, st.Figures)) {
			t.Errorf("%s: sorted %s (%q): %v", name, dir, got, st.Figures)
		}
	}
	if unitOrders[0] != unitOrders[1] {
		t.Errorf("%s: units in the order %s ascending and %s descending: the figures were ranked across units", name, unitOrders[0], unitOrders[1])
	}
}

// checkLoads fails the test for what the page logged as an error, a
// Content-Security-Policy violation, and any request but the page itself.
func checkLoads(t *testing.T, b *chromium.Browser, name, url string) {
	t.Helper()
	for _, p := range b.Problems() {
		t.Errorf("%s: %s", name, p)
	}
	if n := b.BlockedByCSP(); n > 0 {
		t.Errorf("%s: the policy blocked %d loads", name, n)
	}
	for _, u := range b.Requests() {
		if u != url && !strings.HasPrefix(u, "data:") {
			t.Errorf("%s: the page fetched %s", name, u)
		}
	}
}
