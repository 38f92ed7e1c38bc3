package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/compat/importer"
	"github.com/fairbench/fairbench/internal/compat/sysbenchout"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// sysbenchDir holds real sysbench 1.0.20 transcripts (see its README.md).
var sysbenchDir = filepath.Join("testdata", "sysbench-1.0.20")

// sysbenchTranscript reads a real sysbench run (its command line, then its
// output) and the result fairbench's importer makes of it.
func sysbenchTranscript(t *testing.T, name string) (lines []string, res *result.Result) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(sysbenchDir, name))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := importer.Parse(bytes.NewReader(raw), name, importer.Options{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("import %s: %d runs, %v", name, len(runs), err)
	}
	return strings.Split(string(raw), "\n"), runs[0]
}

// digitRe matches the digits of the figures.
var digitRe = regexp.MustCompile(`[0-9]`)

// layout masks the figures of lines (every digit becomes 9), keeping labels,
// spacing and number formats: "    total time:   3.0023s" and
// "    total time:   9.9999s" compare equal, "3.002s" and "3.0023s" do not.
func layout(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = digitRe.ReplaceAllString(l, "9")
	}
	return out
}

// sysbenchSections are the titles of sysbench 1.0's summary, in order.
var sysbenchSections = []string{"SQL statistics:", "General statistics:", "Latency (ms):", "Threads fairness:"}

// summarySections splits a summary that begins at "SQL statistics:" into its
// sections by title; a section runs to the next title, the last one to its
// first blank line (included). rest is what follows.
func summarySections(t *testing.T, lines []string) (sections map[string][]string, rest []string) {
	t.Helper()
	start := -1
	for i, l := range lines {
		if l == sysbenchSections[0] {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no %q in:\n%s", sysbenchSections[0], strings.Join(lines, "\n"))
	}
	sections = map[string][]string{}
	cur := ""
	for i := start; i < len(lines); i++ {
		l := lines[i]
		for _, s := range sysbenchSections {
			if l == s {
				cur = s
			}
		}
		sections[cur] = append(sections[cur], l)
		if cur == sysbenchSections[len(sysbenchSections)-1] && l == "" {
			return sections, lines[i+1:]
		}
	}
	return sections, nil
}

// percentilesOf are the percentiles a result's totals hold, ascending.
func percentilesOf(res *result.Result) []float64 {
	var pcts []float64
	for k := range res.Totals.Latency.Percentiles {
		p, _ := strconv.ParseFloat(k, 64)
		pcts = append(pcts, p)
	}
	sort.Float64s(pcts)
	return pcts
}

// TestSummaryLayoutMatchesSysbench holds fairbench's summary against a real
// sysbench 1.0.20 summary of the same run shape (oltp_read_write, 2 threads,
// --percentile=95, ignored errors), section by section: the figures are the
// real run's (read by the importer), the comparison is of layout — labels,
// order, column widths and the number format of each field. Whatever fairbench
// adds (ignored errors by code here) comes after sysbench's last line.
func TestSummaryLayoutMatchesSysbench(t *testing.T) {
	sbLines, res := sysbenchTranscript(t, "oltp_read_write.txt")
	if res.Totals.Counts.ErrorCount() == 0 {
		t.Fatal("the transcript should hold ignored errors, so that their line and fairbench's breakdown are both seen")
	}
	var b bytes.Buffer
	summary(&b, res, percentilesOf(res))
	fbLines := strings.Split(b.String(), "\n")
	if fbLines[0] != sysbenchSections[0] {
		t.Errorf("fairbench's summary begins with %q, sysbench's with %q", fbLines[0], sysbenchSections[0])
	}
	want, _ := summarySections(t, sbLines)
	got, rest := summarySections(t, fbLines)
	for _, s := range sysbenchSections {
		w, g := layout(want[s]), layout(got[s])
		if strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Errorf("section %q differs from sysbench 1.0.20's\n--- fairbench ---\n%s\n--- sysbench ---\n%s\n--- fairbench's figures ---\n%s",
				s, strings.Join(g, "\n"), strings.Join(w, "\n"), strings.Join(got[s], "\n"))
		}
	}
	if len(rest) == 0 || rest[0] != "Ignored errors by code:" {
		t.Errorf("after sysbench's summary fairbench prints the ignored errors by code; got %q", rest)
	}
}

