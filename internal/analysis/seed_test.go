package analysis

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// seedRow is one line of a table of seed 000 ("MySQL on x86 vs ARM"): the raw
// ARM and x86 figures and the derived columns as printed.
type seedRow struct {
	threads        int
	arm, x86       float64 // raw inputs
	fs, pct, pctFS string  // printed: ARM (FS), % ARM-vs-x86, % ARM (FS)-vs-x86
}

// seedTable is one of the five tables of seed 000.
type seedTable struct {
	workload string
	metric   Metric
	rows     []seedRow
}

// seed000 holds the five tables of seed 000, copied from the seed text. The
// printed derived columns are reproduced by fscaled = round(ARM × 3.0/2.6),
// % = round((ARM − x86) / x86 × 100) and %FS = round((fscaled − x86) / x86 ×
// 100) with the unrounded fscaled, rounding half away from zero; all 45 rows
// agree (truncating instead of rounding disagrees on 15 rows or more, so the
// seed rounds). No printed value contradicts this rounding.
var seed000 = []seedTable{
	{"oltp_point_select", MetricQPS, []seedRow{
		{1, 6696, 6439, "7726", "4", "20"},
		{2, 12482, 11774, "14402", "6", "22"},
		{4, 23881, 21308, "27555", "12", "29"},
		{8, 45993, 42110, "53069", "9", "26"},
		{16, 88517, 81239, "102135", "9", "26"},
		{32, 142974, 136724, "164970", "5", "21"},
		{64, 198839, 212484, "229430", "-6", "8"},
		{128, 217778, 241555, "251282", "-10", "4"},
		{256, 209797, 224009, "242073", "-6", "8"},
	}},
	{"oltp_read_only", MetricQPS, []seedRow{
		{1, 5222, 5259, "6025", "-1", "15"},
		{2, 10333, 10200, "11923", "1", "17"},
		{4, 19176, 19349, "22126", "-1", "14"},
		{8, 36881, 37035, "42555", "0", "15"},
		{16, 70337, 67065, "81158", "5", "21"},
		{32, 109207, 113210, "126008", "-4", "11"},
		{64, 139294, 164148, "160724", "-15", "-2"},
		{128, 151382, 175872, "174672", "-14", "-1"},
		{256, 149136, 164382, "172080", "-9", "5"},
	}},
	{"oltp_read_write", MetricTPS, []seedRow{
		{1, 137, 149, "158", "-8", "6"},
		{2, 251, 273, "290", "-8", "6"},
		{4, 462, 502, "533", "-8", "6"},
		{8, 852, 920, "983", "-7", "7"},
		{16, 1539, 1678, "1776", "-8", "6"},
		{32, 2556, 2906, "2949", "-12", "1"},
		{64, 3770, 5158, "4350", "-27", "-16"},
		{128, 5015, 8131, "5787", "-38", "-29"},
		{256, 5676, 8562, "6549", "-34", "-24"},
	}},
	{"oltp_update_index", MetricTPS, []seedRow{
		{1, 328, 373, "378", "-12", "1"},
		{2, 623, 768, "719", "-19", "-6"},
		{4, 1060, 1148, "1223", "-8", "7"},
		{8, 1905, 2028, "2198", "-6", "8"},
		{16, 3284, 3590, "3789", "-9", "6"},
		{32, 5543, 6275, "6396", "-12", "2"},
		{64, 9138, 10381, "10544", "-12", "2"},
		{128, 13879, 16868, "16014", "-18", "-5"},
		{256, 19954, 25459, "23024", "-22", "-10"},
	}},
	{"oltp_update_non_index", MetricTPS, []seedRow{
		{1, 328, 373, "378", "-12", "1"},
		{2, 588, 686, "678", "-14", "-1"},
		{4, 1075, 1118, "1240", "-4", "11"},
		{8, 1941, 2043, "2240", "-5", "10"},
		{16, 3367, 3662, "3885", "-8", "6"},
		{32, 5681, 6438, "6555", "-12", "2"},
		{64, 9328, 10631, "10763", "-12", "1"},
		{128, 14158, 17245, "16336", "-18", "-5"},
		{256, 20377, 26367, "23512", "-23", "-11"},
	}},
}

