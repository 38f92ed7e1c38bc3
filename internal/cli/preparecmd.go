package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/workload"
)

// prepare is `fairbench prepare WORKLOAD`.
func (inv *invocation) prepare(cmd *cobra.Command) error {
	if _, err := inv.rnd.factory(time.Now); err != nil {
		return withCode(ExitUsage, err)
	}
	w := inv.app.Stdout
	if ex, ok := inv.wl.(workload.Exporter); ok && ex.Exports() {
		// Files instead of a load: no connection, nothing created but them.
		s, err := inv.exportSession()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "fairbench %s: writing %s as files for %s (no connection made)\n\n", inv.app.Version, inv.spec.Name, s.cfg.Kind)
		return inv.load(cmd.Context(), s, w, inv.prep.threads, inv.prep.replace)
	}
	s, err := inv.openSession(cmd.Context())
	if err != nil {
		return err
	}
	defer s.close()
	if inv.app.pgbench != nil {
		return inv.pgbenchInit(cmd.Context(), s)
	}
	fmt.Fprintf(w, "fairbench %s: preparing %s on %s (%s)\n\n", inv.app.Version, inv.spec.Name, describeTarget(s.cfg), s.serverName())
	return inv.load(cmd.Context(), s, w, inv.prep.threads, inv.prep.replace)
}

// cleanup is `fairbench cleanup WORKLOAD`.
func (inv *invocation) cleanup(cmd *cobra.Command) error {
	s, err := inv.openSession(cmd.Context())
	if err != nil {
		return err
	}
	defer s.close()
	if err := inv.wl.Cleanup(cmd.Context(), s.drv, inv.app.Stdout); err != nil {
		return withCode(ExitTarget, fmt.Errorf("cleanup %s on %s: %w", inv.spec.Name, describeTarget(s.cfg), err))
	}
	return nil
}

// checkData is `fairbench check WORKLOAD`: every consistency condition, one line
// each, exit 4 when any fails.
func (inv *invocation) checkData(cmd *cobra.Command) error {
	checker, ok := inv.wl.(workload.Checker)
	if !ok {
		return usageErrorf("%s has no consistency check (tpcc has one)", inv.spec.Name)
	}
	s, err := inv.openSession(cmd.Context())
	if err != nil {
		return err
	}
	defer s.close()
	w := inv.app.Stdout
	fmt.Fprintf(w, "Checking %s on %s (%s)\n\n", inv.spec.Name, describeTarget(s.cfg), s.serverName())
	if _, err := inv.inspectData(cmd.Context(), s, w); err != nil {
		return err
	}
	start := time.Now()
	results, err := checker.Check(cmd.Context(), s.drv, workload.CheckOptions{All: inv.check.all, Threads: inv.check.threads})
	if err != nil {
		if isInterrupted(cmd.Context(), err) {
			return withCode(ExitInterrupted, fmt.Errorf("check interrupted"))
		}
		return withCode(ExitTarget, fmt.Errorf("check %s on %s: %w", inv.spec.Name, describeTarget(s.cfg), err))
	}
	failed := printCheck(w, results)
	fmt.Fprintf(w, "\n%s in %.2fs: ", checkedCount(results), time.Since(start).Seconds())
	if failed > 0 {
		fmt.Fprintf(w, "%d FAILED%s\n", failed, skippedNote(results))
		return withCode(ExitConsistency, fmt.Errorf("%d consistency condition(s) failed", failed))
	}
	fmt.Fprintf(w, "all passed%s\n", skippedNote(results))
	return nil
}

// checkedCount says how many conditions ran: "12 conditions checked", or "11
// of 12 conditions checked" when some were skipped.
func checkedCount(results []workload.CheckResult) string {
	ran := 0
	for _, r := range results {
		if r.Skipped == "" {
			ran++
		}
	}
	if ran == len(results) {
		return fmt.Sprintf("%d conditions checked", ran)
	}
	return fmt.Sprintf("%d of %d conditions checked", ran, len(results))
}

// skippedNote names the skipped conditions and why ("; condition 11 not
// checked: …"), empty when none was skipped.
func skippedNote(results []workload.CheckResult) string {
	var s string
	for _, r := range results {
		if r.Skipped != "" {
			s += fmt.Sprintf("; condition %d not checked: %s", r.ID, r.Skipped)
		}
	}
	return s
}

// printCheck prints one line per condition (and its first offending rows) and
// returns how many failed.
func printCheck(w io.Writer, results []workload.CheckResult) (failed int) {
	for _, r := range results {
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "[%2d] %-58s skipped: %s\n", r.ID, r.Name, r.Skipped)
		case r.Passed:
			fmt.Fprintf(w, "[%2d] %-58s passed (%.2fs)\n", r.ID, r.Name, r.Duration.Seconds())
		default:
			failed++
			fmt.Fprintf(w, "[%2d] %-58s FAILED: %d violation(s) (%.2fs)\n", r.ID, r.Name, r.Violations, r.Duration.Seconds())
			for _, ex := range r.Examples {
				fmt.Fprintf(w, "       %s\n", ex)
			}
		}
	}
	return failed
}
