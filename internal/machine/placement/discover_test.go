package placement

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
)

// fakeResolver answers one name with fixed addresses.
type fakeResolver struct {
	name  string
	addrs []net.IPAddr
}

func (r fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if host != r.name {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return r.addrs, nil
}

// startAgents starts one fake agent per entry, each on its own loopback
// address (127.0.0.2, 127.0.0.3, …) and all on one port, as a DaemonSet's
// pods are: the value is the JSON its /v1/machine serves, "" for one that
// answers 500. It returns the port and the addresses.
func startAgents(t *testing.T, token string, machines []string) (int, []net.IPAddr) {
	t.Helper()
	first, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2 (loopback addresses beyond 127.0.0.1): %v", err)
	}
	port := first.Addr().(*net.TCPAddr).Port
	var addrs []net.IPAddr
	for i, body := range machines {
		ip := net.IPv4(127, 0, 0, byte(2+i))
		l := first
		if i > 0 {
			if l, err = net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port))); err != nil {
				t.Skipf("port %d is taken on %s: %v", port, ip, err)
			}
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != MachinePath {
				http.NotFound(w, r)
				return
			}
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			if body == "" {
				http.Error(w, "broken", http.StatusInternalServerError)
				return
			}
			_, _ = w.Write([]byte(body))
		}))
		srv.Listener.Close()
		srv.Listener = l
		srv.Start()
		t.Cleanup(srv.Close)
		addrs = append(addrs, net.IPAddr{IP: ip})
	}
	return port, addrs
}

func agentJSON(node string) string {
	return fmt.Sprintf(`{"arch":"arm64","logical_cpus":16,"role":"server","source":"agent","node":%q}`, node)
}

func TestDiscoverAgents(t *testing.T) {
	db := map[string]string{"app.kubernetes.io/name": "mariadb"}
	api := &placementtest.KubeAPI{Pods: map[string][]placementtest.Pod{"bench": {
		{Name: "mariadb-0", Node: "node-a", Labels: db}, {Name: "mariadb-1", Node: "node-b", Labels: db}, {Name: "mariadb-2", Node: "node-d", Labels: db},
		{Name: "fairbench-run-0", Node: "node-c", Labels: map[string]string{"app.kubernetes.io/name": "fairbench"}},
	}}}
	k := startFakeAPI(t, api)
	port, addrs := startAgents(t, "s3cret", []string{
		agentJSON("node-c"), // 127.0.0.2: a client node
		agentJSON("node-a"), // 127.0.0.3
		agentJSON("node-b"), // 127.0.0.4
		`{"arch":"amd64"}`,  // 127.0.0.5: no node field
		agentJSON("node-a"), // 127.0.0.6: a second agent on node-a (a rollout)
		"",                  // 127.0.0.7: answers 500
	})
	d, err := DiscoverAgents(context.Background(), DiscoverConfig{
		Service: "fairbench-agent.bench.svc", Port: port, Token: "s3cret",
		Resolver: fakeResolver{"fairbench-agent.bench.svc", addrs},
		Kube:     k, Namespace: "bench", Selector: "app.kubernetes.io/name=mariadb",
	})
	if err != nil {
		t.Fatal(err)
	}
	url := func(last int) string { return fmt.Sprintf("http://127.0.0.%d:%d", last, port) }
	wantAgents := []Agent{{url(3), "node-a"}, {url(4), "node-b"}}
	if fmt.Sprint(d.Agents) != fmt.Sprint(wantAgents) {
		t.Errorf("agents %v, want %v", d.Agents, wantAgents)
	}
	if strings.Join(d.DatabaseNodes, ",") != "node-a,node-b,node-d" {
		t.Errorf("database nodes %v", d.DatabaseNodes)
	}
	if strings.Join(d.Missing, ",") != "node-d" {
		t.Errorf("missing %v, want node-d (a database node with no agent)", d.Missing)
	}
	wantSkipped := map[string]string{
		url(2): "no database pod on this node",
		url(5): "does not say its node",
		url(6): "a second agent on the node; kept " + url(3),
		url(7): "500",
	}
	if len(d.Skipped) != len(wantSkipped) {
		t.Errorf("skipped %+v, want %d", d.Skipped, len(wantSkipped))
	}
	for _, s := range d.Skipped {
		if want, ok := wantSkipped[s.URL]; !ok || !strings.Contains(s.Reason, want) {
			t.Errorf("skipped %s: %q, want a reason with %q", s.URL, s.Reason, want)
		}
	}
}

func TestDiscoverAgentsFailures(t *testing.T) {
	db := map[string]string{"app": "db"}
	api := &placementtest.KubeAPI{Pods: map[string][]placementtest.Pod{"bench": {{Name: "db-0", Node: "node-a", Labels: db}}}}
	k := startFakeAPI(t, api)
	port, addrs := startAgents(t, "tok", []string{agentJSON("node-x")})
	cfg := DiscoverConfig{Service: "agents", Port: port, Token: "tok", Resolver: fakeResolver{"agents", addrs},
		Kube: k, Namespace: "bench", Selector: "app=db"}
	tests := []struct {
		name   string
		change func(*DiscoverConfig)
		want   string
	}{
		{"agents on other nodes only", func(*DiscoverConfig) {}, "node-x): no database pod on this node"},
		{"no matching pods", func(c *DiscoverConfig) { c.Selector = "app=nothing" }, "no scheduled pod in namespace bench matches"},
		{"service does not resolve", func(c *DiscoverConfig) { c.Service = "nowhere" }, "resolving the agents' Service nowhere"},
		{"service without addresses", func(c *DiscoverConfig) { c.Resolver = fakeResolver{"agents", nil} }, "no agent pod is ready"},
		{"wrong token", func(c *DiscoverConfig) { c.Token = "other" }, "401"},
		{"no selector", func(c *DiscoverConfig) { c.Selector = "" }, "no label selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			tt.change(&c)
			d, err := DiscoverAgents(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %+v, %v; want an error saying %q", d, err, tt.want)
			}
		})
	}
}

func TestAgentNodeRefusesOddNames(t *testing.T) {
	for _, body := range []string{`{"node":"Node_A"}`, `{"node":"a/b"}`, `{"node":"` + strings.Repeat("a", 254) + `"}`, `not json`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
		node, err := agentNode(context.Background(), srv.Client(), srv.URL, "")
		srv.Close()
		if err == nil {
			t.Errorf("%s: accepted node %q", body, node)
		}
	}
	var dnsErr *net.DNSError
	_, err := fakeResolver{"a", nil}.LookupIPAddr(context.Background(), "b")
	if !errors.As(err, &dnsErr) {
		t.Fatalf("fake resolver error %v", err)
	}
}

func TestAgentURLs(t *testing.T) {
	addrs := []net.IPAddr{{IP: net.ParseIP("fd00::5")}, {IP: net.ParseIP("10.0.0.7")}, {IP: net.ParseIP("10.0.0.7")}}
	urls, err := agentURLs(context.Background(), DiscoverConfig{Service: "svc", Resolver: fakeResolver{"svc", addrs}})
	if err != nil {
		t.Fatal(err)
	}
	want := "http://10.0.0.7:9901 http://[fd00::5]:9901"
	if strings.Join(urls, " ") != want {
		t.Errorf("urls %q, want %q (default port, IPv6 bracketed, duplicates once, sorted)", urls, want)
	}
}