// seedSystems builds the ARM and x86 systems of seed 000 from results whose
// machines carry no frequency, then sets the frequencies as a user would with
// --ghz ARM=2.6,x86=3.0.
func seedSystems(t *testing.T) []*System {
	t.Helper()
	noFreq := func(m result.Machine) result.Machine {
		m.CPUModel, m.MaxMHz, m.MHz, m.CurMHz = shortCPU(m), 0, 0, 0
		return m
	}
	var arm, x86 []fakeRun
	for _, tab := range seed000 {
		for _, r := range tab.rows {
			a := fakeRun{machine: noFreq(armMachine), server: mysql8, workload: tab.workload, threads: r.threads}
			x := fakeRun{machine: noFreq(x86Machine), server: mysql8, workload: tab.workload, threads: r.threads}
			if tab.metric == MetricQPS {
				a.qps, x.qps = r.arm, r.x86
			} else {
				a.tps, x.tps = r.arm, r.x86
			}
			arm, x86 = append(arm, a), append(x86, x)
		}
	}
	systems := []*System{mustSystem(t, "ARM", arm...), mustSystem(t, "x86", x86...)}
	for _, s := range systems {
		if s.GHz != 0 {
			t.Fatalf("%s: GHz %v from a machine without frequency, want 0", s.Label, s.GHz)
		}
	}
	ghz, err := ParseGHz("ARM=2.6,x86=3.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyGHz(systems, ghz); err != nil {
		t.Fatal(err)
	}
	return systems
}

// seedComparison compares the seed systems for metric over the seed's tables
// of that metric, x86 as the baseline as in the seed.
func seedComparison(t *testing.T, metric Metric) *Comparison {
	t.Helper()
	var workloads []string
	for _, tab := range seed000 {
		if tab.metric == metric {
			workloads = append(workloads, tab.workload)
		}
	}
	c, err := Compare(seedSystems(t), CompareOptions{Metric: metric, Baseline: "x86", Workloads: workloads})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSeed000DerivedColumns reproduces the derived columns of the five tables
// of seed 000 from their raw inputs, both as numbers (rounded to the printed
// precision) and as the Markdown renderer prints them.
func TestSeed000DerivedColumns(t *testing.T) {
	for _, metric := range []Metric{MetricQPS, MetricTPS} {
		c := seedComparison(t, metric)
		if !c.Scaled || c.Baseline != 1 {
			t.Fatalf("%s: Scaled=%v Baseline=%d, want scaled against x86 (1)", metric.Name, c.Scaled, c.Baseline)
		}
		var md bytes.Buffer
		if err := WriteMarkdown(&md, c); err != nil {
			t.Fatal(err)
		}
		printed := markdownMainTables(t, md.String())
		for _, tab := range seed000 {
			if tab.metric != metric {
				continue
			}
			lines := printed[tab.workload]
			if len(lines) != len(tab.rows) {
				t.Fatalf("%s: the Markdown has %d rows, want %d:\n%s", tab.workload, len(lines), len(tab.rows), md.String())
			}
			for i, want := range tab.rows {
				row := findRow(t, c, tab.workload, want.threads)
				arm := row.Cells[0]
				got := []string{
					strconv.Itoa(int(math.Round(arm.FScaled))),
					strconv.Itoa(int(math.Round(arm.Pct))),
					strconv.Itoa(int(math.Round(arm.PctFScaled))),
				}
				if got[1] == "-0" {
					got[1] = "0"
				}
				wantCols := []string{want.fs, want.pct, want.pctFS}
				for j := range got {
					if got[j] != wantCols[j] {
						t.Errorf("%s t%d column %d: computed %s, seed prints %s", tab.workload, want.threads, j, got[j], wantCols[j])
					}
				}
				// threads | ARM | x86 | ARM fscaled | % ARM-vs-x86 | % ARM(FS)-vs-x86
				wantLine := []string{strconv.Itoa(want.threads), fmtNum(want.arm), fmtNum(want.x86), want.fs, want.pct, want.pctFS}
				if strings.Join(lines[i], "|") != strings.Join(wantLine, "|") {
					t.Errorf("%s: Markdown row %q, seed %q", tab.workload, strings.Join(lines[i], "|"), strings.Join(wantLine, "|"))
				}
			}
		}
	}
}

// markdownMainTables returns the rows of the first table under each "## "
// heading, keyed by workload (the heading up to its first space).
func markdownMainTables(t *testing.T, md string) map[string][][]string {
	t.Helper()
	out := map[string][][]string{}
	var workload string
	var inTable, done bool
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "## "):
			workload = strings.ReplaceAll(strings.Fields(line)[1], `\_`, "_")
			inTable, done = false, false
		case workload == "" || done:
		case strings.HasPrefix(line, "|"):
			if !inTable {
				inTable = true // the header
				continue
			}
			if strings.HasPrefix(line, "|---") {
				continue
			}
			var cells []string
			for c := range strings.SplitSeq(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			out[workload] = append(out[workload], cells)
		case inTable:
			done = true
		}
	}
	return out
}

