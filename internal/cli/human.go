package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/sysinfo"
)

// header prints the sysbench-like preamble of a run.
func header(w io.Writer, version, wl string, s *session, cfg runner.Config, seed uint64) {
	fmt.Fprintf(w, "fairbench %s (sysbench-compatible %s)\n\n", version, wl)
	fmt.Fprintf(w, "Target: %s (%s %s)\n", describeTarget(s.cfg), s.server.Flavor, s.server.Version)
	tlsLine(w, result.TargetOf(s.cfg, s.tls))
	if s.target != nil && s.target.Session != nil {
		fmt.Fprintf(w, "Session: %s (set on every connection)\n", s.target.Session)
		for _, n := range s.target.Session.Notes {
			fmt.Fprintf(w, "WARNING: session: %s\n", n)
		}
	}
	if s.target != nil {
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
	if cfg.Warmup > 0 {
		fmt.Fprintf(w, "Warm-up time: %g second(s), reported apart\n", cfg.Warmup.Seconds())
	}
	fmt.Fprintf(w, "Initializing random number generator from seed (%d).\n\n", seed)
	fmt.Fprintln(w, "Initializing worker threads...")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Threads started!")
	fmt.Fprintln(w)
}

// serverMachineLines name the machines the database server runs on, one
// line each ("Server machine: db1 (amd64 AMD EPYC 7B13 ×2) (local, pid
// 3816 mariadbd)"; "Server machine (tikv): …" in a cluster), or say it is
// not known, and warn about what could not be read or found.
func serverMachineLines(w io.Writer, machines []sysinfo.ServerMachine, notes []string) {
	if len(machines) == 0 {
		fmt.Fprintln(w, "Server machine: not known")
	}
	for _, m := range machines {
		title := "Server machine"
		if m.Role != "" && m.Role != sysinfo.RoleServer {
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

// intervalLine prints one sysbench-style interval line.
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
		lat = iv.LatencyMs[runner.PercentileKey(p)]
	}
	tag := ""
	if iv.Warmup {
		tag = " (warm-up)"
	}
	fmt.Fprintf(w, "[ %ss ]%s thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,%s%%): %.2f err/s: %.2f reconn/s: %.2f\n",
		intervalLabel(iv.At), tag, iv.Threads, iv.TPS, iv.QPS, per(c.Reads), per(c.Writes), per(c.Others),
		runner.PercentileKey(p), lat, per(c.ErrorCount()), per(c.Reconnects))
}

// intervalLabel renders the end of an interval (seconds since the start of the
// run) as sysbench does ("10"), to the millisecond: the reporter ends every
// interval exactly on the --report-interval grid, so whole-second intervals
// read "10" and half-second ones "1.5"; only a last, partial interval (an
// --events run, an interrupt) ends off the grid and shows where ("2.302").
func intervalLabel(at float64) string {
	return strconv.FormatFloat(math.Round(at*1000)/1000, 'f', -1, 64)
}

// summary prints the sysbench-like final report of a run.
func summary(w io.Writer, res *result.Result, pcts []float64) {
	t := res.Totals
	c := t.Counts
	rate := func(n int64) float64 {
		if t.Seconds <= 0 {
			return 0
		}
		return float64(n) / t.Seconds
	}
	if res.Warmup != nil {
		wc := res.Warmup.Counts
		fmt.Fprintf(w, "\nWarm-up (excluded below): %.2fs, %d events, %.2f tps, %.2f qps\n", res.Warmup.Seconds, wc.Events, res.Warmup.TPS, res.Warmup.QPS)
	}
	fmt.Fprintln(w, "\nSQL statistics:")
	fmt.Fprintln(w, "    queries performed:")
	fmt.Fprintf(w, "        %-33s%d\n", "read:", c.Reads)
	fmt.Fprintf(w, "        %-33s%d\n", "write:", c.Writes)
	fmt.Fprintf(w, "        %-33s%d\n", "other:", c.Others)
	fmt.Fprintf(w, "        %-33s%d\n", "total:", c.Queries)
	fmt.Fprintf(w, "    %-37s%-6d (%.2f per sec.)\n", "transactions:", c.Events, rate(c.Events))
	fmt.Fprintf(w, "    %-37s%-6d (%.2f per sec.)\n", "queries:", c.Queries, rate(c.Queries))
	fmt.Fprintf(w, "    %-37s%-6d (%.2f per sec.)\n", "ignored errors:", c.ErrorCount(), rate(c.ErrorCount()))
	if len(c.Errors) > 0 {
		codes := make([]string, 0, len(c.Errors))
		for code := range c.Errors {
			codes = append(codes, code)
		}
		sort.Strings(codes)
		for _, code := range codes {
			fmt.Fprintf(w, "        %-33s%d\n", code+":", c.Errors[code])
		}
	}
	fmt.Fprintf(w, "    %-37s%-6d (%.2f per sec.)\n", "reconnects:", c.Reconnects, rate(c.Reconnects))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "General statistics:")
	fmt.Fprintf(w, "    %-37s%.4fs\n", "total time:", t.Seconds)
	fmt.Fprintf(w, "    %-37s%d\n", "total number of events:", c.Events)
	fmt.Fprintln(w)
	if res.Rate > 0 {
		latencyBlock(w, "Latency from intended start (ms):", t.Latency, pcts)
		latencyBlock(w, "Service time (ms):", t.Service, pcts)
	} else {
		latencyBlock(w, "Latency (ms):", t.Latency, pcts)
	}
	kindsBlock(w, t, pcts)
	for _, f := range res.Figures {
		fmt.Fprintf(w, "%-41s%.2f %s\n", f.Name+":", f.Value, f.Unit)
	}
	if len(res.Figures) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Threads fairness:")
	fmt.Fprintf(w, "    %-31s%.4f/%.2f\n", "events (avg/stddev):", t.Fairness.EventsAvg, t.Fairness.EventsStddev)
	fmt.Fprintf(w, "    %-31s%.4f/%.2f\n", "execution time (avg/stddev):", t.Fairness.ExecSecAvg, t.Fairness.ExecSecStddev)
	runNotes(w, res)
}

// runNotes prints what limited the run, its warnings and a status other than
// complete: the end of fairbench's summary, and all of it that go-tpc's
// layout keeps (on stderr).
func runNotes(w io.Writer, res *result.Result) {
	if o := res.Observed; o != nil && o.Verdict != "" {
		fmt.Fprintf(w, "\nWhat limited the run: %s\n", o.Verdict)
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w)
		for _, warning := range res.Warnings {
			fmt.Fprintf(w, "WARNING: %s\n", warning)
		}
	}
	if res.Status != result.StatusComplete {
		fmt.Fprintf(w, "\nStatus: %s", res.Status)
		if res.Error != "" {
			fmt.Fprintf(w, ": %s", res.Error)
		}
		fmt.Fprintln(w)
	}
}

func latencyBlock(w io.Writer, title string, l result.Latency, pcts []float64) {
	fmt.Fprintln(w, title)
	row := func(name string, v float64) { fmt.Fprintf(w, "         %-22s%18.2f\n", name+":", v) }
	row("min", l.MinMs)
	row("avg", l.AvgMs)
	row("max", l.MaxMs)
	for _, p := range pcts {
		k := runner.PercentileKey(p)
		row(ordinal(k)+" percentile", l.Percentiles[k])
	}
	if len(pcts) == 0 { // --percentile=0
		fmt.Fprintf(w, "         %-22s%18s\n", "percentile stats:", "disabled")
	}
	row("sum", l.SumMs)
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
	key := runner.PercentileKey(p)
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
