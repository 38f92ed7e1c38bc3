package agent

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/placement"
	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
	"github.com/fairbench/fairbench/internal/record/result"
)

// TestPlacementLabels serves the fingerprint of an agent that placed itself
// through a fake Kubernetes API (NODE_NAME set, as the DaemonSet does) or a
// fake AWS metadata service, and checks what /v1/machine says.
func TestPlacementLabels(t *testing.T) {
	api := &placementtest.KubeAPI{
		Nodes: map[string]map[string]string{
			"node-a": {"node.kubernetes.io/instance-type": "m7g.xlarge", "topology.kubernetes.io/region": "eu-west-1",
				"topology.kubernetes.io/zone": "eu-west-1a", "kubernetes.io/arch": "arm64"},
			"bare": {},
		},
		Forbidden: map[string]bool{"/api/v1/nodes/secret": true},
	}
	host, saDir := placementtest.StartKubeAPI(t, api)
	_, imds := placementtest.StartCloud(t, func(f *placementtest.Cloud) http.HandlerFunc { return f.AWS })
	inCluster := placement.InClusterConfig{ServiceAccountDir: saDir, Host: host, Timeout: 10 * time.Second}
	aws := placement.MetadataConfig{Endpoint: imds, Timeout: 10 * time.Second}
	env := func(node string) func(string) string {
		return func(k string) string { return map[string]string{"NODE_NAME": node}[k] }
	}
	tests := []struct {
		name                           string
		cfg                            placement.LookupConfig
		arch                           string // the local fingerprint's
		wantType, wantRegion, wantZone string
		wantNode, wantArch             string
		wantNote                       string // "" : no note
	}{
		{"node labels", placement.LookupConfig{InCluster: inCluster, Getenv: env("node-a")}, "",
			"m7g.xlarge", "eu-west-1", "eu-west-1a", "node-a", "arm64", ""},
		{"the fingerprint's arch wins", placement.LookupConfig{InCluster: inCluster, Getenv: env("node-a")}, "amd64",
			"m7g.xlarge", "eu-west-1", "eu-west-1a", "node-a", "amd64", ""},
		{"labels forbidden: the node is kept", placement.LookupConfig{InCluster: inCluster, Getenv: env("secret")}, "amd64",
			"", "", "", "secret", "amd64", "node secret's labels not read"},
		{"no instance type label, then AWS", placement.LookupConfig{InCluster: inCluster, Getenv: env("bare"), Cloud: placement.ProviderAWS, Metadata: aws}, "arm64",
			"c7g.2xlarge", "eu-west-1", "eu-west-1b", "bare", "arm64", "node bare has no instance-type label"},
		{"AWS outside Kubernetes", placement.LookupConfig{Getenv: env(""), Cloud: placement.ProviderAWS, Metadata: aws}, "arm64",
			"c7g.2xlarge", "eu-west-1", "eu-west-1b", "", "arm64", ""},
		{"nothing asked", placement.LookupConfig{Getenv: env("")}, "arm64", "", "", "", "", "arm64", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, Options{Machine: func() result.Machine { return result.Machine{Arch: tt.arch} }, Labels: PlacementLabels(tt.cfg)})
			m, err := (&Client{URL: start(t, s)}).Machine(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if m.InstanceType != tt.wantType || m.Region != tt.wantRegion || m.Zone != tt.wantZone || m.Node != tt.wantNode || m.Arch != tt.wantArch {
				t.Errorf("instance type %q region %q zone %q node %q arch %q; want %q %q %q %q %q",
					m.InstanceType, m.Region, m.Zone, m.Node, m.Arch, tt.wantType, tt.wantRegion, tt.wantZone, tt.wantNode, tt.wantArch)
			}
			if tt.wantNote == "" && m.Note != "" || !strings.Contains(m.Note, tt.wantNote) {
				t.Errorf("note %q, want %q", m.Note, tt.wantNote)
			}
		})
	}
}