// TestSummaryLayoutPercentileOff is --percentile=0: sysbench's "percentile
// stats: disabled" line, in the latency section's place.
func TestSummaryLayoutPercentileOff(t *testing.T) {
	_, res := sysbenchTranscript(t, "oltp_read_write.txt")
	var b bytes.Buffer
	summary(&b, res, nil)
	const want = "         min:                                    9.99\n" +
		"         avg:                                    9.99\n" +
		"         max:                                  999.99\n" +
		"         percentile stats:               disabled\n"
	if got := strings.Join(layout(strings.Split(b.String(), "\n")), "\n"); !strings.Contains(got, want) {
		t.Errorf("--percentile=0 latency section:\n%s\nwant it to hold\n%s", got, want)
	}
}

// TestIntervalLayoutMatchesSysbench holds fairbench's interval lines against
// a real sysbench's, figures masked: a closed-loop run, and a --rate run whose
// every interval line is followed by the queue length and concurrency line.
func TestIntervalLayoutMatchesSysbench(t *testing.T) {
	for _, name := range []string{"oltp_read_write.txt", "oltp_read_write_rate.txt"} {
		t.Run(name, func(t *testing.T) {
			sbLines, res := sysbenchTranscript(t, name)
			var want []string
			for _, l := range sbLines {
				if strings.HasPrefix(l, "[ ") {
					want = append(want, l)
				}
			}
			var b bytes.Buffer
			for _, iv := range res.Intervals {
				sysbenchout.IntervalLine(&b, iv, percentilesOf(res))
			}
			got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("%d interval lines from %d intervals, sysbench printed %d", len(got), len(res.Intervals), len(want))
			}
			if g, w := strings.Join(layout(got), "\n"), strings.Join(layout(want), "\n"); g != w {
				t.Errorf("interval lines differ from sysbench 1.0.20's\n--- fairbench ---\n%s\n--- sysbench ---\n%s", g, w)
			}
		})
	}
}

// sbHistRowRe is a row of sysbench's latency histogram: the value in 12
// columns with 3 decimals, a bar padded to 40 columns, the count.
var sbHistRowRe = regexp.MustCompile(`^[ 0-9]{7}[0-9]\.[0-9]{3} \|[* ]{40} [0-9]+$`)

// histogramRows returns the rows of the latency histogram in lines, after its
// two title lines (which must be sysbench's), up to the " " line that ends it.
func histogramRows(t *testing.T, lines []string) []string {
	t.Helper()
	for i, l := range lines {
		if l != "Latency histogram (values are in milliseconds)" {
			continue
		}
		if lines[i+1] != "       value  ------------- distribution ------------- count" {
			t.Fatalf("histogram's second line %q", lines[i+1])
		}
		for j := i + 2; j < len(lines); j++ {
			if lines[j] == " " {
				return lines[i+2 : j]
			}
		}
		t.Fatal("the histogram does not end with sysbench's \" \" line")
	}
	t.Fatalf("no latency histogram in\n%s", strings.Join(lines, "\n"))
	return nil
}

