package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/run/warmup"
	"github.com/fairbench/fairbench/internal/workload"
)

// warmData is `fairbench warmup WORKLOAD`: the checksum warm-up of the
// workload's tables, as a suite's checksum_warmup step runs it.
func (inv *invocation) warmData(cmd *cobra.Command) error {
	ds, ok := inv.wl.(workload.Dataset)
	if !ok {
		return usageErrorf("%s does not name its tables, so fairbench cannot warm them", inv.spec.Name)
	}
	s, err := inv.openSession(cmd.Context())
	if err != nil {
		return err
	}
	defer s.close()
	w := inv.app.Stdout
	fmt.Fprintf(w, "Warming %s on %s (%s)\n", inv.spec.Name, describeTarget(s.cfg), s.serverName())
	prog := warmup.NewProgress()
	log, stop := inv.showProgress(cmd.Context(), w, prog.Line)
	rep, err := warmup.Run(cmd.Context(), s.drv, s.server, ds.Tables(), inv.warm.threads, log, prog)
	stop()
	switch {
	case err != nil && isInterrupted(cmd.Context(), err):
		return withCode(ExitInterrupted, fmt.Errorf("warm-up interrupted"))
	case err != nil:
		return withCode(ExitTarget, fmt.Errorf("warm-up of %s on %s: %w", inv.spec.Name, describeTarget(s.cfg), err))
	}
	fmt.Fprintln(w, rep.String())
	return nil
}
