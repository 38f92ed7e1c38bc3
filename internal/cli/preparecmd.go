package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// prepare is `fairbench prepare WORKLOAD`.
func (inv *invocation) prepare(cmd *cobra.Command) error {
	if inv.prep.threads < 1 {
		return usageErrorf("--threads must be at least 1, got %d", inv.prep.threads)
	}
	if _, err := inv.rnd.factory(time.Now); err != nil {
		return withCode(ExitUsage, err)
	}
	s, err := inv.openSession(cmd.Context())
	if err != nil {
		return err
	}
	defer s.close()
	w := inv.app.Stdout
	fmt.Fprintf(w, "fairbench %s: preparing %s on %s (%s %s)\n\n", inv.app.Version, inv.spec.Name, describeTarget(s.cfg), s.server.Flavor, s.server.Version)
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