func findRow(t *testing.T, c *Comparison, workload string, threads int) Row {
	t.Helper()
	for _, r := range c.Rows {
		if r.Key.Workload == workload && r.Key.Threads == threads {
			return r
		}
	}
	t.Fatalf("no row %s t%d", workload, threads)
	return Row{}
}

// TestSeed000Golden pins the four renderings of the seed comparison.
func TestSeed000Golden(t *testing.T) {
	for _, metric := range []Metric{MetricQPS, MetricTPS} {
		c := seedComparison(t, metric)
		renderGoldens(t, "seed000_"+metric.Name, c)
	}
}

// renderGoldens checks the text, Markdown, CSV and JSON renderings of c
// and the wide CSV and Markdown against testdata/name.{txt,md,csv,json,
// wide.csv,wide.md}.
func renderGoldens(t *testing.T, name string, c *Comparison) {
	t.Helper()
	for _, f := range []struct {
		ext   string
		write func(*bytes.Buffer, *Comparison) error
	}{
		{"txt", func(b *bytes.Buffer, c *Comparison) error { return WriteText(b, c) }},
		{"md", func(b *bytes.Buffer, c *Comparison) error { return WriteMarkdown(b, c) }},
		{"csv", func(b *bytes.Buffer, c *Comparison) error { return WriteCSV(b, c) }},
		{"json", func(b *bytes.Buffer, c *Comparison) error { return WriteJSON(b, c) }},
		{"wide.csv", func(b *bytes.Buffer, c *Comparison) error { return WriteWideCSV(b, c) }},
		{"wide.md", func(b *bytes.Buffer, c *Comparison) error { return WriteWideMarkdown(b, c) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b, c); err != nil {
			t.Fatalf("%s.%s: %v", name, f.ext, err)
		}
		checkGolden(t, name+"."+f.ext, b.Bytes())
	}
}

// TestSeed000Scalability checks the knee and peak the seed's analysis reads
// off the point-select curves: both grow until 128 threads and fall at 256.
func TestSeed000Scalability(t *testing.T) {
	for _, s := range seedSystems(t) {
		curves, err := Scalability(s, ScalingOptions{Metric: MetricQPS})
		if err != nil {
			t.Fatal(err)
		}
		var ps *Curve
		for i := range curves {
			if curves[i].Group.Workload == "oltp_point_select" {
				ps = &curves[i]
			}
		}
		if ps == nil {
			t.Fatalf("%s: no point-select curve in %+v", s.Label, curves)
		}
		if ps.PeakThreads != 128 || ps.KneeThreads != 128 || !ps.Saturated || ps.BaseThreads != 1 {
			t.Errorf("%s: peak t%d, knee t%d (saturated %v), base t%d; want peak and knee at 128, base 1",
				s.Label, ps.PeakThreads, ps.KneeThreads, ps.Saturated, ps.BaseThreads)
		}
	}
}
