package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/fairbench/fairbench/internal/workload"
)

// inspectData asks the workload what data the target holds (when it can
// tell), once, before a measured run or a check: a mismatch it refuses exits
// 3 with its fix; what it found is printed on w and returned for the result,
// with the options given that the workload ignores among its warnings.
// A dry run has no data set: nothing is read and none recorded.
func (inv *invocation) inspectData(ctx context.Context, s *session, w io.Writer) (workload.DataReport, error) {
	var rep workload.DataReport
	var err error
	if !s.cfg.DryRun {
		rep, err = workload.InspectData(ctx, s.drv, inv.wl)
	}
	rep.Warnings = append(slices.Clone(inv.ignored), rep.Warnings...)
	if err != nil {
		if isInterrupted(ctx, err) {
			return rep, withCode(ExitInterrupted, fmt.Errorf("interrupted while reading the data set: nothing was run"))
		}
		return rep, withCode(ExitTarget, fmt.Errorf("%s on %s: %w", inv.spec.Name, describeTarget(s.cfg), err))
	}
	printDataReport(w, rep)
	return rep, nil
}

// printDataReport prints the data set found and the warnings about it.
func printDataReport(w io.Writer, rep workload.DataReport) {
	rep.Print(w, "", true)
	if len(rep.Checks)+len(rep.Warnings) > 0 {
		fmt.Fprintln(w)
	}
}
