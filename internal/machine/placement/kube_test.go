package placement

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
)

// startFakeAPI starts f on a loopback TLS server and returns a client of it
// trusting the server's certificate.
func startFakeAPI(t *testing.T, f *placementtest.KubeAPI) *Kube {
	t.Helper()
	host, dir := placementtest.StartKubeAPI(t, f)
	k, err := NewInCluster(InClusterConfig{ServiceAccountDir: dir, Host: host, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestNodePlacement(t *testing.T) {
	f := &placementtest.KubeAPI{Nodes: map[string]map[string]string{
		"current": {
			"node.kubernetes.io/instance-type": "m6g.large", "beta.kubernetes.io/instance-type": "old",
			"kubernetes.io/arch": "arm64", "topology.kubernetes.io/region": "us-east-1",
			"topology.kubernetes.io/zone": "us-east-1a", "kubernetes.io/hostname": "current",
		},
		"beta": {
			"beta.kubernetes.io/instance-type": "n2-standard-8", "beta.kubernetes.io/arch": "amd64",
			"failure-domain.beta.kubernetes.io/region": "us-central1", "failure-domain.beta.kubernetes.io/zone": "us-central1-b",
		},
		"bare": {"kubernetes.io/arch": "amd64"},
	}}
	k := startFakeAPI(t, f)
	if ns, err := k.Namespace(); ns != "bench" || err != nil {
		t.Errorf("Namespace() = %q, %v, want bench", ns, err)
	}
	tests := []struct {
		node string
		want Placement
	}{
		{"current", Placement{InstanceType: "m6g.large", Arch: "arm64", Region: "us-east-1", Zone: "us-east-1a", Node: "current", Source: SourceKubernetes}},
		{"beta", Placement{InstanceType: "n2-standard-8", Arch: "amd64", Region: "us-central1", Zone: "us-central1-b", Node: "beta", Source: SourceKubernetes}},
		{"bare", Placement{Arch: "amd64", Node: "bare", Source: SourceKubernetes}},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			got, err := k.NodePlacement(context.Background(), tt.node)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := k.NodePlacement(context.Background(), "missing"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing node: err = %v, want a 404", err)
	}
	if _, err := k.NodePlacement(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "NODE_NAME") {
		t.Errorf("empty node name: err = %v, want one naming NODE_NAME", err)
	}
}

func TestNodePlacementForbiddenNamesTheRBAC(t *testing.T) {
	f := &placementtest.KubeAPI{Nodes: map[string]map[string]string{"n1": {}}, Forbidden: map[string]bool{"/api/v1/nodes/n1": true}}
	k := startFakeAPI(t, f)
	_, err := k.NodePlacement(context.Background(), "n1")
	if err == nil {
		t.Fatal("403 accepted")
	}
	for _, want := range []string{"403", `"get" on "nodes"`, "ClusterRole", "cannot get resource"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestNodePlacementRefusesBadLabel(t *testing.T) {
	f := &placementtest.KubeAPI{Nodes: map[string]map[string]string{"n1": {"node.kubernetes.io/instance-type": "m5\x1b[31m"}}}
	k := startFakeAPI(t, f)
	if p, err := k.NodePlacement(context.Background(), "n1"); err == nil {
		t.Errorf("a label with an escape sequence accepted: %+v", p)
	}
}

func TestWrongTokenIsUnauthorized(t *testing.T) {
	f := &placementtest.KubeAPI{Nodes: map[string]map[string]string{"n1": {}}}
	k := startFakeAPI(t, f)
	if err := os.WriteFile(k.tokenFile, []byte("rotated-but-wrong"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := k.NodePlacement(context.Background(), "n1")
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("err = %v, want a 401 (the token is read for every request)", err)
	}
}

// otherCA returns a self-signed CA certificate that did not sign the test
// server's certificate.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "not the cluster CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestWrongCARefused(t *testing.T) {
	f := &placementtest.KubeAPI{Nodes: map[string]map[string]string{"n1": {"kubernetes.io/arch": "amd64"}}}
	srv := httptest.NewTLSServer(f)
	defer srv.Close()
	k, err := NewInCluster(InClusterConfig{
		ServiceAccountDir: placementtest.ServiceAccountDir(t, otherCA(t)),
		Host:              strings.TrimPrefix(srv.URL, "https://"),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.NodePlacement(context.Background(), "n1")
	if err == nil {
		t.Fatal("a server whose certificate ca.crt did not sign was trusted")
	}
	if !strings.Contains(err.Error(), "certificate") {
		t.Errorf("error %q does not say the certificate was refused", err)
	}
	if seen := f.Seen(); len(seen) != 0 {
		t.Errorf("the request reached the server anyway: %v", seen)
	}
}

func TestNewInClusterErrors(t *testing.T) {
	noEnv := func(string) string { return "" }
	env := func(k string) string {
		return map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}[k]
	}
	good := placementtest.ServiceAccountDir(t, otherCA(t))
	noCert := placementtest.ServiceAccountDir(t, []byte("not a certificate"))
	tests := []struct {
		name string
		cfg  InClusterConfig
		want string // in the error; "" for none
	}{
		{"not in a pod", InClusterConfig{ServiceAccountDir: good, Getenv: noEnv}, "KUBERNETES_SERVICE_HOST"},
		{"no token", InClusterConfig{ServiceAccountDir: t.TempDir(), Getenv: env}, "token"},
		{"no PEM", InClusterConfig{ServiceAccountDir: noCert, Getenv: env}, "no PEM certificate"},
		{"IPv6 host from env", InClusterConfig{ServiceAccountDir: good, Getenv: env}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := NewInCluster(tt.cfg)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if k.base != "https://[fd00::1]:443" {
					t.Errorf("base %q, want https://[fd00::1]:443", k.base)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestPodNodes(t *testing.T) {
	db := map[string]string{"app": "mariadb"}
	f := &placementtest.KubeAPI{Pods: map[string][]placementtest.Pod{
		"bench": {
			{Name: "mariadb-0", Node: "node-a", Labels: db}, {Name: "mariadb-1", Node: "node-b", Labels: db}, {Name: "mariadb-2", Node: "node-a", Labels: db},
			{Name: "pending", Node: "", Labels: db}, {Name: "client", Node: "node-c", Labels: map[string]string{"app": "fairbench"}},
		},
		"other": {{Name: "mariadb-0", Node: "node-z", Labels: db}},
	}}
	k := startFakeAPI(t, f)
	got, err := k.PodNodes(context.Background(), "bench", "app=mariadb")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "node-a,node-b" {
		t.Errorf("nodes %q, want node-a,node-b", got)
	}
	if seen := f.Seen(); seen[len(seen)-1] != "/api/v1/namespaces/bench/pods?labelSelector=app%3Dmariadb" {
		t.Errorf("request %q", seen[len(seen)-1])
	}
	f.SetForbidden("/api/v1/namespaces/bench/pods")
	_, err = k.PodNodes(context.Background(), "bench", "app=mariadb")
	if err == nil || !strings.Contains(err.Error(), `"list" on "pods" in namespace bench`) {
		t.Errorf("err = %v, want one naming list on pods in bench", err)
	}
}
