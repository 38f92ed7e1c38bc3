package placement

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
)

func TestParseService(t *testing.T) {
	tests := []struct {
		in   string
		name string
		port int
		err  string
	}{
		{"fairbench-agent", "fairbench-agent", DefaultAgentPort, ""},
		{"fairbench-agent.bench.svc.cluster.local:9107", "fairbench-agent.bench.svc.cluster.local", 9107, ""},
		{"agents.:1", "agents.", 1, ""},
		{"", "", 0, "no Service name"},
		{":9901", "", 0, "no Service name"},
		{"agents:0", "", 0, "from 1 to 65535"},
		{"agents:65536", "", 0, "from 1 to 65535"},
		{"agents:x", "", 0, "from 1 to 65535"},
		{"Agents", "", 0, "not a Service's DNS name"},
		{"http://agents", "", 0, "from 1 to 65535"},
		{"a..b", "", 0, "not a Service's DNS name"},
		{"10.0.0.1", "", 0, "not a Service's DNS name"},
		{"-agents", "", 0, "not a Service's DNS name"},
		{strings.Repeat("a", 64), "", 0, "not a Service's DNS name"},
	}
	for _, tt := range tests {
		name, port, err := ParseService(tt.in)
		if tt.err == "" {
			if err != nil || name != tt.name || port != tt.port {
				t.Errorf("ParseService(%q) = %q, %d, %v; want %q, %d", tt.in, name, port, err, tt.name, tt.port)
			}
		} else if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseService(%q) = %q, %d, %v; want an error with %q", tt.in, name, port, err, tt.err)
		}
	}
}

func TestCheckSelectorAndNamespace(t *testing.T) {
	for _, ok := range []string{"app=db", "app.kubernetes.io/name=mariadb,tier!=cache", "env in (a, b)", "!canary"} {
		if err := CheckSelector(ok); err != nil {
			t.Errorf("CheckSelector(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", " ", " app=db", "app=db\n", "app=\x00", strings.Repeat("a", maxSelector+1), "app=\xff"} {
		if err := CheckSelector(bad); err == nil {
			t.Errorf("CheckSelector(%q) accepted it", bad)
		}
	}
	for _, ok := range []string{"bench", "a", "team-1"} {
		if err := CheckNamespace(ok); err != nil {
			t.Errorf("CheckNamespace(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Bench", "a.b", "-a", strings.Repeat("a", 64)} {
		if err := CheckNamespace(bad); err == nil {
			t.Errorf("CheckNamespace(%q) accepted it", bad)
		}
	}
}

// TestDiscoverAgentsDefaultNamespace: without a namespace discovery lists
// the pods of the pod's own (the service account's namespace file), and
// refuses when that file is missing.
func TestDiscoverAgentsDefaultNamespace(t *testing.T) {
	db := map[string]string{"app": "db"}
	api := &placementtest.KubeAPI{Pods: map[string][]placementtest.Pod{"bench": {{Name: "db-0", Node: "node-a", Labels: db}}}}
	k := startFakeAPI(t, api)
	port, addrs := startAgents(t, "tok", []string{agentJSON("node-a")})
	cfg := DiscoverConfig{Service: "agents", Port: port, Token: "tok", Resolver: fakeResolver{"agents", addrs}, Kube: k, Selector: "app=db"}
	d, err := DiscoverAgents(context.Background(), cfg)
	if err != nil || d.Namespace != "bench" || len(d.Agents) != 1 {
		t.Fatalf("got %+v, %v; want the agent on node-a, found in namespace bench", d, err)
	}

	host, dir := placementtest.StartKubeAPI(t, api)
	if err := os.Remove(filepath.Join(dir, "namespace")); err != nil {
		t.Fatal(err)
	}
	cfg.Kube, err = NewInCluster(InClusterConfig{ServiceAccountDir: dir, Host: host, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := DiscoverAgents(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "this pod's own is unknown") {
		t.Errorf("got %+v, %v; want a refusal naming the missing namespace", d, err)
	}
}

func FuzzParseService(f *testing.F) {
	for _, s := range []string{"fairbench-agent", "a.b.svc:9901", ":1", "a:", "a:-1", "A", "a:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, port, err := ParseService(s)
		if err != nil {
			return
		}
		if port < 1 || port > 65535 || name == "" || strings.ContainsAny(name, ":/ ") {
			t.Fatalf("ParseService(%q) = %q, %d", s, name, port)
		}
		if n2, p2, err := ParseService(name + ":" + strconv.Itoa(port)); err != nil || n2 != name || p2 != port {
			t.Fatalf("ParseService(%q) = %q, %d, but %s:%d gives %q, %d, %v", s, name, port, name, port, n2, p2, err)
		}
	})
}
