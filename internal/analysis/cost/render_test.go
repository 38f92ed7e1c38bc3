package cost

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/fairbench/fairbench/internal/testing/golden"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// tidbReport: seed 003's US systems, their costs and the TPC-C Medium1 and
// sysbench price-performance.
func tidbReport(t *testing.T) *Report {
	t.Helper()
	s, err := LoadSheet("testdata/tidb-eks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReport(s, "x86-us", "arm-us")
	if err != nil {
		t.Fatal(err)
	}
	w := seed003TPCC[1]
	ev, err := s.Evaluate([]Input{
		{System: "x86-us", Throughput: Figure{ByThreads: byThreads(seed003Threads, w.x86), Threads: []int{300, 500, 800}}},
		{System: "arm-us", Throughput: Figure{ByThreads: byThreads(seed003Threads, w.arm), Threads: []int{300, 500, 800}}},
	}, Options{Workload: "TPC-C Medium1 (100 warehouses)", Metric: "tpmC"})
	if err != nil {
		t.Fatal(err)
	}
	r.Evaluations = append(r.Evaluations, ev)
	ev, err = s.Evaluate([]Input{
		{System: "x86-us", Throughput: Figure{ByThreads: byThreads(seed003SysbenchThreads, seed003SysbenchX86)}},
		{System: "arm-us", Throughput: Figure{ByThreads: byThreads(seed003SysbenchThreads, seed003SysbenchARM)}},
	}, Options{Workload: "sysbench oltp_read_write", Metric: "TPS", PerDollar: BasisMonth})
	if err != nil {
		t.Fatal(err)
	}
	r.Evaluations = append(r.Evaluations, ev)
	return r
}

// scenarioReport: equal cost (one fitting, one not) and equal compute on the
// constructed sheet.
func scenarioReport(t *testing.T) *Report {
	t.Helper()
	s := mustSheet(t, scenarioSheet)
	r, err := NewReport(s, "x86", "arm", "arm-big")
	if err != nil {
		t.Fatal(err)
	}
	in := []Input{
		{System: "x86", Throughput: Figure{Value: 1000}},
		{System: "arm", Throughput: Figure{Value: 900}},
		{System: "arm-big", Throughput: Figure{Value: 1850}},
	}
	ec, err := s.EqualCost(in, EqualCostOptions{Budget: 6000, Per: BasisYear, Workload: "oltp_read_write"})
	if err != nil {
		t.Fatal(err)
	}
	r.EqualCosts = append(r.EqualCosts, ec)
	ec, err = s.EqualCost([]Input{{System: "arm-big"}, {System: "arm"}, {System: "unknown-cpu"}}, EqualCostOptions{Budget: 300, Per: BasisMonth, AllowOver: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	r.EqualCosts = append(r.EqualCosts, ec)
	ev, err := s.EqualCompute(in[:2], Options{Workload: "oltp_read_write", PricePerf: BasisYear})
	if err != nil {
		t.Fatal(err)
	}
	r.Evaluations = append(r.Evaluations, ev)
	return r
}

// mixedReport: an evaluation and an equal-cost scenario whose throughputs
// are of different data sets, put together as --allow-mixed does.
func mixedReport(t *testing.T) *Report {
	t.Helper()
	s := mustSheet(t, scenarioSheet)
	r := &Report{Sheet: s.Info()}
	in := []Input{{System: "x86", Throughput: Figure{Value: 1000}}, {System: "arm", Throughput: Figure{Value: 900}}}
	const mixed = "data set: x86 w10, arm w100"
	ev, err := s.Evaluate(in, Options{Workload: "tpcc/uniform", Metric: "tpmC", Mixed: mixed})
	if err != nil {
		t.Fatal(err)
	}
	r.Evaluations = append(r.Evaluations, ev)
	ec, err := s.EqualCost(in, EqualCostOptions{Budget: 6000, Per: BasisYear, Workload: "tpcc/uniform", Metric: "tpmC", Mixed: mixed})
	if err != nil {
		t.Fatal(err)
	}
	r.EqualCosts = append(r.EqualCosts, ec)
	return r
}

func TestRenderMarksMixedFigures(t *testing.T) {
	for name, write := range map[string]func(io.Writer, *Report) error{"txt": WriteText, "md": WriteMarkdown, "csv": WriteCSV, "json": WriteJSON} {
		var b bytes.Buffer
		if err := write(&b, mixedReport(t)); err != nil {
			t.Fatal(err)
		}
		want := "† mixed: data set: x86 w10, arm w100"
		switch name {
		case "csv":
			want = `,"data set: x86 w10, arm w100"`
		case "json":
			want = `"mixed": "data set: x86 w10, arm w100"`
		}
		if n := strings.Count(b.String(), want); n < 2 {
			t.Errorf("%s: %q %d times, want it for the evaluation and the equal-cost table:\n%s", name, want, n, b.String())
		}
	}
}

func TestRenderGolden(t *testing.T) {
	writers := map[string]func(io.Writer, *Report) error{
		"txt": WriteText, "md": WriteMarkdown, "csv": WriteCSV, "json": WriteJSON,
	}
	reports := map[string]func(*testing.T) *Report{"tidb": tidbReport, "scenarios": scenarioReport, "mixed": mixedReport}
	for name, build := range reports {
		for ext, write := range writers {
			t.Run(name+"."+ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := write(&b, build(t)); err != nil {
					t.Fatal(err)
				}
				golden(t, name+".golden."+ext, b.Bytes())
			})
		}
	}
}

// The golden files are only as good as what they show: check the figures a
// reader looks for are there.
func TestRenderShowsTheSeedFigures(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, tidbReport(t)); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{
		"2,117.47", "2,511.96", "127,048.20", "150,717.60", // monthly and five-year totals
		"883.01", "1,103.76", "466.50", "73.00", // lines and subtotals
		"52,601.73", "2.87", "2.36", "-17.77%", // Medium1 tpmC mean, price-performance, %
		"56.99", "47.87", "-16.01%", // sysbench
		"tpmC: mean of 300, 500, 800 threads",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q", want)
		}
	}
}

