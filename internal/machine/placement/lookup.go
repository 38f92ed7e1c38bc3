package placement

import (
	"context"
	"fmt"
	"os"
)

// LookupConfig says where Lookup looks. The zero value looks at nothing
// but the NODE_NAME variable.
type LookupConfig struct {
	// NodeNameEnv names the variable holding the Kubernetes node's name
	// (DefaultNodeNameEnv when empty). When it is set, the node's labels
	// are read through the API server.
	NodeNameEnv string
	// InCluster locates the API server and the service account.
	InCluster InClusterConfig
	// Cloud is the instance metadata service to ask when the node's labels
	// give no instance type (ProviderOff, the default: none).
	Cloud    Provider
	Metadata MetadataConfig
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
}

// Lookup finds the placement of the machine it runs on, for the agent at
// start: the Kubernetes node's labels when the node name variable is set,
// else (or when they give no instance type) the cloud's instance metadata
// when cfg.Cloud asks for it. It never fails: what could not be read is
// said in notes, one sentence each, for the agent's ServerMachine.Note. The
// node name is kept even when its labels cannot be read, since discovery
// needs it.
func Lookup(ctx context.Context, cfg LookupConfig) (p Placement, notes []string) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if cfg.InCluster.Getenv == nil {
		cfg.InCluster.Getenv = getenv
	}
	env := cfg.NodeNameEnv
	if env == "" {
		env = DefaultNodeNameEnv
	}
	if node := getenv(env); node != "" {
		p = Placement{Node: node}
		k, err := NewInCluster(cfg.InCluster)
		if err == nil {
			var labels Placement
			if labels, err = k.NodePlacement(ctx, node); err == nil {
				p = labels
			}
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("node %s's labels not read: %v", node, err))
		} else if p.InstanceType == "" {
			notes = append(notes, fmt.Sprintf("node %s has no instance-type label", node))
		}
	}
	if p.InstanceType != "" || cfg.Cloud == ProviderOff || cfg.Cloud == "" {
		return p, notes
	}
	cloud, err := CloudMetadata(ctx, cfg.Cloud, cfg.Metadata)
	if err != nil {
		return p, append(notes, err.Error())
	}
	cloud.Node = p.Node
	if cloud.Arch == "" {
		cloud.Arch = p.Arch
	}
	return cloud, notes
}
