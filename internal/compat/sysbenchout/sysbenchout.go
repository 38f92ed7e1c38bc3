// Package sysbenchout prints a run the way sysbench 1.0 prints one, so that
// scripts that read sysbench's output keep working with fairbench: the
// options and seed as the run starts, a line per --report-interval (and the
// queue line of a --rate run), checkpoint reports, the latency histogram of
// --histogram and the summary (SQL statistics, general statistics, latency,
// threads fairness). Labels, order, widths and number formats are
// sysbench's, held against real sysbench 1.0.20 transcripts by the CLI's
// layout tests (internal/cli/sysbench_layout_test.go). What fairbench adds
// to the summary (errors by code, event kinds, workload figures, notes) is
// the CLI's.
package sysbenchout

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/runner"
)

// ForcedShutdownFatal is sysbench's line when its --forced-shutdown alarm
// ends a run (Outcome.Forced), printed before the summary as sysbench does.
const ForcedShutdownFatal = "FATAL: The --max-time limit has expired, forcing shutdown..."

// sysbench's log levels (sb_logger.h) that --verbosity compares with: the
// header, interval lines and summary are NOTICE, warnings WARNING.
const (
	LevelWarning = 2
	LevelNotice  = 3
)

// RunStart prints what sysbench prints as a run starts, after its version
// line: the options of the run (threads, and what fairbench adds: a --rate
// schedule, the report interval and checkpoints, a warm-up), the seed, the
// forced shutdown of --forced-shutdown, and "Threads started!".
func RunStart(w io.Writer, cfg runner.Config, seed uint64) {
	fmt.Fprintln(w, "Running the test with following options:")
	fmt.Fprintf(w, "Number of threads: %d\n", cfg.Threads)
	if cfg.Rate > 0 {
		fmt.Fprintf(w, "Target transaction rate: %g/sec (open loop)\n", cfg.Rate)
	}
	if cfg.ReportInterval > 0 {
		fmt.Fprintf(w, "Report intermediate results every %g second(s)\n", cfg.ReportInterval.Seconds())
	}
	if len(cfg.Checkpoints) > 0 {
		at := make([]string, len(cfg.Checkpoints))
		for i, d := range cfg.Checkpoints {
			at[i] = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
		}
		fmt.Fprintf(w, "Report checkpoint(s) at %s seconds (cumulative)\n", strings.Join(at, ", "))
	}
	if cfg.Warmup > 0 {
		fmt.Fprintf(w, "Warm-up time: %g second(s), reported apart\n", cfg.Warmup.Seconds())
	}
	fmt.Fprintf(w, "Initializing random number generator from seed (%d).\n\n", seed)
	if d := cfg.Drain; d.Wait && !d.Unlimited {
		// sysbench counts from the threads' start: warm-up, --time, the limit.
		at := cfg.Warmup + cfg.Duration + d.Limit
		fmt.Fprintf(w, "Forcing shutdown in %s seconds\n\n", strconv.FormatFloat(at.Seconds(), 'f', -1, 64))
	}
	fmt.Fprintln(w, "Initializing worker threads...")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Threads started!")
	fmt.Fprintln(w)
}

// MainPercentile is the percentile shown on interval lines: 95 when asked for,
// else the largest asked for.
func MainPercentile(pcts []float64) float64 {
	for _, p := range pcts {
		if p == 95 {
			return p
		}
	}
	return pcts[len(pcts)-1]
}

// IntervalLine prints one sysbench-style interval line, ending with "stall"
// when the interval lies (partly) in a stall known when it is printed, and
// the line of the --rate schedule's queue and concurrency after it in a
// --rate run.
func IntervalLine(w io.Writer, iv result.Interval, pcts []float64) {
	c := iv.Counts
	per := func(n int64) float64 {
		if iv.Seconds <= 0 {
			return 0
		}
		return float64(n) / iv.Seconds
	}
	p, lat := 0.0, 0.0 // --percentile=0: sysbench prints 0% and 0.00
	if len(pcts) > 0 {
		p = MainPercentile(pcts)
		lat = iv.LatencyMs[result.PercentileKey(p)]
	}
	tag, stall := "", ""
	if iv.Warmup {
		tag = " (warm-up)"
	}
	if iv.Stall {
		stall = " stall"
	}
	fmt.Fprintf(w, "[ %ss ]%s thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,%s%%): %.2f err/s: %.2f reconn/s: %.2f%s\n",
		IntervalLabel(iv.At), tag, iv.Threads, iv.TPS, iv.QPS, per(c.Reads), per(c.Writes), per(c.Others),
		result.PercentileKey(p), lat, per(c.ErrorCount()), per(c.Reconnects), stall)
	if ol := iv.OpenLoop; ol != nil { // a --rate run: sysbench's second line
		fmt.Fprintf(w, "[ %ss ]%s queue length: %d, concurrency: %d\n", IntervalLabel(iv.At), tag, ol.QueueLength, ol.Concurrency)
	}
}

