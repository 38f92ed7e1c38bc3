package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/fairbench/fairbench/internal/run/setup"
	"github.com/fairbench/fairbench/internal/workload"
)

// inspectData asks the workload what data the target holds (when it can
// tell; setup.InspectData), once, before a measured run or a check: a
// mismatch it refuses exits 3 with its fix; what it found is printed on w
// and returned for the result, with the options given that the workload
// ignores among its warnings. A dry run has no data set: nothing is read
// and none recorded.
func (inv *invocation) inspectData(ctx context.Context, s *session, w io.Writer) (workload.DataReport, error) {
	rep, err := setup.InspectData(ctx, s.target, inv.wl)
	rep.Warnings = append(slices.Clone(inv.ignored), rep.Warnings...)
	switch {
	case errors.Is(err, setup.ErrInterrupted):
		return rep, withCode(ExitInterrupted, fmt.Errorf("%w: nothing was run", err))
	case err != nil:
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
