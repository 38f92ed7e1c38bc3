// Package placementtest serves fakes of the services package placement
// reads — a Kubernetes API server and the clouds' instance metadata
// services — on loopback, for the tests of placement and of its users.
package placementtest

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Token is the service account token the fake API accepts.
const Token = "test-token-123"

// KubeAPI is a fake Kubernetes API server on loopback: nodes by name, pods
// by namespace, and the paths that answer 403.
type KubeAPI struct {
	Nodes     map[string]map[string]string // node name → labels
	Pods      map[string][]Pod             // namespace → pods
	Forbidden map[string]bool              // URL paths answered with 403
	mu        sync.Mutex
	requests  []string // request URIs seen
}

// Seen returns the request URIs the server has seen.
func (f *KubeAPI) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// SetForbidden makes the server answer 403 to the URL paths given from now on.
func (f *KubeAPI) SetForbidden(paths ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Forbidden = map[string]bool{}
	for _, p := range paths {
		f.Forbidden[p] = true
	}
}

// Pod is a pod the fake API lists: its name, node and labels.
type Pod struct {
	Name, Node string
	Labels     map[string]string
}

// ServeHTTP answers GET /api/v1/nodes/NAME and GET /api/v1/namespaces/NS/pods
// (with a labelSelector KEY=VALUE), with the token only.
func (f *KubeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	forbidden := f.Forbidden[r.URL.Path]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+Token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","message":"Unauthorized"}`))
		return
	}
	if r.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if forbidden {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","status":"Failure","message":"nodes \"n1\" is forbidden: User \"system:serviceaccount:bench:fairbench-agent\" cannot get resource \"nodes\" in API group \"\" at the cluster scope","reason":"Forbidden","code":403}`))
		return
	}
	if name, ok := strings.CutPrefix(r.URL.Path, "/api/v1/nodes/"); ok {
		labels, ok := f.Nodes[name]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","message":"nodes \"` + name + `\" not found"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Node", "metadata": map[string]any{"name": name, "labels": labels}})
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/namespaces/"); ok {
		ns, tail, _ := strings.Cut(rest, "/")
		if tail != "pods" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		key, value, _ := strings.Cut(r.URL.Query().Get("labelSelector"), "=")
		var items []any
		for _, p := range f.Pods[ns] {
			if p.Labels[key] == value {
				items = append(items, map[string]any{"metadata": map[string]any{"name": p.Name}, "spec": map[string]any{"nodeName": p.Node}})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "PodList", "items": items})
		return
	}
	w.WriteHeader(http.StatusNotFound)
}

// ServiceAccountDir writes a token, the CA certificate caPEM and a namespace
// into a temporary directory as Kubernetes mounts them.
func ServiceAccountDir(t *testing.T, caPEM []byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string][]byte{"token": []byte(Token + "\n"), "ca.crt": caPEM, "namespace": []byte("bench")} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// StartKubeAPI starts f on a loopback TLS server and returns its host:port
// and a service account directory (token, ca.crt trusting the server,
// namespace "bench") as Kubernetes mounts it in a pod.
func StartKubeAPI(t *testing.T, f *KubeAPI) (host, serviceAccountDir string) {
	t.Helper()
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return strings.TrimPrefix(srv.URL, "https://"), ServiceAccountDir(t, caPEM)
}

// Cloud is a fake instance metadata server of one cloud on loopback.
type Cloud struct {
	mu    sync.Mutex
	paths []string // METHOD path of every request
}

func (f *Cloud) record(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths = append(f.paths, r.Method+" "+r.URL.RequestURI())
}

// Seen returns "METHOD URI" of every request the server has seen.
func (f *Cloud) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.paths)
}

// AWS serves IMDSv2: a token for a PUT with a TTL, fields only with it.
func (f *Cloud) AWS(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	if r.URL.Path == "/latest/api/token" {
		if r.Method != http.MethodPut || r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds") == "" {
			http.Error(w, "bad token request", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte("AQAEAtoken=="))
		return
	}
	if r.Header.Get("X-aws-ec2-metadata-token") != "AQAEAtoken==" {
		http.Error(w, "", http.StatusUnauthorized)
		return
	}
	v, ok := map[string]string{
		"/latest/meta-data/instance-type":                 "c7g.2xlarge",
		"/latest/meta-data/placement/region":              "eu-west-1",
		"/latest/meta-data/placement/availability-zone":   "eu-west-1b",
		"/latest/meta-data/iam/security-credentials/role": `{"SecretAccessKey":"must never be read"}`,
	}[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write([]byte(v))
}

// GCP serves the Compute Engine metadata server's two fields.
func (f *Cloud) GCP(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	if r.Header.Get("Metadata-Flavor") != "Google" {
		http.Error(w, "missing Metadata-Flavor", http.StatusForbidden)
		return
	}
	w.Header().Set("Metadata-Flavor", "Google")
	v, ok := map[string]string{
		"/computeMetadata/v1/instance/machine-type": "projects/123456/machineTypes/e2-standard-4",
		"/computeMetadata/v1/instance/zone":         "projects/123456/zones/us-central1-a",
	}[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write([]byte(v))
}

// Azure serves Azure's compute document.
func (f *Cloud) Azure(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	if r.Header.Get("Metadata") != "true" || r.URL.Path != "/metadata/instance/compute" || r.URL.Query().Get("api-version") == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"location":"westeurope","name":"vm1","vmSize":"Standard_D4ps_v5","zone":"2","osProfile":{"adminUsername":"azureuser"}}`))
}

// StartCloud starts a fake metadata server on loopback with the handler h
// picks (Cloud.AWS, GCP or Azure) and returns it and its base URL.
func StartCloud(t *testing.T, h func(*Cloud) http.HandlerFunc) (*Cloud, string) {
	t.Helper()
	f := &Cloud{}
	srv := httptest.NewServer(h(f))
	t.Cleanup(srv.Close)
	return f, srv.URL
}