// IntervalLabel renders the end of an interval (seconds since the start of the
// run) as sysbench does ("10"), to the millisecond: the reporter ends every
// interval exactly on the --report-interval grid, so whole-second intervals
// read "10" and half-second ones "1.5"; only a last, partial interval (an
// --events run, an interrupt) ends off the grid and shows where ("2.302").
func IntervalLabel(at float64) string {
	return strconv.FormatFloat(math.Round(at*1000)/1000, 'f', -1, 64)
}

// CheckpointReport prints one --report-checkpoints summary as sysbench
// prints its checkpoint reports ("[ 10s ] Checkpoint report:" and a summary),
// the header marked "(cumulative)": sysbench's counters restart at each
// checkpoint, fairbench's cover the measured phase from its start, and a
// script that reads the log must be able to tell.
func CheckpointReport(w io.Writer, cp result.Checkpoint, rate float64, pcts []float64) {
	fmt.Fprintf(w, "[ %ss ] Checkpoint report: (cumulative)\n", IntervalLabel(cp.At))
	Summary(w, cp.Phase, rate, pcts, 0)
}

// Summary prints sysbench 1.0's summary of phase t (sysbench.c's
// report_cumulative and oltp_common.lua's SQL statistics), ending with a blank
// line as sysbench's does. A --rate run's latency counts from each event's
// intended start; its service time follows, in the same layout. After a
// forced shutdown, sysbench's count of the events cut (unfinished) comes
// before its general statistics.
func Summary(w io.Writer, t result.Phase, rate float64, pcts []float64, unfinished int) {
	c := t.Counts
	perSec := func(n int64) float64 {
		if t.Seconds <= 0 {
			return 0
		}
		return float64(n) / t.Seconds
	}
	fmt.Fprintln(w, "SQL statistics:")
	fmt.Fprintln(w, "    queries performed:")
	fmt.Fprintf(w, "        read:                            %d\n", c.Reads)
	fmt.Fprintf(w, "        write:                           %d\n", c.Writes)
	fmt.Fprintf(w, "        other:                           %d\n", c.Others)
	fmt.Fprintf(w, "        total:                           %d\n", c.Queries)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", c.Events, perSec(c.Events))
	fmt.Fprintf(w, "    queries:                             %-6d (%.2f per sec.)\n", c.Queries, perSec(c.Queries))
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", c.ErrorCount(), perSec(c.ErrorCount()))
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n", c.Reconnects, perSec(c.Reconnects))
	if unfinished > 0 {
		fmt.Fprintf(w, "\nNumber of unfinished transactions on forced shutdown: %d\n", unfinished)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "General statistics:")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", t.Seconds)
	fmt.Fprintf(w, "    total number of events:              %d\n", c.Events)
	fmt.Fprintln(w)
	if rate > 0 {
		latencyBlock(w, "Latency from intended start (ms):", t.Latency, pcts)
		latencyBlock(w, "Service time (ms):", t.Service, pcts)
	} else {
		latencyBlock(w, "Latency (ms):", t.Latency, pcts)
	}
	fmt.Fprintln(w, "Threads fairness:")
	fmt.Fprintf(w, "    events (avg/stddev):           %.4f/%3.2f\n", t.Fairness.EventsAvg, t.Fairness.EventsStddev)
	fmt.Fprintf(w, "    execution time (avg/stddev):   %.4f/%3.2f\n", t.Fairness.ExecSecAvg, t.Fairness.ExecSecStddev)
	fmt.Fprintln(w)
}

// latencyWidth is where sysbench's latency figures end: "         min: %39.2f"
// and "        %3dth percentile: %27.2f" are 53 columns wide.
const latencyWidth = 53

// latencyBlock prints a latency section in sysbench's layout: the figures
// right-aligned to column latencyWidth, a blank line after.
func latencyBlock(w io.Writer, title string, l result.Latency, pcts []float64) {
	fmt.Fprintln(w, title)
	row := func(label string, v float64) {
		fmt.Fprintf(w, "%s%*.2f\n", label, max(latencyWidth-len(label), 0), v)
	}
	row("         min: ", l.MinMs)
	row("         avg: ", l.AvgMs)
	row("         max: ", l.MaxMs)
	for _, p := range pcts {
		k := result.PercentileKey(p)
		row(fmt.Sprintf("        %5s percentile: ", ordinal(k)), l.Percentiles[k])
	}
	if len(pcts) == 0 { // --percentile=0
		fmt.Fprintln(w, "         percentile stats:               disabled")
	}
	row("         sum: ", l.SumMs)
	fmt.Fprintln(w)
}

// ordinal spells a percentile as sysbench does: 95th, 99.9th, 1st, 2nd.
func ordinal(k string) string {
	if strings.Contains(k, ".") {
		return k + "th"
	}
	switch {
	case strings.HasSuffix(k, "11"), strings.HasSuffix(k, "12"), strings.HasSuffix(k, "13"):
		return k + "th"
	case strings.HasSuffix(k, "1"):
		return k + "st"
	case strings.HasSuffix(k, "2"):
		return k + "nd"
	case strings.HasSuffix(k, "3"):
		return k + "rd"
	}
	return k + "th"
}
