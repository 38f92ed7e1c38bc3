package machinewatch

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/placement"
)

// Sources say which agents describe the server's machines, as given to
// `run` as flags or in a plan's target: keys: agents named outright, or
// found through Kubernetes (the agents' headless Service, kept on the nodes
// of the database pods), and the environment variable holding their token.
// The zero value names none.
type Sources struct {
	Agents    string // --server-agent: "[ROLE=]URL[,…]"
	TokenEnv  string // --server-agent-token-env
	Service   string // --server-agent-service: the headless Service, NAME[:PORT]
	Pods      string // --server-pods: the database pods' label selector
	Namespace string // --server-pods-namespace ("": the pod's own)
}

// The Sources as a plan's target: keys name them; FlagName spells them as
// run's flags.
const (
	KeyAgents    = "server_agent"
	KeyTokenEnv  = "server_agent_token_env"
	KeyService   = "server_agent_service"
	KeyPods      = "server_pods"
	KeyNamespace = "server_pods_namespace"
)

// FlagName is run's flag of the plan key key: "--server-agent-service".
func FlagName(key string) string { return "--" + strings.ReplaceAll(key, "_", "-") }

// SourceError is a mistake in one of the Sources.
type SourceError struct {
	Key string // the setting at fault, a Key* constant
	Msg string // what is wrong and what to do
}

func (e *SourceError) Error() string { return e.Msg }

