package kubernetes_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/cli"
)

// Names agent-daemonset.yaml, client-rbac.yaml and the README share.
const (
	agentName     = "fairbench-agent"
	agentRole     = "fairbench-agent-node-reader"
	clientAccount = "fairbench-client"
	clientRole    = "fairbench-client-find-database"
	agentTokenEnv = "FAIRBENCH_AGENT_TOKEN"
)

// agentContainer returns the DaemonSet's one container.
func agentContainer(t *testing.T, m manifests) (*corev1.PodSpec, *corev1.Container) {
	t.Helper()
	ds, ok := m.daemonSets[agentName]
	if !ok {
		t.Fatalf("no DaemonSet %s", agentName)
	}
	spec := &ds.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("DaemonSet %s has %d containers, want 1", agentName, len(spec.Containers))
	}
	return spec, &spec.Containers[0]
}

func TestAgentDaemonSet(t *testing.T) {
	m := loadManifests(t)
	ds := m.daemonSets[agentName]
	spec, c := agentContainer(t, m)
	if !spec.HostPID {
		t.Error("hostPID must be true: the agent finds the database server's process in the node's process table")
	}
	if spec.HostNetwork || spec.HostIPC {
		t.Error("hostNetwork and hostIPC stay off unless the README's reason applies")
	}
	if sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err != nil || !sel.Matches(labels.Set(ds.Spec.Template.Labels)) {
		t.Errorf("the DaemonSet's selector %v does not match its pods' labels %v", ds.Spec.Selector, ds.Spec.Template.Labels)
	}
	if spec.ServiceAccountName != agentName {
		t.Errorf("serviceAccountName %q, want %s", spec.ServiceAccountName, agentName)
	}
	if _, ok := m.accounts[spec.ServiceAccountName]; !ok {
		t.Errorf("ServiceAccount %s is not defined", spec.ServiceAccountName)
	}
	if spec.AutomountServiceAccountToken != nil && !*spec.AutomountServiceAccountToken {
		t.Error("the agent needs its service account token to read the node's labels")
	}

	repo, tag, _ := strings.Cut(c.Image, ":")
	if repo != makefileImage(t) || tag == "" {
		t.Errorf("image %q, want %s:TAG", c.Image, makefileImage(t))
	}
	if len(c.Command) > 0 || len(c.Args) == 0 || c.Args[0] != "agent" {
		t.Errorf("command %q args %q: want the image's entrypoint with args agent …", c.Command, c.Args)
	}
	flags := flagValues(t, c.Args)
	if flags["--token-env"] != agentTokenEnv {
		t.Errorf("--token-env=%q, want %s", flags["--token-env"], agentTokenEnv)
	}
	if flags["--process"] == "" && flags["--pid"] == "" {
		t.Error("no --process or --pid: the agent would not know the database server's process")
	}
	_, port, err := splitListen(flags["--listen"])
	if err != nil {
		t.Fatalf("--listen=%q: %v", flags["--listen"], err)
	}
	if len(c.Ports) != 1 || int(c.Ports[0].ContainerPort) != port {
		t.Errorf("container ports %v, want the one --listen names (%d)", c.Ports, port)
	}

	token, ok := envValue(c, agentTokenEnv)
	if !ok || token.Value != "" || token.ValueFrom == nil || token.ValueFrom.SecretKeyRef == nil {
		t.Errorf("%s must come from a Secret (valueFrom.secretKeyRef), got %+v", agentTokenEnv, token)
	} else if token.ValueFrom.SecretKeyRef.Name != agentName {
		t.Errorf("%s reads Secret %s, want %s (the README creates it)", agentTokenEnv, token.ValueFrom.SecretKeyRef.Name, agentName)
	}
	node, ok := envValue(c, "NODE_NAME")
	if !ok || node.ValueFrom == nil || node.ValueFrom.FieldRef == nil || node.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("NODE_NAME must come from the downward API (fieldRef spec.nodeName), got %+v", node)
	}
	if c.ReadinessProbe == nil {
		t.Error("no readinessProbe: the headless Service would list agents before they listen")
	}
}

// splitListen splits host:port.
func splitListen(listen string) (string, int, error) {
	i := strings.LastIndexByte(listen, ':')
	if i < 0 {
		return "", 0, strconv.ErrSyntax
	}
	port, err := strconv.Atoi(listen[i+1:])
	return listen[:i], port, err
}

