package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/machine/placement"
	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// serviceResolver resolves one Service name to fixed addresses, as a
// cluster's DNS does a headless Service's.
type serviceResolver struct {
	name  string
	addrs []net.IPAddr
}

func (r serviceResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if host != r.name {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return r.addrs, nil
}

// startNodeAgents runs one real `fairbench agent` per node, each on its own
// loopback address (127.0.0.2, 127.0.0.3, …) and all on one port, as a
// DaemonSet's pods behind a headless Service are; each has its node's
// NODE_NAME and reads the node's labels from the API server kube points
// at. It returns the port and the addresses.
func startNodeAgents(t *testing.T, kube machinewatch.KubeEnv, env map[string]string, nodes ...string) (int, []net.IPAddr) {
	t.Helper()
	port := "0"
	var addrs []net.IPAddr
	for i, node := range nodes {
		ip := net.IPv4(127, 0, 0, byte(2+i))
		if i > 0 { // is the port free on this address too?
			ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), port))
			if err != nil {
				t.Skipf("cannot listen on %s:%s (loopback addresses beyond 127.0.0.1): %v", ip, port, err)
			}
			ln.Close()
		}
		vars := map[string]string{"NODE_NAME": node}
		for k, v := range env {
			vars[k] = v
		}
		app := &App{Getenv: func(k string) string { return vars[k] }, Kubernetes: kube}
		url, _, stop := startAgentOn(t, app, net.JoinHostPort(ip.String(), port), "--token-env", "AGENT_TOKEN")
		t.Cleanup(func() { stop() })
		port = url[strings.LastIndexByte(url, ':')+1:]
		addrs = append(addrs, net.IPAddr{IP: ip})
	}
	n, _ := strconv.Atoi(port)
	return n, addrs
}