func TestCSVParsesBack(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, tidbReport(t)); err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSpace(b.String()), "\n\n")
	if len(blocks) != 6 { // sheet, costs, 2 × lines, 2 × evaluation
		t.Fatalf("%d blocks, want 6", len(blocks))
	}
	for _, blk := range blocks {
		recs, err := csv.NewReader(strings.NewReader(blk)).ReadAll()
		if err != nil {
			t.Fatalf("%v in\n%s", err, blk)
		}
		if recs[0][0] != "table" || len(recs) < 2 {
			t.Errorf("block starts %v", recs[0])
		}
	}
	if !strings.Contains(b.String(), "costs,x86-us,x86_64,56,1972.46,466.5,73,") {
		t.Errorf("costs row with plain numbers missing:\n%s", b.String())
	}
}

// TestCSVNumericColumnsHoldNumbers: every column that text right-aligns
// holds a number or nothing in CSV, in the blocks and in the per-table files;
// words such as "baseline" and "does not fit" are in the note column.
func TestCSVNumericColumnsHoldNumbers(t *testing.T) {
	for name, r := range map[string]*Report{"tidb": tidbReport(t), "scenarios": scenarioReport(t)} {
		files, err := CSVFiles(r)
		if err != nil {
			t.Fatal(err)
		}
		tables := r.tables()
		if len(files) != len(tables) {
			t.Fatalf("%s: %d files for %d tables", name, len(files), len(tables))
		}
		names := map[string]bool{}
		sawNote := false
		for i, f := range files {
			if names[f.Name] || !strings.HasSuffix(f.Name, ".csv") || strings.ContainsAny(f.Name, "/: ") {
				t.Errorf("%s: file name %q (repeated or not a plain file name)", name, f.Name)
			}
			names[f.Name] = true
			recs, err := csv.NewReader(bytes.NewReader(f.Body)).ReadAll()
			if err != nil {
				t.Fatalf("%s %s: %v", name, f.Name, err)
			}
			for j, c := range tables[i].cols {
				if recs[0][j] != c.head {
					t.Errorf("%s %s: column %d is %q, want %q", name, f.Name, j, recs[0][j], c.head)
				}
				if !c.right {
					continue
				}
				for _, rec := range recs[1:] {
					if v := rec[j]; v != "" {
						if _, err := strconv.ParseFloat(v, 64); err != nil {
							t.Errorf("%s %s: numeric column %q holds %q", name, f.Name, c.head, v)
						}
					}
				}
			}
			if recs[0][len(recs[0])-1] == "note" {
				sawNote = true
			}
		}
		if !sawNote {
			t.Errorf("%s: no note column, though a baseline row exists", name)
		}
	}
}

func TestJSONParsesBack(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, tidbReport(t)); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Costs) != 2 || len(r.Evaluations) != 2 || r.Evaluations[0].Rows[1].Diff == nil || r.Sheet.Period != "5y" {
		t.Errorf("decoded %+v", r)
	}
	if got := r.Evaluations[0].Rows[0].Threads; len(got) != 3 || got[2] != 800 {
		t.Errorf("threads %v", got)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWritersReportWriteErrors(t *testing.T) {
	r := scenarioReport(t)
	for name, write := range map[string]func(io.Writer, *Report) error{"text": WriteText, "markdown": WriteMarkdown, "csv": WriteCSV, "json": WriteJSON} {
		if err := write(failingWriter{}, r); err == nil {
			t.Errorf("%s: no error from a failing writer", name)
		}
	}
}

// TestRenderMarksOutages: throughputs that include runs during which the
// server went away are marked, and say which, in the evaluation and the
// equal-cost table alike.
func TestRenderMarksOutages(t *testing.T) {
	s := mustSheet(t, scenarioSheet)
	r := &Report{Sheet: s.Info()}
	in := []Input{{System: "x86", Throughput: Figure{Value: 1000}}, {System: "arm", Throughput: Figure{Value: 900}}}
	const outages = "arm: 1 of 3 runs at 8 threads"
	ev, err := s.Evaluate(in, Options{Workload: "tpcc/uniform", Metric: "tpmC", Outages: outages})
	if err != nil {
		t.Fatal(err)
	}
	ec, err := s.EqualCost(in, EqualCostOptions{Budget: 6000, Per: BasisYear, Workload: "tpcc/uniform", Metric: "tpmC", Outages: outages})
	if err != nil {
		t.Fatal(err)
	}
	r.Evaluations, r.EqualCosts = append(r.Evaluations, ev), append(r.EqualCosts, ec)
	for name, write := range map[string]func(io.Writer, *Report) error{"txt": WriteText, "md": WriteMarkdown, "json": WriteJSON} {
		var b bytes.Buffer
		if err := write(&b, r); err != nil {
			t.Fatal(err)
		}
		want := "‡ outage: the throughputs of " + outages
		if name == "json" {
			want = `"outages": "` + outages + `"`
		}
		if n := strings.Count(b.String(), want); n < 2 {
			t.Errorf("%s: %q %d times, want it for the evaluation and the equal-cost table:\n%s", name, want, n, b.String())
		}
	}
}
