package placement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/base/lazyre"
)

// DefaultAgentPort is the port the agent's DaemonSet listens on.
const DefaultAgentPort = 9901

// DefaultAgentTimeout bounds one request to an agent during discovery.
const DefaultAgentTimeout = 5 * time.Second

// MachinePath is the agent's endpoint that describes its machine; its JSON
// carries the agent's Kubernetes node name in "node".
const MachinePath = "/v1/machine"

// Resolver resolves a host name to its addresses; *net.Resolver is one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// DiscoverConfig says where the agents and the database pods are.
type DiscoverConfig struct {
	// Service is the DNS name of the agents' headless Service
	// ("fairbench-agent.bench.svc.cluster.local", or "fairbench-agent" from
	// the same namespace): one A/AAAA record per agent pod.
	Service string
	// Port is the agents' port (DefaultAgentPort when 0).
	Port int
	// Resolver resolves Service (net.DefaultResolver when nil).
	Resolver Resolver
	// Client asks the agents (a client with DefaultAgentTimeout when nil).
	Client *http.Client
	// Token is sent to the agents as "Authorization: Bearer TOKEN" when set.
	Token string
	// Kube lists the database pods; Namespace (the pod's own when empty)
	// and Selector (a label selector, "app.kubernetes.io/name=mariadb")
	// find them.
	Kube      *Kube
	Namespace string
	Selector  string
}

// Agent is an agent that runs on a database pod's node.
type Agent struct {
	URL  string `json:"url"`  // http://10.1.2.3:9901
	Node string `json:"node"` // the Kubernetes node it runs on
}

// Skipped is an agent that discovery left out, and why.
type Skipped struct {
	URL    string `json:"url"`
	Node   string `json:"node,omitempty"`
	Reason string `json:"reason"`
}

// Discovery is what DiscoverAgents found.
type Discovery struct {
	// Agents are the agents on the database pods' nodes, one per node, in
	// the order of DatabaseNodes.
	Agents []Agent
	// Namespace is the database pods' namespace (the given one, or the
	// pod's own).
	Namespace string
	// DatabaseNodes are the nodes the database pods run on.
	DatabaseNodes []string
	// Missing are database nodes no agent answered for: their machines go
	// undescribed, which the caller must say.
	Missing []string
	// Skipped are agents left out: on another node, not answering, or a
	// second agent on a node.
	Skipped []Skipped
}

// agentMachine is the part of an agent's /v1/machine answer read here.
type agentMachine struct {
	Node string `json:"node"`
}

// DiscoverAgents finds the agents through their headless Service and keeps
// those on the nodes the database pods run on. It fails when the Service
// does not resolve, no database pod is scheduled, or no agent runs on any of
// their nodes; database nodes without an agent are in Missing.
func DiscoverAgents(ctx context.Context, cfg DiscoverConfig) (Discovery, error) {
	if cfg.Service == "" {
		return Discovery{}, errors.New("no agent Service name")
	}
	if cfg.Kube == nil || cfg.Selector == "" {
		return Discovery{}, errors.New("no label selector for the database pods")
	}
	if cfg.Namespace == "" {
		ns, err := cfg.Kube.Namespace()
		if err != nil {
			return Discovery{}, fmt.Errorf("no namespace given for the database pods, and this pod's own is unknown (%v): name the namespace", err)
		}
		cfg.Namespace = ns
	}
	d := Discovery{Namespace: cfg.Namespace}
	var err error
	d.DatabaseNodes, err = cfg.Kube.PodNodes(ctx, cfg.Namespace, cfg.Selector)
	if err != nil {
		return Discovery{}, fmt.Errorf("finding the database pods: %w", err)
	}
	if len(d.DatabaseNodes) == 0 {
		return Discovery{}, fmt.Errorf("no scheduled pod in namespace %s matches %q: check the database pods' labels (kubectl get pods -n %s -l '%s')",
			cfg.Namespace, cfg.Selector, cfg.Namespace, cfg.Selector)
	}
	urls, err := agentURLs(ctx, cfg)
	if err != nil {
		return Discovery{}, err
	}
	nodes := askNodes(ctx, cfg, urls)

	byNode := map[string]string{} // node → the agent kept for it
	for i, u := range urls {
		n := nodes[i]
		switch {
		case n.err != nil:
			d.Skipped = append(d.Skipped, Skipped{URL: u, Reason: n.err.Error()})
		case n.node == "":
			d.Skipped = append(d.Skipped, Skipped{URL: u, Reason: "the agent does not say its node (is NODE_NAME set from spec.nodeName?)"})
		case !slices.Contains(d.DatabaseNodes, n.node):
			d.Skipped = append(d.Skipped, Skipped{URL: u, Node: n.node, Reason: "no database pod on this node"})
		case byNode[n.node] != "":
			d.Skipped = append(d.Skipped, Skipped{URL: u, Node: n.node, Reason: "a second agent on the node; kept " + byNode[n.node]})
		default:
			byNode[n.node] = u
		}
	}
	for _, node := range d.DatabaseNodes {
		if u, ok := byNode[node]; ok {
			d.Agents = append(d.Agents, Agent{URL: u, Node: node})
		} else {
			d.Missing = append(d.Missing, node)
		}
	}
	if len(d.Agents) == 0 {
		return d, fmt.Errorf("no agent of %s runs on the database nodes %s: %s",
			cfg.Service, strings.Join(d.DatabaseNodes, ", "), describeSkipped(d.Skipped))
	}
	return d, nil
}