// TestRunFindsAgentsThroughKubernetes: `run --server-agent-service
// --server-pods` against the shared MariaDB, with a fake Kubernetes API on
// loopback and real agents on 127.0.0.2–4 behind one "headless Service":
// the agents on the database pods' nodes describe and observe the server's
// machines (source kubernetes, their node, the node's instance type), the
// agent on the client's node is left out, the database node without an
// agent is warned about; a discovery that fails refuses the run (exit 3,
// no result file).
func TestRunFindsAgentsThroughKubernetes(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	ctx := context.Background()
	db := map[string]string{"app.kubernetes.io/name": "mariadb"}
	api := &placementtest.KubeAPI{
		Nodes: map[string]map[string]string{
			"node-a": {"node.kubernetes.io/instance-type": "m6i.large", "topology.kubernetes.io/zone": "eu-west-1a"},
			"node-b": {"node.kubernetes.io/instance-type": "m6i.xlarge", "topology.kubernetes.io/zone": "eu-west-1b"},
			"node-c": {"node.kubernetes.io/instance-type": "c6i.large"},
		},
		Pods: map[string][]placementtest.Pod{"bench": {
			{Name: "mariadb-0", Node: "node-a", Labels: db}, {Name: "mariadb-1", Node: "node-b", Labels: db},
			{Name: "mariadb-2", Node: "node-d", Labels: db}, // no agent runs on node-d
			{Name: "fairbench-run-0", Node: "node-c", Labels: map[string]string{"app.kubernetes.io/name": "fairbench"}},
			{Name: "cache-0", Node: "node-e", Labels: map[string]string{"app": "cache"}}, // no agent on node-e
		}},
	}
	host, saDir := placementtest.StartKubeAPI(t, api)
	kube := machinewatch.KubeEnv{InCluster: placement.InClusterConfig{ServiceAccountDir: saDir, Host: host}}
	env := map[string]string{"AGENT_TOKEN": "s3cret"}
	port, addrs := startNodeAgents(t, kube, env, "node-c", "node-a", "node-b")
	kube.Resolver = serviceResolver{"fairbench-agent.bench.svc", addrs}
	agentURL := func(ip int) string { return "http://127.0.0." + strconv.Itoa(ip) + ":" + strconv.Itoa(port) }

	run := func(out string, extra ...string) cliRun {
		var stdout, stderr syncbuf.Buffer
		app := &App{Stdout: &stdout, Stderr: &stderr, Version: "test", Getenv: func(k string) string { return env[k] }, Kubernetes: kube}
		args := join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=1", "--time=2", "--output=" + out,
			"--server-agent-token-env=AGENT_TOKEN"}, extra, targetArgs(cfg))
		code := app.Execute(ctx, args)
		return cliRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	service := "--server-agent-service=fairbench-agent.bench.svc:" + strconv.Itoa(port)

	t.Run("found", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "r.json")
		r := run(out, service, "--server-pods=app.kubernetes.io/name=mariadb")
		if r.code != ExitOK {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		head, _, _ := strings.Cut(r.stdout, "Threads started")
		t.Logf("output:\n%s", head)
		res := readResult(t, out)
		ms := res.ServerMachines
		if len(ms) != 2 {
			t.Fatalf("server_machines %+v, want the machines of node-a and node-b", ms)
		}
		for i, want := range []struct{ node, url, instance string }{{"node-a", agentURL(3), "m6i.large"}, {"node-b", agentURL(4), "m6i.xlarge"}} {
			m := ms[i]
			if m.Source != result.ServerSourceKubernetes || m.Node != want.node || m.Agent != want.url || m.Role != result.RoleServer || m.InstanceType != want.instance || m.LogicalCPUs == 0 {
				t.Errorf("server_machines[%d] = %+v, want source kubernetes, node %s, agent %s, instance type %s", i, m, want.node, want.url, want.instance)
			}
		}
		o := res.Observed.ServerMachines
		if len(o) != 2 || o[0].Source != "kubernetes" || o[0].CPU == nil || o[1].CPU == nil {
			t.Errorf("observed.server_machines %+v, want both machines observed through their agents", o)
		}
		if !hasWarning(res, "server machines: database node node-d (pods app.kubernetes.io/name=mariadb) has no agent") {
			t.Errorf("warnings %q lack node-d", res.Warnings)
		}
		if !strings.Contains(r.stdout, "database node node-d") {
			t.Errorf("the output does not warn about node-d:\n%s", r.stdout)
		}
		left := agentURL(2) + " (node node-c): no database pod on this node"
		if !strings.Contains(r.stdout, left) {
			t.Errorf("the output does not say the client node's agent was left out (%q):\n%s", left, r.stdout)
		}
		for _, want := range []string{"Server machine: ", "(kubernetes, m6i.large, node node-a, agent " + agentURL(3) + ")", "node node-b"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("the run header lacks %q:\n%s", want, r.stdout)
			}
		}
		if res.Options["server-pods-namespace"] != "bench" || res.Options["server-pods"] != "app.kubernetes.io/name=mariadb" || !strings.HasPrefix(res.Options["server-agent-service"], "fairbench-agent.bench.svc:") {
			t.Errorf("options record the discovery as %q / %q / %q", res.Options["server-agent-service"], res.Options["server-pods"], res.Options["server-pods-namespace"])
		}
		if seen := api.Seen(); !slices.Contains(seen, "/api/v1/namespaces/bench/pods?labelSelector=app.kubernetes.io%2Fname%3Dmariadb") {
			t.Errorf("the API server saw %q", seen)
		}
	})

	for _, tc := range []struct {
		name  string
		extra []string
		code  int
		want  string
	}{
		{"no database pod", []string{service, "--server-pods=app=nothing"}, ExitTarget, `no scheduled pod in namespace bench matches "app=nothing"`},
		{"agents on other nodes only", []string{service, "--server-pods=app=cache"}, ExitTarget, "no agent of fairbench-agent.bench.svc runs on the database nodes node-e: "},
		{"service unknown", []string{"--server-agent-service=nowhere", "--server-pods=app.kubernetes.io/name=mariadb"}, ExitTarget, "resolving the agents' Service nowhere"},
		{"other namespace", []string{service, "--server-pods=app.kubernetes.io/name=mariadb", "--server-pods-namespace=db"}, ExitTarget, "no scheduled pod in namespace db"},
		{"with --server-agent", []string{service, "--server-pods=app=db", "--server-agent=" + agentURL(3)}, ExitUsage, "give one of them"},
		{"service without pods", []string{service}, ExitUsage, "needs --server-pods SELECTOR"},
		{"bad service", []string{"--server-agent-service=http://agents", "--server-pods=app=db"}, ExitUsage, "--server-agent-service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := run(out, tc.extra...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want %d with %q\n%s%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
			if tc.code == ExitTarget && !strings.Contains(r.stderr, "nothing was run") {
				t.Errorf("the message does not say nothing was run:\n%s", r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a result file was written")
			}
			if strings.Contains(r.stdout, "Threads started") {
				t.Errorf("the run started:\n%s", r.stdout)
			}
		})
	}

	// A plan's target keys find the agents once, before the suite connects;
	// every cell's result has their machines.
	t.Run("suite", func(t *testing.T) {
		sqlite := testdb.SQLite(t)
		plan := func(selector string) string {
			return writeFile(t, "k8s.yaml", fmt.Sprintf(`target:
  sqlite_db: %s
  server_agent_service: fairbench-agent.bench.svc:%d
  server_pods: %s
  server_agent_token_env: AGENT_TOKEN
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1]}
run: {time: 1}
`, sqlite.Path, port, selector))
		}
		suiteRun := func(planFile, dir string) cliRun {
			var stdout, stderr syncbuf.Buffer
			app := &App{Stdout: &stdout, Stderr: &stderr, Version: "test", Getenv: func(k string) string { return env[k] }, Kubernetes: kube}
			code := app.Execute(ctx, []string{"suite", "run", planFile, "--out", dir})
			return cliRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
		}
		dir := filepath.Join(t.TempDir(), "suite")
		if r := suiteRun(plan("app.kubernetes.io/name=mariadb"), dir); r.code != ExitOK {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		} else if !strings.Contains(r.stdout, "Agents of fairbench-agent.bench.svc") {
			t.Errorf("the suite does not say which agents it found:\n%s", r.stdout)
		}
		m, err := suitedir.ReadManifest(dir)
		if err != nil || len(m.Cells) != 1 {
			t.Fatalf("manifest %+v, %v", m, err)
		}
		res := readResult(t, filepath.Join(dir, m.Cells[0].File))
		if ms := res.ServerMachines; len(ms) != 2 || ms[0].Source != result.ServerSourceKubernetes || ms[0].Node != "node-a" || ms[1].Node != "node-b" {
			t.Errorf("server_machines %+v, want node-a and node-b from kubernetes", ms)
		}
		if !hasWarning(res, "server machines: database node node-d") || res.Options["server-pods-namespace"] != "bench" {
			t.Errorf("warnings %q, options %v", res.Warnings, res.Options)
		}

		dir = filepath.Join(t.TempDir(), "failed")
		r := suiteRun(plan("app=nothing"), dir)
		if r.code != ExitTarget || !strings.Contains(r.stderr, "nothing was run") {
			t.Errorf("exit %d, want %d\n%s%s", r.code, ExitTarget, r.stdout, r.stderr)
		}
		if files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json")); len(files) > 0 {
			t.Errorf("results were written: %q", files)
		}
	})

	t.Run("API refuses", func(t *testing.T) {
		api.SetForbidden("/api/v1/namespaces/bench/pods")
		defer api.SetForbidden()
		r := run(filepath.Join(t.TempDir(), "r.json"), service, "--server-pods=app.kubernetes.io/name=mariadb")
		if r.code != ExitTarget || !regexp.MustCompile(`needs "list" on "pods" in namespace bench`).MatchString(r.stderr) {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
	})
}
