package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/result"
)

// writeFlushSystem writes a system of oltp_write_only at 1 and 2 threads, two
// rounds each, whose runs were judged bound (with the verdict line line(threads,
// round)); round 2 at 2 threads is measured on a busy machine when noisy, and
// every run shares the server's CPUs when shared.
func writeFlushSystem(t *testing.T, tps float64, bound string, line func(threads, round int) string, noisy, shared bool) string {
	t.Helper()
	dir := t.TempDir()
	n := 0
	for _, threads := range []int{1, 2} {
		for round := 1; round <= 2; round++ {
			others := 3.0
			if noisy && threads == 2 && round == 2 {
				others = 74.4
			}
			v := tps * float64(threads) * (1 + 0.01*float64(round))
			res := &result.Result{
				Schema: result.SchemaVersion, Tool: result.Tool{Name: "fairbench", Version: "test"},
				Workload: "oltp_write_only", Threads: threads, Status: result.StatusComplete,
				Machine: result.Machine{Arch: "x86_64", CPUModel: "Xeon", LogicalCPUs: 2},
				Target:  result.Target{Driver: "mysql", Socket: "/run/mysqld/mysqld.sock"},
				Options: map[string]string{"rand-type": "uniform", "threads": strconv.Itoa(threads)},
				Start:   time.Date(2026, 11, 27, 4, 0, n, 0, time.UTC),
				Totals:  result.Phase{Seconds: 10, TPS: v, QPS: v * 6},
				Observed: &result.Observed{Seconds: 10, Bound: bound, Verdict: line(threads, round),
					Machine: &result.ObservedMachine{CPUs: 2, OtherProcessesPct: &others}},
			}
			if shared {
				res.Notes = []string{result.SharedCPUsNote + " and used 7% of the machine: pin them apart with --client-cpus and server --cpus"}
			}
			n++
			if err := result.Write(filepath.Join(dir, fmt.Sprintf("r%02d.json", n)), res); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestReportShowsWhatLimited: each cell's verdicts, the note that the client
// shared the server's CPUs and the busy machine's mark are in the Markdown
// (golden) and HTML reports, and the compare tables mark the noisy row.
func TestReportShowsWhatLimited(t *testing.T) {
	flush1, err := analysis.Load(writeFlushSystem(t, 180, result.BoundCommit, func(threads, round int) string {
		return fmt.Sprintf("commit-bound (log flushes): 1.0%d log flushes per transaction, %d flushes/s, server machine iowait 30%%, CPUs 35%% busy; client used 5%% of the machine", round, 180*threads)
	}, false, true), "flush1")
	if err != nil {
		t.Fatal(err)
	}
	flush2, err := analysis.Load(writeFlushSystem(t, 600, result.BoundCPU, func(threads, round int) string {
		if threads == 2 && round == 2 {
			return "CPU-bound by other processes: server machine CPUs 100% busy, iowait 0%, busiest CPU 1 at 100%, mariadbd used 35% of a CPU; other processes used 74% of the machine; client used 7% of the machine"
		}
		return "CPU-bound: server machine CPUs 95% busy, iowait 0%, busiest CPU 1 at 95%, mariadbd used 150% of a CPU; client used 20% of the machine"
	}, true, false), "flush2")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build([]*analysis.System{flush1, flush2}, Options{Compare: analysis.CompareOptions{Metric: analysis.MetricTPS, Baseline: "flush1"}})
	if err != nil {
		t.Fatal(err)
	}
	var md, html bytes.Buffer
	if err := r.WriteMarkdown(&md, ""); err != nil {
		t.Fatal(err)
	}
	// The golden file holds the verdicts' block alone, which this part of
	// the report renders; the tables around it are tested elsewhere.
	text := md.String()
	from := strings.Index(text, "**"+limitsCaption+":**")
	if from < 0 {
		t.Fatalf("the Markdown report has no %q block:\n%s", limitsCaption, text)
	}
	block, _, _ := strings.Cut(text[from:], "|\n\n") // its table ends at the first blank line after a row
	checkGolden(t, "limits.md.golden", []byte(block+"|\n"))
	for _, want := range []string{"| 2 § | 365 | 1218 |", "rows marked § hold 1 run(s) measured while other processes used more than 10 % of a machine's CPUs (up to 74 %): their figures may be low — run them again on a quiet machine: " + filepath.Join(flush2.Source, "r04.json")} {
		if !strings.Contains(text, want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for _, want := range []string{
		`<details class="limits"><summary><strong>What limited the runs:</strong> commit-bound (log flushes) in 4 of 8 runs, CPU-bound in 4; 4 runs shared the server&#39;s CPUs; 1 run measured while other processes used more than 10 % of a machine&#39;s CPUs (§)</summary>`,
		"<tr><td>2</td><td>flush2</td><td>r1: CPU-bound: server machine CPUs 95% busy",
		"<br>r2: CPU-bound by other processes: server machine CPUs 100% busy, iowait 0%, busiest CPU 1 at 100%, mariadbd used 35% of a CPU; other processes used 74% of the machine; client used 7% of the machine (§ other processes used 74 % of a machine&#39;s CPUs)</td></tr>",
		"(the client shared the server&#39;s CPUs and used 7% of the machine: pin them apart with --client-cpus and server --cpus)",
		"<td>2 §</td>",
		"§: a figure of the row includes a run measured while other processes used more than 10 % of a machine&#39;s CPUs",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Contains(page, "<td>1 §</td>") {
		t.Errorf("the HTML report marks the quiet row of 1 thread")
	}
}
