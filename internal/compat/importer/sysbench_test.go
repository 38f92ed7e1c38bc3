package importer

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// The figures below are copied from the captured logs in testdata; the tests
// compare the imported results with them at the logs' precision.
func TestSysbenchRoundTrip(t *testing.T) {
	type want struct {
		workload, from                          string
		threads                                 int
		seconds                                 string // "%.4f"
		events, queries, reads, writes, others  int64
		errors                                  int64
		tps, qps                                string
		min, avg, max, sum                      string
		pct, pctValue                           string
		eventsAvg, eventsSd, execAvg, execSd    string
		intervals                               int
		firstTPS, firstQPS, firstLat, firstErrs string
	}
	cases := []struct {
		file string
		want want
	}{
		{"sysbench-1.0.20-oltp_read_write-t2.log", want{
			workload: "oltp_read_write", from: "query mix", threads: 2, seconds: "5.0042",
			events: 3774, queries: 75579, reads: 52920, writes: 15105, others: 7554, errors: 6,
			tps: "754.04", qps: "15100.55", min: "0.85", avg: "2.65", max: "24.31", sum: "9994.98",
			pct: "95", pctValue: "3.75", eventsAvg: "1887.0000", eventsSd: "23.00", execAvg: "4.9975", execSd: "0.00",
			intervals: 5, firstTPS: "714.54", firstQPS: "14343.69", firstLat: "4.10", firstErrs: "1",
		}},
		{"sysbench-1.0.20-oltp_read_write-t2-p99.log", want{
			workload: "oltp_read_write", from: "query mix", threads: 2, seconds: "3.0059",
			events: 2281, queries: 45704, reads: 32004, writes: 9133, others: 4567, errors: 5,
			tps: "758.60", qps: "15199.92", min: "0.89", avg: "2.63", max: "15.03", sum: "6002.13",
			pct: "99", pctValue: "6.67", eventsAvg: "1140.5000", eventsSd: "8.50", execAvg: "3.0011", execSd: "0.00",
			intervals: 3, firstTPS: "782.02", firstQPS: "15706.40", firstLat: "4.74", firstErrs: "2",
		}},
		{"sysbench-1.0.20-oltp_point_select-t4.log", want{
			workload: "oltp_point_select", from: "query mix", threads: 4, seconds: "3.0013",
			events: 154803, queries: 154803, reads: 154803,
			tps: "51559.40", qps: "51559.40", min: "0.02", avg: "0.08", max: "17.01", sum: "11957.30",
			pct: "95", pctValue: "0.15", eventsAvg: "38700.7500", eventsSd: "4599.82", execAvg: "2.9893", execSd: "0.00",
		}},
		{"sysbench-1.0.20-percentile0.log", want{
			workload: "oltp_write_only", from: "query mix", threads: 2, seconds: "2.0019",
			events: 5540, queries: 33260, writes: 22172, others: 11088, errors: 8,
			tps: "2766.43", qps: "16608.55", min: "0.27", avg: "0.72", max: "3.02", sum: "3998.32",
			eventsAvg: "2770.0000", eventsSd: "5.00", execAvg: "1.9992", execSd: "0.00",
			intervals: 2, firstTPS: "2869.18", firstQPS: "17228.04", firstErrs: "1",
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			rs := importFiles(t, Options{}, c.file)
			if len(rs) != 1 {
				t.Fatalf("%d results", len(rs))
			}
			r, w := rs[0], c.want
			tot := r.Totals
			eq := func(what, got, want string) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %s, log says %s", what, got, want)
				}
			}
			eq("tool", r.Tool.Name+" "+r.Tool.Version, "sysbench 1.0.20")
			eq("status", string(r.Status), "complete")
			eq("workload", r.Workload, w.workload)
			eq("workload from", r.Options[OptionImportedWorkload], w.from)
			eq("threads", r.Options["threads"], itoa(w.threads))
			eq("seconds", ftoa(tot.Seconds, 4), w.seconds)
			eq("events", itoa64(tot.Counts.Events), itoa64(w.events))
			eq("queries", itoa64(tot.Counts.Queries), itoa64(w.queries))
			eq("reads", itoa64(tot.Counts.Reads), itoa64(w.reads))
			eq("writes", itoa64(tot.Counts.Writes), itoa64(w.writes))
			eq("others", itoa64(tot.Counts.Others), itoa64(w.others))
			eq("ignored errors", itoa64(tot.Counts.ErrorCount()), itoa64(w.errors))
			eq("tps", f2(tot.TPS), w.tps)
			eq("qps", f2(tot.QPS), w.qps)
			eq("min", f2(tot.Latency.MinMs), w.min)
			eq("avg", f2(tot.Latency.AvgMs), w.avg)
			eq("max", f2(tot.Latency.MaxMs), w.max)
			eq("sum", f2(tot.Latency.SumMs), w.sum)
			eq("events avg", ftoa(tot.Fairness.EventsAvg, 4), w.eventsAvg)
			eq("events stddev", f2(tot.Fairness.EventsStddev), w.eventsSd)
			eq("exec avg", ftoa(tot.Fairness.ExecSecAvg, 4), w.execAvg)
			eq("exec stddev", f2(tot.Fairness.ExecSecStddev), w.execSd)
			if w.pct == "" {
				if len(tot.Latency.Percentiles) != 0 || r.Options["percentile"] != "" {
					t.Errorf("percentiles %v, option %q: the log printed none", tot.Latency.Percentiles, r.Options["percentile"])
				}
			} else {
				if len(tot.Latency.Percentiles) != 1 {
					t.Errorf("percentiles %v: the log printed one", tot.Latency.Percentiles)
				}
				eq("percentile", f2(tot.Latency.Percentiles[w.pct]), w.pctValue)
				eq("percentile option", r.Options["percentile"], w.pct)
			}
			if tot.Latency.Histogram != nil || !missing(r)["histogram"] {
				t.Errorf("histogram %v, missing %q: the log has none", tot.Latency.Histogram, r.Options[OptionImportedMissing])
			}
			if tot.Service.SumMs != tot.Latency.SumMs {
				t.Errorf("service %+v: without --rate it is the latency", tot.Service)
			}
			if w.errors > 0 && tot.Counts.Errors[ErrorCodeUnknown] != w.errors {
				t.Errorf("errors %v", tot.Counts.Errors)
			}
			if len(r.Intervals) != w.intervals {
				t.Fatalf("%d intervals, log has %d", len(r.Intervals), w.intervals)
			}
			if w.intervals == 0 {
				if _, ok := r.Options["report-interval"]; ok {
					t.Error("report-interval recorded without intervals")
				}
				return
			}
			eq("report-interval", r.Options["report-interval"], "1")
			iv := r.Intervals[0]
			eq("interval at", ftoa(iv.At, 0), "1")
			eq("interval seconds", ftoa(iv.Seconds, 0), "1")
			eq("interval threads", itoa(iv.Threads), itoa(w.threads))
			eq("interval tps", f2(iv.TPS), w.firstTPS)
			eq("interval qps", f2(iv.QPS), w.firstQPS)
			eq("interval errors", itoa64(iv.Counts.ErrorCount()), w.firstErrs)
			if w.firstLat != "" {
				eq("interval latency", f2(iv.LatencyMs[w.pct]), w.firstLat)
			} else if len(iv.LatencyMs) != 0 {
				t.Errorf("interval latency %v with percentiles disabled", iv.LatencyMs)
			}
			// Interval counts are the printed rates × the interval, as whole events.
			if got, want := iv.Counts.Events, int64(math.Round(iv.TPS)); got != want {
				t.Errorf("interval events %d, want %d", got, want)
			}
			if d := iv.Counts.Reads + iv.Counts.Writes + iv.Counts.Others - iv.Counts.Queries; d < -1 || d > 1 {
				t.Errorf("interval r/w/o %+v do not add up to the queries", iv.Counts)
			}
			for i := 1; i < len(r.Intervals); i++ {
				if r.Intervals[i].At <= r.Intervals[i-1].At {
					t.Errorf("interval %d at %v after %v", i, r.Intervals[i].At, r.Intervals[i-1].At)
				}
			}
			if !missing(r)["interval-max"] || !missing(r)["start-end"] || !missing(r)["seed"] {
				t.Errorf("missing %q", r.Options[OptionImportedMissing])
			}
		})
	}
}

