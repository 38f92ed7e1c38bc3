package agent

import (
	"context"

	"github.com/fairbench/fairbench/internal/machine/placement"
)

// PlacementLabels is an Options.Labels that asks placement.Lookup at start:
// the Kubernetes node's labels when the node name variable (NODE_NAME) is
// set, and the cloud's instance metadata when cfg.Cloud asks for it. It
// never fails: what could not be read comes back as notes.
func PlacementLabels(cfg placement.LookupConfig) func(context.Context) (Labels, error) {
	return func(ctx context.Context) (Labels, error) {
		p, notes := placement.Lookup(ctx, cfg)
		return Labels{InstanceType: p.InstanceType, Region: p.Region, Zone: p.Zone, Node: p.Node, Arch: p.Arch, Notes: notes}, nil
	}
}
