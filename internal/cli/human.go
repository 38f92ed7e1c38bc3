package cli

// The human output of a run: fairbench's preamble and what it adds to
// sysbench's summary, around sysbench's own layouts (compat/sysbenchout).

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/compat/sysbenchout"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/runner"
)

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
	sysbenchout.RunStart(w, cfg, seed)
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

// summary prints the final report of a run: sysbench 1.0's summary, line for
// line (sysbenchout.Summary: labels, order, widths and number formats held
// against a real sysbench's by TestSummaryLayoutMatchesSysbench), then what
// fairbench adds.
func summary(w io.Writer, res *result.Result, pcts []float64) {
	if res.Warmup != nil {
		wc := res.Warmup.Counts
		fmt.Fprintf(w, "Warm-up (excluded below): %.2fs, %d events, %.2f tps, %.2f qps\n\n", res.Warmup.Seconds, wc.Events, res.Warmup.TPS, res.Warmup.QPS)
	}
	unfinished := 0
	if res.Shutdown != nil {
		unfinished = res.Shutdown.Unfinished
	}
	sysbenchout.Summary(w, res.Totals, res.Rate, pcts, unfinished)
	fairbenchSummary(w, res, pcts)
	runNotes(w, res)
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

// kindsBlock prints the per-kind breakdown of a multi-kind workload.
func kindsBlock(w io.Writer, t result.Phase, pcts []float64) {
	if len(t.Kinds) == 0 {
		return
	}
	p := sysbenchout.MainPercentile(pcts)
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
