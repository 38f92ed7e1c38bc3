package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/runner"
)

// forcedShutdownFatal is sysbench's line when its --forced-shutdown alarm
// ends a run (Outcome.Forced), printed before the summary as sysbench does.
const forcedShutdownFatal = "FATAL: The --max-time limit has expired, forcing shutdown..."

// header prints the sysbench-like preamble of a run.
func header(w io.Writer, version, wl string, s *session, cfg runner.Config, seed uint64) {
	fmt.Fprintf(w, "fairbench %s (sysbench-compatible %s)\n\n", version, wl)
	fmt.Fprintf(w, "Target: %s (%s)\n", describeTarget(s.cfg), s.serverName())
	if s.cfg.DryRun {
		fmt.Fprintf(w, "Note: %s\n", measure.DryRunNote)
	}
	tlsLine(w, result.TargetOf(s.cfg, s.tls))
	if s.target != nil && s.target.Session != nil {
		fmt.Fprintf(w, "Session: %s (set on every connection)\n", s.target.Session)
		for _, n := range s.target.Session.Notes {
			fmt.Fprintf(w, "WARNING: session: %s\n", n)
		}
	}
	if s.target != nil && !s.cfg.DryRun {
		serverMachineLines(w, s.target.ServerMachines, s.target.MachineNotes())
	}
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

// serverMachineLines name the machines the database server runs on, one
// line each ("Server machine: db1 (amd64 AMD EPYC 7B13 ×2) (local, pid
// 3816 mariadbd)"; "Server machine (tikv): …" in a cluster), or say it is
// not known, and warn about what could not be read or found.
func serverMachineLines(w io.Writer, machines []result.ServerMachine, notes []string) {
	if len(machines) == 0 {
		fmt.Fprintln(w, "Server machine: not known")
	}
	for _, m := range machines {
		title := "Server machine"
		if m.Role != "" && m.Role != result.RoleServer {
			title += " (" + m.Role + ")"
		}
		where := []string{m.Source}
		if m.PID != 0 {
			where = append(where, strings.TrimSpace(fmt.Sprintf("pid %d %s", m.PID, m.Process)))
		}
		if m.InstanceType != "" {
			where = append(where, m.InstanceType)
		}
		if m.Node != "" {
			where = append(where, "node "+m.Node)
		}
		if m.Agent != "" {
			where = append(where, "agent "+m.Agent)
		}
		if m.File != "" {
			where = append(where, m.File)
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", title, analysis.DescribeMachine(m.Machine), strings.Join(where, ", "))
	}
	for _, n := range notes {
		fmt.Fprintf(w, "WARNING: server machines: %s\n", n)
	}
}

// tlsLine says whether the connections are encrypted, and warns when TLS was
// asked for and not used (result.TLSWarning); nothing for SQLite.
func tlsLine(w io.Writer, t result.Target) {
	switch {
	case t.TLS == nil:
		return
	case t.TLS.Used:
		fmt.Fprintf(w, "TLS: %s, %s\n", t.TLS.Version, t.TLS.Cipher)
	case t.TLS.Note == "":
		fmt.Fprintln(w, "TLS: not used (plain text)")
	}
	if warning := result.TLSWarning(t); warning != "" {
		fmt.Fprintf(w, "WARNING: %s\n", warning)
	}
}

// mainPercentile is the percentile shown on interval lines: 95 when asked for,
// else the largest asked for.
func mainPercentile(pcts []float64) float64 {
	for _, p := range pcts {
		if p == 95 {
			return p
		}
	}
	return pcts[len(pcts)-1]
}

// intervalLine prints one sysbench-style interval line, ending with "stall"
// when the interval lies (partly) in a stall known when it is printed, and
// the line of the --rate schedule's queue and concurrency after it in a
// --rate run.
func intervalLine(w io.Writer, iv result.Interval, pcts []float64) {
	c := iv.Counts
	per := func(n int64) float64 {
		if iv.Seconds <= 0 {
			return 0
		}
		return float64(n) / iv.Seconds
	}
	p, lat := 0.0, 0.0 // --percentile=0: sysbench prints 0% and 0.00
	if len(pcts) > 0 {
		p = mainPercentile(pcts)
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
		intervalLabel(iv.At), tag, iv.Threads, iv.TPS, iv.QPS, per(c.Reads), per(c.Writes), per(c.Others),
		result.PercentileKey(p), lat, per(c.ErrorCount()), per(c.Reconnects), stall)
	if ol := iv.OpenLoop; ol != nil { // a --rate run: sysbench's second line
		fmt.Fprintf(w, "[ %ss ]%s queue length: %d, concurrency: %d\n", intervalLabel(iv.At), tag, ol.QueueLength, ol.Concurrency)
	}
}

// intervalLabel renders the end of an interval (seconds since the start of the
// run) as sysbench does ("10"), to the millisecond: the reporter ends every
// interval exactly on the --report-interval grid, so whole-second intervals
// read "10" and half-second ones "1.5"; only a last, partial interval (an
// --events run, an interrupt) ends off the grid and shows where ("2.302").
func intervalLabel(at float64) string {
	return strconv.FormatFloat(math.Round(at*1000)/1000, 'f', -1, 64)
}

// summary prints the final report of a run: sysbench 1.0's summary, line for
// line (labels, order, widths and number formats held against a real
// sysbench's by TestSummaryLayoutMatchesSysbench), then what fairbench adds.
func summary(w io.Writer, res *result.Result, pcts []float64) {
	if res.Warmup != nil {
		wc := res.Warmup.Counts
		fmt.Fprintf(w, "Warm-up (excluded below): %.2fs, %d events, %.2f tps, %.2f qps\n\n", res.Warmup.Seconds, wc.Events, res.Warmup.TPS, res.Warmup.QPS)
	}
	unfinished := 0
	if res.Shutdown != nil {
		unfinished = res.Shutdown.Unfinished
	}
	sysbenchSummary(w, res.Totals, res.Rate, pcts, unfinished)
	fairbenchSummary(w, res, pcts)
	runNotes(w, res)
}

// checkpointReport prints one --report-checkpoints summary as sysbench
// prints its checkpoint reports ("[ 10s ] Checkpoint report:" and a summary),
// the header marked "(cumulative)": sysbench's counters restart at each
// checkpoint, fairbench's cover the measured phase from its start, and a
// script that reads the log must be able to tell.
func checkpointReport(w io.Writer, cp result.Checkpoint, rate float64, pcts []float64) {
	fmt.Fprintf(w, "[ %ss ] Checkpoint report: (cumulative)\n", intervalLabel(cp.At))
	sysbenchSummary(w, cp.Phase, rate, pcts, 0)
}

// sysbenchSummary prints sysbench 1.0's summary of phase t (sysbench.c's
// report_cumulative and oltp_common.lua's SQL statistics), ending with a blank
// line as sysbench's does. A --rate run's latency counts from each event's
// intended start; its service time follows, in the same layout. After a
// forced shutdown, sysbench's count of the events cut (unfinished) comes
// before its general statistics.
func sysbenchSummary(w io.Writer, t result.Phase, rate float64, pcts []float64, unfinished int) {
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

// fairbenchSummary prints what fairbench adds after sysbench's summary: the
// ignored errors by code, the figures per event kind and the workload's own
// figures (tpmC), each block ending with a blank line.
func fairbenchSummary(w io.Writer, res *result.Result, pcts []float64) {
	t := res.Totals
	if len(t.Counts.Errors) > 0 {
		fmt.Fprintln(w, "Ignored errors by code:")
		codes := make([]string, 0, len(t.Counts.Errors))
		for code := range t.Counts.Errors {
			codes = append(codes, code)
		}
		sort.Strings(codes)
		for _, code := range codes {
			fmt.Fprintf(w, "    %-37s%d\n", code+":", t.Counts.Errors[code])
		}
		fmt.Fprintln(w)
	}
	kindsBlock(w, t, pcts)
	for _, f := range res.Figures {
		fmt.Fprintf(w, "%-41s%.2f %s\n", f.Name+":", f.Value, f.Unit)
	}
	if len(res.Figures) > 0 {
		fmt.Fprintln(w)
	}
}

// runNotes prints what limited the run, its warnings and a status other than
// complete, each block ending with a blank line: the end of fairbench's
// summary, and all of it that go-tpc's layout keeps (on stderr).
func runNotes(w io.Writer, res *result.Result) {
	if o := res.Observed; o != nil && o.Verdict != "" {
		fmt.Fprintf(w, "What limited the run: %s\n\n", o.Verdict)
	}
	if len(res.Warnings) > 0 {
		for _, warning := range res.Warnings {
			fmt.Fprintf(w, "WARNING: %s\n", warning)
		}
		fmt.Fprintln(w)
	}
	if len(res.Notes) > 0 {
		fmt.Fprintln(w)
		for _, note := range res.Notes {
			fmt.Fprintf(w, "Note: %s\n", note)
		}
	}
	if res.Status != result.StatusComplete {
		fmt.Fprintf(w, "Status: %s", res.Status)
		if res.Error != "" {
			fmt.Fprintf(w, ": %s", res.Error)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w)
	}
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

// kindsBlock prints the per-kind breakdown of a multi-kind workload.
func kindsBlock(w io.Writer, t result.Phase, pcts []float64) {
	if len(t.Kinds) == 0 {
		return
	}
	p := mainPercentile(pcts)
	key := result.PercentileKey(p)
	fmt.Fprintf(w, "By kind:            events      per sec.  rollbacks  ign.errors   avg ms  %5s%% ms   max ms\n", key)
	for _, k := range t.Kinds {
		var errs int64
		for _, n := range k.Errors {
			errs += n
		}
		fmt.Fprintf(w, "    %-14s %10d  %12.2f  %9d  %10d %8.2f %9.2f %8.2f\n",
			k.Name, k.Events, k.TPS, k.Rollbacks, errs, k.Latency.AvgMs, k.Latency.Percentiles[key], k.Latency.MaxMs)
	}
	fmt.Fprintln(w)
}