func sourceErrorf(key, format string, args ...any) error {
	return &SourceError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Parsed are checked Sources.
type Parsed struct {
	// Agents are the agents named outright (--server-agent).
	Agents []agent.Endpoint
	// Token is the agents' token, read from TokenEnv ("" for none).
	Token string
	// Kubernetes finds the agents through Kubernetes (nil: not asked). Its
	// Kube and Resolver are set by Discover.
	Kubernetes *placement.DiscoverConfig
}

// Parse checks the sources and reads the token from the environment
// variable TokenEnv names. It refuses agents named both ways, a Service
// without the database pods' selector (or the reverse), and a token
// variable that is empty or unset, or given without agents. Every error is
// a *SourceError.
func (s Sources) Parse(getenv func(string) string) (Parsed, error) {
	var p Parsed
	switch {
	case s.Agents != "" && s.Service != "":
		return p, sourceErrorf(KeyService, "%s names the agents and %s finds them through Kubernetes: give one of them",
			FlagName(KeyAgents), FlagName(KeyService))
	case s.Service != "" && s.Pods == "":
		return p, sourceErrorf(KeyPods, "%s needs %s SELECTOR: the label selector of the database pods (e.g. app.kubernetes.io/name=mariadb), whose nodes' agents are kept",
			FlagName(KeyService), FlagName(KeyPods))
	case s.Service == "" && s.Pods != "":
		return p, sourceErrorf(KeyPods, "%s selects the database pods whose nodes' agents are kept: it needs %s NAME[:PORT] (the agents' headless Service, e.g. fairbench-agent)",
			FlagName(KeyPods), FlagName(KeyService))
	case s.Service == "" && s.Namespace != "":
		return p, sourceErrorf(KeyNamespace, "%s is the namespace of the database pods of %s, which is not given", FlagName(KeyNamespace), FlagName(KeyPods))
	case s.TokenEnv != "" && s.Agents == "" && s.Service == "":
		return p, sourceErrorf(KeyTokenEnv, "%s names the token of a fairbench agent, but no %s or %s is given", agent.TokenFlag, FlagName(KeyAgents), FlagName(KeyService))
	}
	if s.Agents != "" {
		eps, err := agent.ParseAgentList(s.Agents)
		if err != nil {
			return p, sourceErrorf(KeyAgents, "%s: %v", FlagName(KeyAgents), err)
		}
		p.Agents = eps
	}
	if s.Service != "" {
		name, port, err := placement.ParseService(s.Service)
		if err != nil {
			return p, sourceErrorf(KeyService, "%s: %v", FlagName(KeyService), err)
		}
		if err := placement.CheckSelector(s.Pods); err != nil {
			return p, sourceErrorf(KeyPods, "%s: %v", FlagName(KeyPods), err)
		}
		if s.Namespace != "" {
			if err := placement.CheckNamespace(s.Namespace); err != nil {
				return p, sourceErrorf(KeyNamespace, "%s: %v", FlagName(KeyNamespace), err)
			}
		}
		p.Kubernetes = &placement.DiscoverConfig{Service: name, Port: port, Selector: s.Pods, Namespace: s.Namespace}
	}
	if s.TokenEnv != "" {
		if p.Token = getenv(s.TokenEnv); p.Token == "" {
			return p, sourceErrorf(KeyTokenEnv, "%s %s: the environment variable %s is empty or unset: put the agent's token in it", agent.TokenFlag, s.TokenEnv, s.TokenEnv)
		}
	}
	return p, nil
}

// Record writes the sources into a result's options, by flag name without
// the dashes (as run records its flags), with the namespace discovery used
// when none was given.
func (s Sources) Record(opts map[string]string, d *Discovered) {
	for key, v := range map[string]string{KeyAgents: s.Agents, KeyTokenEnv: s.TokenEnv, KeyService: s.Service, KeyPods: s.Pods, KeyNamespace: s.Namespace} {
		opts[FlagName(key)[2:]] = v
	}
	if d != nil && d.Namespace != "" {
		opts[FlagName(KeyNamespace)[2:]] = d.Namespace
	}
}

// KubeEnv is where discovery reaches the cluster. The zero value is the
// cluster of the pod this runs in: its service account and the system's
// resolver; tests point it at fakes.
type KubeEnv struct {
	InCluster placement.InClusterConfig
	Resolver  placement.Resolver // nil: net.DefaultResolver
}

// Discovered are the agents found through Kubernetes for the database
// pods of Selector.
type Discovered struct {
	Service  string // the agents' Service, NAME:PORT
	Selector string // the database pods' label selector
	placement.Discovery
}

// Discover finds the agents p.Kubernetes asks for (nil when it does not):
// the API server is asked which nodes the database pods run on, the
// Service is resolved and every agent asked for its node. A failure is a
// *TargetError: nothing may run.
func Discover(ctx context.Context, p Parsed, env KubeEnv) (*Discovered, error) {
	if p.Kubernetes == nil {
		return nil, nil
	}
	cfg := *p.Kubernetes
	service := cfg.Service + ":" + strconv.Itoa(cfg.Port)
	fail := func(err error) error {
		return &TargetError{fmt.Errorf("finding the agents of %s %s for the pods %s %s: %w; nothing was run", FlagName(KeyService), service, FlagName(KeyPods), cfg.Selector, err)}
	}
	kube, err := placement.NewInCluster(env.InCluster)
	if err != nil {
		return nil, fail(err)
	}
	cfg.Kube, cfg.Resolver, cfg.Token = kube, env.Resolver, p.Token
	d, err := placement.DiscoverAgents(ctx, cfg)
	if err != nil {
		return nil, fail(err)
	}
	return &Discovered{Service: service, Selector: cfg.Selector, Discovery: d}, nil
}

// Summary says in one line which agents were kept and which left out.
func (d *Discovered) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Agents of %s on the nodes of the pods %s in namespace %s:", d.Service, d.Selector, d.Namespace)
	for i, a := range d.Agents {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s (node %s)", sep, a.URL, a.Node)
	}
	if len(d.Skipped) > 0 {
		var left []string
		for _, s := range d.Skipped {
			left = append(left, s.String())
		}
		fmt.Fprintf(&b, "; left out %s", strings.Join(left, "; "))
	}
	return b.String()
}

// missingNotes say which database nodes have no agent.
func (d *Discovered) missingNotes() []string {
	var notes []string
	for _, node := range d.Missing {
		notes = append(notes, fmt.Sprintf("database node %s (pods %s) has no agent of %s that answered: its machine is not described "+
			"(does the DaemonSet's nodeSelector or a taint keep the agent off it?)", node, d.Selector, d.Service))
	}
	return notes
}