func TestSysbenchHistogram(t *testing.T) {
	r := importFiles(t, Options{}, "sysbench-1.0.20-histogram.log")[0]
	if missing(r)["histogram"] {
		t.Errorf("histogram listed as missing: %s", r.Options[OptionImportedMissing])
	}
	h, err := r.Totals.Latency.Histogram.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != 761 || r.Totals.Counts.Events != 761 {
		t.Errorf("histogram holds %d events, summary %d; log: 761", h.TotalCount(), r.Totals.Counts.Events)
	}
	// Bucket values: the lowest 1.637 ms, the highest 11.446 ms.
	if lo, hi := float64(h.Min())/1000, float64(h.Max())/1000; math.Abs(lo-1.637) > 0.002 || math.Abs(hi-11.446) > 0.012 {
		t.Errorf("histogram from %.3f to %.3f ms, log's buckets from 1.637 to 11.446", lo, hi)
	}
	// sysbench's 95th percentile came from the same buckets.
	if p95 := float64(h.ValueAtQuantile(95)) / 1000; math.Abs(p95-r.Totals.Latency.Percentiles["95"]) > 0.02*3.62 {
		t.Errorf("histogram p95 %.3f ms, log's 95th percentile %.2f", p95, r.Totals.Latency.Percentiles["95"])
	}
	if r.Totals.Service.Histogram == nil {
		t.Error("service histogram missing: without --rate it is the latency's")
	}
}

