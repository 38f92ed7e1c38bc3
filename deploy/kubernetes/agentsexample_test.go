package kubernetes_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/cli"
	"github.com/fairbench/fairbench/internal/machine/placement"
	"github.com/fairbench/fairbench/internal/run/suite"
)

// agentsExample is a commented line of the Jobs' and the plan's example
// that finds the agents: a --server-* argument, the serviceAccountName, a
// server_* plan key, or the start of the token variable (whose deeper
// commented lines follow it).
var agentsExample = regexp.MustCompile(`^(\s*)# ((?:- --server-|serviceAccountName: |server_agent_service: |server_pods: |server_agent_token_env: |(- name: ` + agentTokenEnv + `)).*)$`)

// uncommentAgents uncomments the agents example in text as the README tells
// a user to, and says how many lines it uncommented.
func uncommentAgents(text []byte) ([]byte, int) {
	lines := strings.Split(string(text), "\n")
	n := 0
	continued := "" // the prefix of the token variable's commented lines
	for i, l := range lines {
		if continued != "" && strings.HasPrefix(l, continued) {
			lines[i] = strings.Replace(l, "# ", "", 1)
			n++
			continue
		}
		continued = ""
		if m := agentsExample.FindStringSubmatch(l); m != nil {
			lines[i] = m[1] + m[2]
			n++
			if m[3] != "" {
				continued = m[1] + "#   "
			}
		}
	}
	return []byte(strings.Join(lines, "\n")), n
}

// TestAgentsExampleIsAccepted uncomments the Jobs' and the plan's agents
// example and checks that the result decodes strictly, runs as the client
// ServiceAccount, takes the agents' token from the DaemonSet's Secret, names
// the agents' Service and port, and that fairbench accepts the run Job's
// command line (up to connecting) and the plan.
func TestAgentsExampleIsAccepted(t *testing.T) {
	docs := readDocuments(t)
	lines := map[string]int{}
	for i := range docs {
		var n int
		docs[i].text, n = uncommentAgents(docs[i].text)
		lines[docs[i].file] += n
	}
	for file, want := range map[string]int{"job.yaml": 9, "suite-job.yaml": 6, "configmap-plan.yaml": 3} {
		if lines[file] != want {
			t.Errorf("%s: %d lines of the agents example uncommented, want %d", file, lines[file], want)
		}
	}
	m := decodeManifests(t, docs)
	_, agentC := agentContainer(t, m)
	agentToken, _ := envValue(agentC, agentTokenEnv)
	svc := m.services[agentName]
	if svc == nil || len(svc.Spec.Ports) != 1 {
		t.Fatalf("no Service %s with one port", agentName)
	}
	env := map[string]string{agentTokenEnv: "from-the-agent-secret"}
	for _, v := range passwordVars {
		env[v] = "from-the-secret"
	}
	for _, name := range []string{runJob, suiteJob} {
		j := m.job(t, name)
		if sa := j.Spec.Template.Spec.ServiceAccountName; sa != clientAccount {
			t.Errorf("Job %s: serviceAccountName %q in the example, want %s (client-rbac.yaml)", name, sa, clientAccount)
		}
		c := fairbenchContainer(t, j)
		e, ok := envValue(c, agentTokenEnv)
		if !ok || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || agentToken.ValueFrom == nil ||
			*e.ValueFrom.SecretKeyRef != *agentToken.ValueFrom.SecretKeyRef {
			t.Errorf("Job %s: %s %+v, want it from the agents' Secret as the DaemonSet takes it", name, agentTokenEnv, e)
		}
	}

	c := fairbenchContainer(t, m.job(t, runJob))
	flags := flagValues(t, c.Args)
	service, port, err := placement.ParseService(flags["--server-agent-service"])
	if err != nil || service != svc.Name || port != int(svc.Spec.Ports[0].Port) {
		t.Errorf("--server-agent-service=%q (%v): want the Service %s on its port %d", flags["--server-agent-service"], err, svc.Name, svc.Spec.Ports[0].Port)
	}
	if flags["--server-pods"] == "" || flags["--server-agent-token-env"] != agentTokenEnv {
		t.Errorf("--server-pods=%q --server-agent-token-env=%q", flags["--server-pods"], flags["--server-agent-token-env"])
	}
	vars := containerVars(c, map[string]string{"JOB_COMPLETION_INDEX": "0", "START_AT": strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)})
	args := localArgs(c.Args, vars, t.TempDir(), nil)
	var log syncbuf.Buffer
	app := &cli.App{Stdout: &log, Stderr: &log, Version: "test", Getenv: func(k string) string { return env[k] }}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if code := app.CheckCommandLine(ctx, args); code != cli.ExitOK {
		t.Errorf("fairbench %s: exit %d, want %d (it got as far as finding the agents)\n%s", strings.Join(args, " "), code, cli.ExitOK, log.String())
	}

	p, err := suite.ParsePlan("configmap-plan.yaml:"+planKey, []byte(m.configMaps[planMap].Data[planKey]))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(suite.Env{Registry: registry(), CPUs: 4, Getenv: func(k string) string { return env[k] }}); err != nil {
		t.Fatal(err)
	}
	if s := p.Target.Sources(); s.Service != svc.Name || s.Pods == "" || s.TokenEnv != agentTokenEnv {
		t.Errorf("the plan's agents example is %+v, want the Service %s, a pod selector and %s", s, svc.Name, agentTokenEnv)
	}
}
