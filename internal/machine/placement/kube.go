package placement

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultServiceAccountDir is where Kubernetes mounts a pod's service
// account token, CA certificate and namespace.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// DefaultNodeNameEnv is the variable the agent's DaemonSet sets to the
// pod's spec.nodeName through the downward API.
const DefaultNodeNameEnv = "NODE_NAME"

// DefaultKubeTimeout bounds one request to the Kubernetes API.
const DefaultKubeTimeout = 5 * time.Second

// The node labels read, the current one first and its deprecated beta name
// after it (still set by older clusters and some providers).
var (
	instanceTypeLabels = []string{"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"}
	archLabels         = []string{"kubernetes.io/arch", "beta.kubernetes.io/arch"}
	regionLabels       = []string{"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"}
	zoneLabels         = []string{"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}
)

// InClusterConfig says where a pod's access to the Kubernetes API is. Zero
// fields take the in-cluster defaults; tests set them.
type InClusterConfig struct {
	// ServiceAccountDir holds token, ca.crt and namespace
	// (DefaultServiceAccountDir when empty).
	ServiceAccountDir string
	// Host is the API server's host:port (from KUBERNETES_SERVICE_HOST and
	// KUBERNETES_SERVICE_PORT when empty).
	Host string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Timeout bounds each request (DefaultKubeTimeout when 0).
	Timeout time.Duration
}

// Kube is a minimal read-only client of the Kubernetes API, authenticated
// as the pod's service account.
type Kube struct {
	base      string // https://host:port
	tokenFile string
	namespace string // the pod's own namespace, "" when unknown
	nsErr     error  // why namespace is unknown
	client    *http.Client
}

// NewInCluster returns a client of the API server the pod runs under. It
// fails when the pod has no service account token or CA certificate, or the
// API server's address is not in the environment (not running in a pod).
func NewInCluster(cfg InClusterConfig) (*Kube, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := cfg.ServiceAccountDir
	if dir == "" {
		dir = DefaultServiceAccountDir
	}
	host := cfg.Host
	if host == "" {
		h, p := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
		if h == "" || p == "" {
			return nil, errors.New("not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set")
		}
		host = net.JoinHostPort(h, p)
	}
	tokenFile := filepath.Join(dir, "token")
	if _, err := os.Stat(tokenFile); err != nil {
		return nil, fmt.Errorf("no service account token (automountServiceAccountToken: false?): %w", err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's CA certificate: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	ns, nsErr := podNamespace(dir)
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultKubeTimeout
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: timeout,
	}
	return &Kube{
		base:      "https://" + host,
		tokenFile: tokenFile,
		namespace: ns,
		nsErr:     nsErr,
		client:    &http.Client{Transport: transport, Timeout: timeout},
	}, nil
}

// Namespace is the pod's own namespace (the service account's namespace
// file), or why it could not be read.
func (k *Kube) Namespace() (string, error) { return k.namespace, k.nsErr }

// status is the part of a Kubernetes Status object an error message uses.
type status struct {
	Message string `json:"message"`
}

// get GETs path from the API server and decodes the JSON answer into out.
// verb and resource name the RBAC permission the request needs, for the
// message when it is refused.
func (k *Kube) get(ctx context.Context, path, verb, resource, scope string, out any) error {
	// The token is read for every request: a bound service account token is
	// rotated by the kubelet (hourly) while the pod runs.
	token, err := os.ReadFile(k.tokenFile)
	if err != nil {
		return fmt.Errorf("reading the service account token: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return fmt.Errorf("kubernetes API at %s: %w", k.base, err)
	}
	defer resp.Body.Close()
	body, err := readBody(resp.Body)
	if err != nil {
		return fmt.Errorf("kubernetes API GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var st status
		_ = json.Unmarshal(body, &st)
		msg := st.Message
		if msg == "" {
			msg = strings.TrimSpace(string(body))
			if len(msg) > 200 {
				msg = msg[:200] + "…"
			}
		}
		switch resp.StatusCode {
		case http.StatusForbidden:
			return fmt.Errorf("kubernetes API refused GET %s (403 Forbidden): the pod's service account needs %q on %q %s "+
				"(a Role or ClusterRole bound to it; see deploy/kubernetes/agent-daemonset.yaml): %s", path, verb, resource, scope, msg)
		case http.StatusUnauthorized:
			return fmt.Errorf("kubernetes API refused the service account token for GET %s (401 Unauthorized): %s", path, msg)
		default:
			return fmt.Errorf("kubernetes API GET %s: %s: %s", path, resp.Status, msg)
		}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("kubernetes API GET %s: decoding the answer: %w", path, err)
	}
	return nil
}

// node is the part of a Node object read here.
type node struct {
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
}

// NodePlacement reads the labels of the node named name: instance type,
// architecture, region and zone (each from its current label, else its
// deprecated beta one). It needs `get` on `nodes` (cluster-scoped).
func (k *Kube) NodePlacement(ctx context.Context, name string) (Placement, error) {
	if name == "" {
		return Placement{}, fmt.Errorf("no node name: set %s from the downward API (fieldRef spec.nodeName)", DefaultNodeNameEnv)
	}
	var n node
	if err := k.get(ctx, "/api/v1/nodes/"+url.PathEscape(name), "get", "nodes", "(cluster-wide)", &n); err != nil {
		return Placement{}, err
	}
	return placementFromLabels(name, n.Metadata.Labels)
}

// placementFromLabels reads a node's placement from its labels.
func placementFromLabels(name string, labels map[string]string) (Placement, error) {
	p := Placement{Node: name, Source: SourceKubernetes}
	for _, f := range []struct {
		dst    *string
		labels []string
	}{
		{&p.InstanceType, instanceTypeLabels}, {&p.Arch, archLabels},
		{&p.Region, regionLabels}, {&p.Zone, zoneLabels},
	} {
		for _, l := range f.labels {
			if v := labels[l]; v != "" {
				clean, err := cleanValue("node label "+l, v)
				if err != nil {
					return Placement{}, err
				}
				*f.dst = clean
				break
			}
		}
	}
	return p, nil
}

// podList is the part of a PodList read here.
type podList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			NodeName string `json:"nodeName"`
		} `json:"spec"`
	} `json:"items"`
}

// PodNodes returns the distinct nodes the pods of namespace matching the
// label selector ("app.kubernetes.io/name=mariadb") are scheduled on, in
// the order first seen; pods not yet scheduled are left out. It needs
// `list` on `pods` in namespace.
func (k *Kube) PodNodes(ctx context.Context, namespace, selector string) ([]string, error) {
	if namespace == "" {
		return nil, errors.New("no namespace for the database pods")
	}
	path := "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods?labelSelector=" + url.QueryEscape(selector)
	var list podList
	if err := k.get(ctx, path, "list", "pods", "in namespace "+namespace, &list); err != nil {
		return nil, err
	}
	var nodes []string
	seen := map[string]bool{}
	for _, p := range list.Items {
		if n := p.Spec.NodeName; n != "" && !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	return nodes, nil
}