func TestAgentServiceIsHeadless(t *testing.T) {
	m := loadManifests(t)
	s, ok := m.services[agentName]
	if !ok {
		t.Fatalf("no Service %s", agentName)
	}
	if s.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("clusterIP %q, want None: a client must resolve one address per agent", s.Spec.ClusterIP)
	}
	ds := m.daemonSets[agentName]
	if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(ds.Spec.Template.Labels)) {
		t.Errorf("the Service's selector %v does not select the agent pods %v", s.Spec.Selector, ds.Spec.Template.Labels)
	}
	// Nothing else may carry the agents' labels, or the Service would list it.
	for name, tmpl := range m.podSpecs() {
		if name != "DaemonSet "+agentName && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(tmpl.Labels)) {
			t.Errorf("%s's pods match the agent Service's selector", name)
		}
	}
	_, c := agentContainer(t, m)
	if len(s.Spec.Ports) != 1 {
		t.Fatalf("ports %v, want one", s.Spec.Ports)
	}
	p := s.Spec.Ports[0]
	target := p.TargetPort
	if target.Type == intstr.String && target.StrVal != c.Ports[0].Name ||
		target.Type == intstr.Int && target.IntVal != 0 && target.IntVal != c.Ports[0].ContainerPort {
		t.Errorf("targetPort %s is not the agent's port %s/%d", target.String(), c.Ports[0].Name, c.Ports[0].ContainerPort)
	}
	if p.Port != c.Ports[0].ContainerPort {
		t.Errorf("port %d differs from the agent's %d: with a headless Service clients dial the pod's port", p.Port, c.Ports[0].ContainerPort)
	}
}

// checkOnlyRule fails unless rules are exactly verb on resource in the core
// API group: no other verb, resource, group, name or URL.
func checkOnlyRule(t *testing.T, what string, rules []rbacv1.PolicyRule, resource, verb string) {
	t.Helper()
	want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{resource}, Verbs: []string{verb}}}
	if len(rules) != 1 || !slices.Equal(rules[0].APIGroups, want[0].APIGroups) || !slices.Equal(rules[0].Resources, want[0].Resources) ||
		!slices.Equal(rules[0].Verbs, want[0].Verbs) || len(rules[0].ResourceNames) > 0 || len(rules[0].NonResourceURLs) > 0 {
		t.Errorf("%s has rules %+v, want exactly %q on %q in the core group", what, rules, verb, resource)
	}
}

func TestRBACIsMinimal(t *testing.T) {
	m := loadManifests(t)
	cr, ok := m.clusterRoles[agentRole]
	if !ok {
		t.Fatalf("no ClusterRole %s", agentRole)
	}
	checkOnlyRule(t, "ClusterRole "+agentRole, cr.Rules, "nodes", "get")
	crb, ok := m.clusterRoleBindings[agentRole]
	if !ok {
		t.Fatalf("no ClusterRoleBinding %s", agentRole)
	}
	if crb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: agentRole}) {
		t.Errorf("ClusterRoleBinding %s refers to %+v", crb.Name, crb.RoleRef)
	}
	if len(crb.Subjects) != 1 || crb.Subjects[0].Kind != rbacv1.ServiceAccountKind || crb.Subjects[0].Name != agentName || crb.Subjects[0].Namespace == "" {
		t.Errorf("ClusterRoleBinding %s binds %+v, want the ServiceAccount %s with its namespace", crb.Name, crb.Subjects, agentName)
	}

	role, ok := m.roles[clientRole]
	if !ok {
		t.Fatalf("no Role %s", clientRole)
	}
	checkOnlyRule(t, "Role "+clientRole, role.Rules, "pods", "list")
	rb, ok := m.roleBindings[clientRole]
	if !ok {
		t.Fatalf("no RoleBinding %s", clientRole)
	}
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: clientRole}) {
		t.Errorf("RoleBinding %s refers to %+v", rb.Name, rb.RoleRef)
	}
	if len(rb.Subjects) != 1 || rb.Subjects[0].Kind != rbacv1.ServiceAccountKind || rb.Subjects[0].Name != clientAccount {
		t.Errorf("RoleBinding %s binds %+v, want the ServiceAccount %s", rb.Name, rb.Subjects, clientAccount)
	}
	if _, ok := m.accounts[clientAccount]; !ok {
		t.Errorf("ServiceAccount %s is not defined", clientAccount)
	}
	// The Jobs that do not discover agents use no RBAC: none names a ServiceAccount with roles.
	for name, j := range m.jobs {
		if sa := j.Spec.Template.Spec.ServiceAccountName; sa != "" && sa != clientAccount {
			t.Errorf("Job %s runs as ServiceAccount %s", name, sa)
		}
	}
}

// TestAgentCommandIsAcceptedByFairbench runs the DaemonSet's command line
// through the real CLI in-process, with the pod's variables set, up to the
// point where the agent would listen: a flag or value `fairbench agent` does
// not accept exits 2 (as a control with an unknown flag shows).
func TestAgentCommandIsAcceptedByFairbench(t *testing.T) {
	_, c := agentContainer(t, loadManifests(t))
	env := map[string]string{agentTokenEnv: "from-the-secret", "NODE_NAME": "node-a"}
	args := localArgs(c.Args, containerVars(c, env), t.TempDir(), nil)
	for _, tt := range []struct {
		args []string
		want int
	}{
		{args, cli.ExitOK},
		{append(slices.Clone(args), "--no-such-flag"), cli.ExitUsage},
	} {
		var log syncbuf.Buffer
		app := &cli.App{Stdout: &log, Stderr: &log, Version: "test", Getenv: func(k string) string { return env[k] }}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		code := app.CheckCommandLine(ctx, tt.args)
		cancel()
		if code != tt.want {
			t.Errorf("fairbench %s: exit %d, want %d (%d: it got as far as listening)\n%s", strings.Join(tt.args, " "), code, tt.want, cli.ExitOK, log.String())
		}
	}
}