// agentURLs resolves the headless Service into one URL per address, sorted.
func agentURLs(ctx context.Context, cfg DiscoverConfig) ([]string, error) {
	resolver := cfg.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	port := cfg.Port
	if port == 0 {
		port = DefaultAgentPort
	}
	addrs, err := resolver.LookupIPAddr(ctx, cfg.Service)
	if err != nil {
		return nil, fmt.Errorf("resolving the agents' Service %s (is agent-daemonset.yaml applied, and its Service headless?): %w", cfg.Service, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("the agents' Service %s has no addresses: no agent pod is ready", cfg.Service)
	}
	var urls []string
	for _, a := range addrs {
		u := "http://" + net.JoinHostPort(a.String(), strconv.Itoa(port))
		if !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	slices.Sort(urls)
	return urls, nil
}

// nodeAnswer is an agent's node, or why it could not be asked.
type nodeAnswer struct {
	node string
	err  error
}

// askNodes asks every agent at once for its node.
func askNodes(ctx context.Context, cfg DiscoverConfig, urls []string) []nodeAnswer {
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultAgentTimeout}
	}
	answers := make([]nodeAnswer, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() {
			node, err := agentNode(ctx, client, u, cfg.Token)
			answers[i] = nodeAnswer{node, err}
		})
	}
	wg.Wait()
	return answers
}

// agentNode asks one agent for its node.
func agentNode(ctx context.Context, client *http.Client, base, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+MachinePath, nil)
	if err != nil {
		return "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking the agent: %w", err)
	}
	defer resp.Body.Close()
	body, err := readBody(resp.Body)
	if err != nil {
		return "", fmt.Errorf("reading the agent's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the agent answered %s", resp.Status)
	}
	var m agentMachine
	if err := json.Unmarshal(body, &m); err != nil {
		return "", fmt.Errorf("decoding the agent's %s: %w", MachinePath, err)
	}
	if m.Node != "" && !nodeName().MatchString(m.Node) {
		return "", fmt.Errorf("the agent's node %q is not a node name", m.Node)
	}
	return m.Node, nil
}

// nodeName is the syntax of a Kubernetes node name (a DNS subdomain).
var nodeName = lazyre.New(`^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$`)

// describeSkipped says in one line why agents were left out.
func describeSkipped(skipped []Skipped) string {
	if len(skipped) == 0 {
		return "no agent answered"
	}
	parts := make([]string, len(skipped))
	for i, s := range skipped {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}

// String says which agent was left out and why: "URL (node N): reason".
func (s Skipped) String() string {
	if s.Node != "" {
		return fmt.Sprintf("%s (node %s): %s", s.URL, s.Node, s.Reason)
	}
	return fmt.Sprintf("%s: %s", s.URL, s.Reason)
}