// TestFairbenchCumulativeCheckpoints: fairbench's checkpoint reports are
// cumulative and say so; a log of them is not read as sysbench's resets — the
// final summary alone is the run.
func TestFairbenchCumulativeCheckpoints(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "sysbench-1.0.20-rate-checkpoints.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := strings.ReplaceAll(string(raw), "Checkpoint report:", "Checkpoint report: (cumulative)")
	runs, err := Parse(strings.NewReader(log), "fairbench.log", Options{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	if got := runs[0].Totals.Counts.Events; got != 380 { // the final summary's, not 381 + 380
		t.Errorf("events %d, want the final summary's 380", got)
	}
}

func TestSysbenchRateAndCheckpoints(t *testing.T) {
	r := importFiles(t, Options{}, "sysbench-1.0.20-rate-checkpoints.log")[0]
	tot := r.Totals
	// Two reports (checkpoint at 2 s, final), sysbench resets its counters at
	// each: the run is their sum.
	checks := []struct{ what, got, want string }{
		{"workload", r.Workload, "oltp_read_only"},
		{"events", itoa64(tot.Counts.Events), "761"},             // 381 + 380
		{"queries", itoa64(tot.Counts.Queries), "12176"},         // 6103 + 6073
		{"reads", itoa64(tot.Counts.Reads), "10654"},             // 5340 + 5314
		{"others", itoa64(tot.Counts.Others), "1522"},            // 763 + 759
		{"seconds", ftoa(tot.Seconds, 4), "4.0107"},              // total time counts from the start
		{"tps", f2(tot.TPS), f2(761 / 4.0107)},                   // over the whole run
		{"min", f2(tot.Latency.MinMs), "0.60"},                   // min(0.60, 0.68)
		{"max", f2(tot.Latency.MaxMs), "8.51"},                   // max(2.88, 8.51)
		{"sum", f2(tot.Latency.SumMs), "1000.07"},                // 497.11 + 502.96
		{"events avg", ftoa(tot.Fairness.EventsAvg, 1), "380.5"}, // 191 + 189.5
		{"rate", ftoa(r.Rate, 0), "200"},
		{"seed", itoa64(int64(r.Seed)), "42"},
		{"rand-seed", r.Options["rand-seed"], "42"},
		{"rate option", r.Options["rate"], "200"},
		{"checkpoints", r.Options["report-checkpoints"], "2"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.what, c.got, c.want)
		}
	}
	if len(tot.Latency.Percentiles) != 0 {
		t.Errorf("percentiles %v: two reports' percentiles do not combine", tot.Latency.Percentiles)
	}
	if tot.Service.SumMs != 0 {
		t.Errorf("service %+v: with --rate sysbench prints no service time", tot.Service)
	}
	m := missing(r)
	for _, k := range []string{"service", "percentiles", "fairness-stddev", "histogram"} {
		if !m[k] {
			t.Errorf("%s not listed as missing: %s", k, r.Options[OptionImportedMissing])
		}
	}
	if m["seed"] {
		t.Error("seed listed as missing although the log prints it")
	}
	// The "queue length" lines are not intervals.
	if len(r.Intervals) != 4 || r.Intervals[1].At != 2 || f2(r.Intervals[1].TPS) != "180.88" {
		t.Errorf("intervals %+v", r.Intervals)
	}
}

func TestSysbenchMultiRun(t *testing.T) {
	files := []string{"sysbench-1.0.20-oltp_read_write-t2.log", "sysbench-1.0.20-oltp_read_write-t2-p99.log", "sysbench-1.0.20-oltp_point_select-t4.log"}
	text := fixture(t, files...)
	rs := importText(t, text, "loop.log", Options{})
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	wantTPS := []string{"754.04", "758.60", "51559.40"}
	wantThreads := []int{2, 2, 4}
	lines := strings.Split(string(text), "\n")
	for i, r := range rs {
		if f2(r.Totals.TPS) != wantTPS[i] || r.Threads != wantThreads[i] {
			t.Errorf("run %d: tps %.2f threads %d, want %s and %d", i+1, r.Totals.TPS, r.Threads, wantTPS[i], wantThreads[i])
		}
		n := atoi(t, r.Options[OptionImportedLine])
		if !strings.HasPrefix(lines[n-1], "sysbench 1.0.20") {
			t.Errorf("run %d begins at line %d: %q, not at its version line", i+1, n, lines[n-1])
		}
		if r.Options[OptionImportedFrom] != "loop.log" {
			t.Errorf("run %d from %q", i+1, r.Options[OptionImportedFrom])
		}
	}
	if !(rs[0].Options["percentile"] == "95" && rs[1].Options["percentile"] == "99") {
		t.Errorf("percentiles %q %q", rs[0].Options["percentile"], rs[1].Options["percentile"])
	}
	if len(rs[0].Intervals) != 5 || len(rs[1].Intervals) != 3 || len(rs[2].Intervals) != 0 {
		t.Errorf("intervals %d %d %d: a run's intervals must not leak into the next", len(rs[0].Intervals), len(rs[1].Intervals), len(rs[2].Intervals))
	}
}

func TestSysbenchPrepareGivesDataSet(t *testing.T) {
	r := importFiles(t, Options{}, "sysbench-1.0.20-prepare.log", "sysbench-1.0.20-oltp_read_write-t2.log")[0]
	if r.Options["tables"] != "2" || r.Options["table-size"] != "1000" {
		t.Errorf("options %v: the prepare output says 2 tables of 1000 rows", r.Options)
	}
}

func TestSysbenchEchoedCommand(t *testing.T) {
	echo := "$ sysbench oltp_point_select --mysql-host=db1 --mysql-password=s3cret --tables=2 --table-size=1000 --threads=4 --time=3 --rand-type=uniform run 2>&1 | tee ps.log\n"
	text := append([]byte(echo), fixture(t, "sysbench-1.0.20-oltp_point_select-t4.log")...)
	r := importText(t, text, "ps.log", Options{Workload: "ignored: the log names it"})[0]
	if r.Workload != "oltp_point_select" || r.Options[OptionImportedWorkload] != "log" {
		t.Errorf("workload %q from %q", r.Workload, r.Options[OptionImportedWorkload])
	}
	for k, v := range map[string]string{"time": "3", "rand-type": "uniform", "tables": "2", "mysql-host": "db1", "mysql-password": "***", "threads": "4"} {
		if r.Options[k] != v {
			t.Errorf("option %s = %q, want %q", k, r.Options[k], v)
		}
	}
	cl := strings.Join(r.CommandLine, " ")
	if strings.Contains(cl, "s3cret") || !strings.Contains(cl, "--mysql-password=***") || strings.Contains(cl, "tee") {
		t.Errorf("command line %q", cl)
	}
	if !strings.HasPrefix(cl, "sysbench oltp_point_select") {
		t.Errorf("command line %q", cl)
	}
}

func TestSysbenchWorkloadGiven(t *testing.T) {
	r := importFiles(t, Options{Workload: "oltp_read_only"}, "sysbench-1.0.20-oltp_read_write-t2.log")[0]
	if r.Workload != "oltp_read_only" || r.Options[OptionImportedWorkload] != "options" {
		t.Errorf("workload %q from %q: the user's word wins over inference", r.Workload, r.Options[OptionImportedWorkload])
	}
}

func TestInferSysbenchWorkload(t *testing.T) {
	cases := []struct {
		c    result.Counters
		want string
	}{
		{result.Counters{Events: 100, Reads: 100}, "oltp_point_select"},
		{result.Counters{Events: 100, Reads: 1400, Others: 200}, "oltp_read_only"},
		{result.Counters{Events: 100, Reads: 1401, Writes: 400, Others: 200}, "oltp_read_write"},
		{result.Counters{Events: 100, Writes: 400, Others: 201}, "oltp_write_only"},
		{result.Counters{Events: 100, Writes: 100}, ""}, // update_index, update_non_index, insert: alike
		{result.Counters{Events: 100, Reads: 1000, Others: 200}, ""},
		{result.Counters{}, ""},
	}
	for _, c := range cases {
		if got := inferSysbenchWorkload(&result.Result{Totals: result.Phase{Counts: c.c}}); got != c.want {
			t.Errorf("infer(%+v) = %q, want %q", c.c, got, c.want)
		}
	}
}

func TestSysbenchKeepIncomplete(t *testing.T) {
	text := fixture(t, "sysbench-1.0.20-fatal.log", "sysbench-1.0.20-oltp_read_write-t2.log")
	rs := importText(t, text, "loop.log", Options{KeepIncomplete: true})
	if len(rs) != 2 {
		t.Fatalf("%d results", len(rs))
	}
	failed, ok := rs[0], rs[1]
	if failed.Status != result.StatusFailed || !strings.Contains(failed.Error, "1146") || failed.Threads != 2 || failed.Totals.Counts.Events != 0 {
		t.Errorf("failed run: status %s error %q threads %d events %d", failed.Status, failed.Error, failed.Threads, failed.Totals.Counts.Events)
	}
	if ok.Status != result.StatusComplete || ok.Totals.Counts.Events != 3774 {
		t.Errorf("second run: %s, %d events", ok.Status, ok.Totals.Counts.Events)
	}
}

func itoa(v int) string     { return strconv.Itoa(v) }
func itoa64(v int64) string { return strconv.FormatInt(v, 10) }
func ftoa(v float64, decimals int) string {
	return strconv.FormatFloat(v, 'f', decimals, 64)
}
func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// A sysbench log that shows no --rand-type ran with its version's default,
// which is recorded as such; without a known version it is unknown, and the
// result says so.
func TestSysbenchRandTypeDefault(t *testing.T) {
	log := string(fixture(t, "sysbench-1.0.20-oltp_point_select-t4.log"))
	header, body, _ := strings.Cut(log, "\n")
	if !strings.HasPrefix(header, "sysbench 1.0.20 (") {
		t.Fatalf("fixture header %q", header)
	}
	specials := "rand-spec-iter,rand-spec-pct,rand-spec-res,rand-type"
	for _, tc := range []struct {
		name     string
		text     string
		opts     Options
		randType string
		defaults string // imported-defaults
		warning  string // in Warnings; "" for none
	}{
		{"1.0 header", log, Options{}, "special", specials, ""},
		{"1.1 header", "sysbench 1.1.0-2b8e5d4 (using bundled LuaJIT 2.1.0-beta3)\n" + body, Options{}, "uniform", "rand-type", ""},
		{"echoed command", "$ sysbench oltp_point_select --rand-type=uniform --threads=4 run\n" + log, Options{}, "uniform", "", ""},
		{"echoed pareto", "$ sysbench oltp_point_select --rand-type=pareto --threads=4 run\n" + log, Options{}, "pareto", "rand-pareto-h", ""},
		{"set by the user", body, Options{Settings: map[string]string{"rand-type": "special"}}, "special", "rand-spec-iter,rand-spec-pct,rand-spec-res", ""},
		{"version given", body, Options{ToolVersion: "1.0.17"}, "special", specials, ""},
		{"no version", body, Options{}, "", "", "--set rand-type="},
		{"unknown version", "sysbench 2.0.1 (using bundled LuaJIT 2.1.0-beta3)\n" + body, Options{}, "", "", "sysbench 2.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := importText(t, []byte(tc.text), "ps.log", tc.opts)[0]
			if got := r.Options["rand-type"]; got != tc.randType {
				t.Errorf("rand-type %q, want %q", got, tc.randType)
			}
			if got := r.Options[OptionImportedDefaults]; got != tc.defaults {
				t.Errorf("imported-defaults %q, want %q", got, tc.defaults)
			}
			if tc.randType == "special" && r.Options["rand-spec-res"] != "75" {
				t.Errorf("rand-spec-res %q: the special distribution's default is 75", r.Options["rand-spec-res"])
			}
			if tc.warning == "" {
				if len(r.Warnings) > 0 || missing(r)["rand-type"] {
					t.Errorf("warnings %q, missing %q: none expected", r.Warnings, r.Options[OptionImportedMissing])
				}
				return
			}
			if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], tc.warning) || !strings.HasPrefix(r.Warnings[0], "ps.log:") {
				t.Errorf("warnings %q, want one naming the log and saying %q", r.Warnings, tc.warning)
			}
			if !missing(r)["rand-type"] {
				t.Errorf("rand-type not listed as missing: %q", r.Options[OptionImportedMissing])
			}
		})
	}
}
