package placement

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
)

func TestLookup(t *testing.T) {
	api := &placementtest.KubeAPI{
		Nodes: map[string]map[string]string{
			"labelled":   {"node.kubernetes.io/instance-type": "m7i.large", "kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": "eu-west-1a"},
			"unlabelled": {"kubernetes.io/arch": "arm64"},
			"forbidden":  {},
		},
		Forbidden: map[string]bool{"/api/v1/nodes/forbidden": true},
	}
	host, dir := placementtest.StartKubeAPI(t, api)
	inCluster := InClusterConfig{ServiceAccountDir: dir, Host: host}
	cloud, cloudURL := placementtest.StartCloud(t, func(f *placementtest.Cloud) http.HandlerFunc { return f.GCP })
	meta := MetadataConfig{Endpoint: cloudURL, Timeout: 10 * time.Second}
	gcp := Placement{InstanceType: "e2-standard-4", Region: "us-central1", Zone: "us-central1-a", Source: SourceGCP}

	tests := []struct {
		name      string
		node      string
		cloud     Provider
		want      Placement
		wantNotes []string // substrings, one per note
	}{
		{"labels", "labelled", ProviderGCP, Placement{InstanceType: "m7i.large", Arch: "amd64", Zone: "eu-west-1a", Node: "labelled", Source: SourceKubernetes}, nil},
		{"no instance-type label, cloud off", "unlabelled", ProviderOff, Placement{Arch: "arm64", Node: "unlabelled", Source: SourceKubernetes}, []string{"no instance-type label"}},
		{"no instance-type label, cloud asked", "unlabelled", ProviderGCP,
			Placement{InstanceType: gcp.InstanceType, Region: gcp.Region, Zone: gcp.Zone, Arch: "arm64", Node: "unlabelled", Source: SourceGCP}, []string{"no instance-type label"}},
		{"forbidden keeps the node name", "forbidden", ProviderOff, Placement{Node: "forbidden"}, []string{`"get" on "nodes"`}},
		{"not in Kubernetes, cloud asked", "", ProviderAuto, gcp, nil},
		{"nothing asked", "", ProviderOff, Placement{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"NODE_NAME": tt.node}
			got, notes := Lookup(context.Background(), LookupConfig{
				InCluster: inCluster, Cloud: tt.cloud, Metadata: meta,
				Getenv: func(k string) string { return env[k] },
			})
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if len(notes) != len(tt.wantNotes) {
				t.Fatalf("notes %q, want %d", notes, len(tt.wantNotes))
			}
			for i, want := range tt.wantNotes {
				if !strings.Contains(notes[i], want) {
					t.Errorf("note %q does not say %q", notes[i], want)
				}
			}
		})
	}
	before := len(cloud.Seen())
	Lookup(context.Background(), LookupConfig{InCluster: inCluster, Metadata: meta, Getenv: func(string) string { return "" }})
	if len(cloud.Seen()) != before {
		t.Error("the metadata service was asked without Cloud set")
	}
}