// TestHistogramLayoutMatchesSysbench prints --histogram from the HDR
// histogram the importer rebuilt from a real sysbench --histogram run: the
// same titles and row layout as sysbench's, every event counted once, the
// fullest slot 40 stars wide, slots in ascending order.
func TestHistogramLayoutMatchesSysbench(t *testing.T) {
	sbLines, res := sysbenchTranscript(t, "oltp_point_select_histogram.txt")
	for _, l := range histogramRows(t, sbLines) {
		if !sbHistRowRe.MatchString(l) {
			t.Fatalf("sysbench's row %q does not match the row pattern", l)
		}
	}
	var b bytes.Buffer
	if err := sysbenchout.Histogram(&b, res.Totals.Latency); err != nil {
		t.Fatal(err)
	}
	rows := histogramRows(t, strings.Split(b.String(), "\n"))
	var total int64
	prev, full := -1.0, false
	for _, l := range rows {
		if !sbHistRowRe.MatchString(l) {
			t.Fatalf("fairbench's row %q is not in sysbench's layout", l)
		}
		value, _ := strconv.ParseFloat(strings.TrimSpace(l[:12]), 64)
		n, _ := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
		if value <= prev {
			t.Errorf("row %q does not come after %.3f", l, prev)
		}
		prev, total = value, total+n
		full = full || strings.Count(l, "*") == 40
	}
	if total != res.Totals.Counts.Events || !full {
		t.Errorf("histogram counts %d events (want %d); a row of 40 stars: %v", total, res.Totals.Counts.Events, full)
	}
}

// TestHistogramSlots pins sysbench's slots: 0.001 ms is slot 0, 100 s the
// last, and a slot's printed value falls back in it.
func TestHistogramSlots(t *testing.T) {
	if sysbenchout.Slot(0.001) != 0 || sysbenchout.Slot(100000) != sysbenchout.HistogramSlots-1 || sysbenchout.Slot(1e-9) != 0 || sysbenchout.Slot(1e12) != sysbenchout.HistogramSlots-1 {
		t.Fatalf("slots of the ends: %d %d", sysbenchout.Slot(0.001), sysbenchout.Slot(100000))
	}
	for _, i := range []int{0, 1, 300, 511, 1023} {
		if got := sysbenchout.Slot(sysbenchout.SlotMs(i)); got != i {
			t.Errorf("slot of slot %d's value %.6f is %d", i, sysbenchout.SlotMs(i), got)
		}
	}
}

// TestHistogramAndVerbosityThroughTheCLI runs the sysbench form with
// --histogram (sysbench's histogram before the summary, counting every event)
// and with --verbosity=0 (no header, intervals or summary; the same result).
func TestHistogramAndVerbosityThroughTheCLI(t *testing.T) {
	cfg := testdb.SQLite(t)
	base := []string{"--sqlite-db=" + cfg.Path, "--table-size=200", "--threads=2", "--events=300", "--time=60", "--report-interval=1"}
	loud, quiet := filepath.Join(t.TempDir(), "loud.json"), filepath.Join(t.TempDir(), "quiet.json")
	r := runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "run", "--histogram", "-o", loud})...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	var total int64
	for _, l := range histogramRows(t, lines) {
		n, _ := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
		total += n
	}
	if h, s := strings.Index(r.stdout, "Latency histogram"), strings.Index(r.stdout, "SQL statistics:"); total != 300 || h < 0 || s < h {
		t.Fatalf("histogram counts %d of 300 events, at %d, summary at %d:\n%s", total, h, s, r.stdout)
	}
	r = runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "run", "--verbosity=0", "-o", quiet})...)
	if r.code != ExitOK || strings.TrimSpace(r.stdout) != "" {
		t.Fatalf("--verbosity=0: exit %d, stdout\n%s", r.code, r.stdout)
	}
	a, b := readResult(t, loud), readResult(t, quiet)
	if a.Totals.Counts.Events != b.Totals.Counts.Events || len(a.Intervals) == 0 || b.Totals.Latency.Histogram == nil ||
		a.Options["verbosity"] != "3" || b.Options["verbosity"] != "0" || a.Options["histogram"] != "true" {
		t.Fatalf("results differ: events %d/%d, intervals %d/%d, options %v / %v", a.Totals.Counts.Events, b.Totals.Counts.Events,
			len(a.Intervals), len(b.Intervals), a.Options, b.Options)
	}
	r = runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "run", "--verbosity=6"})...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--verbosity=6") {
		t.Fatalf("--verbosity=6: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCheckpointLayoutMatchesSysbench holds a --report-checkpoints report
// against a real sysbench's: its header line is sysbench's with
// "(cumulative)" after it (sysbench's counters restart at each checkpoint,
// fairbench's do not, and a script must be able to tell), and its summary
// is sysbench's, section by section.
func TestCheckpointLayoutMatchesSysbench(t *testing.T) {
	sbLines, _ := sysbenchTranscript(t, "oltp_point_select_checkpoints.txt")
	// The first report's figures: the transcript up to its end, read as a
	// run whose final summary it is.
	var sbHeader string
	var first []string
	for i, l := range sbLines {
		if strings.Contains(l, "Checkpoint report:") {
			sbHeader = l
			first = append(first, sbLines[:i]...)
			for _, l := range sbLines[i+1:] {
				first = append(first, l)
				if strings.Contains(l, "execution time (avg/stddev)") {
					break
				}
			}
			break
		}
	}
	runs, err := importer.Parse(strings.NewReader(strings.Join(first, "\n")+"\n"), "first.txt", importer.Options{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("import of the first report: %d runs, %v", len(runs), err)
	}
	res := runs[0]
	var b bytes.Buffer
	sysbenchout.CheckpointReport(&b, result.Checkpoint{At: 1, Phase: res.Totals}, 0, percentilesOf(res))
	fbLines := strings.Split(b.String(), "\n")
	if fbLines[0] != sbHeader+" (cumulative)" {
		t.Errorf("header %q, want sysbench's %q followed by \" (cumulative)\"", fbLines[0], sbHeader)
	}
	want, _ := summarySections(t, sbLines)
	got, _ := summarySections(t, fbLines[1:])
	for _, s := range sysbenchSections {
		if w, g := layout(want[s]), layout(got[s]); strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Errorf("section %q differs from sysbench 1.0.20's checkpoint report\n--- fairbench ---\n%s\n--- sysbench ---\n%s",
				s, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}

// TestCheckpointsThroughTheCLI runs the sysbench form with
// --report-checkpoints: a report per checkpoint, cumulative, in the output and
// the result, the last (at --time) equal to the totals; a checkpoint past
// --time is refused before anything runs.
func TestCheckpointsThroughTheCLI(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "cp.json")
	base := []string{"--sqlite-db=" + cfg.Path, "--table-size=200", "--threads=2", "--time=2"}
	r := runCLI(context.Background(), nil, join(base, []string{"--report-checkpoints=1,2", "oltp_point_select", "run", "-o", out})...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"Report checkpoint(s) at 1, 2 seconds (cumulative)", "[ 1s ] Checkpoint report: (cumulative)\nSQL statistics:",
		"[ 2s ] Checkpoint report: (cumulative)\nSQL statistics:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "SQL statistics:"); n != 3 {
		t.Errorf("%d summaries, want 2 checkpoint reports and the final one", n)
	}
	res := readResult(t, out)
	if len(res.Checkpoints) != 2 || res.Checkpoints[0].At != 1 || res.Checkpoints[1].At != 2 || res.Options["report-checkpoints"] != "1,2" {
		t.Fatalf("checkpoints %+v, option %q", res.Checkpoints, res.Options["report-checkpoints"])
	}
	first, last := res.Checkpoints[0], res.Checkpoints[1]
	if first.Counts.Events == 0 || first.Counts.Events > last.Counts.Events || last.Counts.Events != res.Totals.Counts.Events ||
		len(last.Latency.Percentiles) != len(res.Totals.Latency.Percentiles) {
		t.Errorf("checkpoint events %d, %d (percentiles %v), totals %d (%v): want cumulative, the last the totals",
			first.Counts.Events, last.Counts.Events, last.Latency.Percentiles, res.Totals.Counts.Events, res.Totals.Latency.Percentiles)
	}
	late := filepath.Join(t.TempDir(), "late.json")
	r = runCLI(context.Background(), nil, join(base, []string{"--report-checkpoints=1,5", "oltp_point_select", "run", "-o", late})...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "past --time=2") || strings.Contains(r.stdout, "Threads started") {
		t.Fatalf("checkpoint past --time: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(late); err == nil {
		t.Error("a refused run wrote a result file")
	}
}
