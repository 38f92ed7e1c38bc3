package cli

import (
	"context"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
)

// startAgent runs `fairbench agent` in-process with args (listening on a
// loopback port of its own) until stop is called; it returns the agent's URL,
// its stderr and stop, which returns the exit code.
func startAgent(t *testing.T, getenv func(string) string, args ...string) (url string, errb *syncbuf.Buffer, stop func() int) {
	t.Helper()
	return startAgentOn(t, &App{Getenv: getenv}, "127.0.0.1:0", args...)
}

// startAgentOn runs `fairbench agent --listen listen` of app (its Getenv and
// Kubernetes) in-process, as startAgent does.
func startAgentOn(t *testing.T, app *App, listen string, args ...string) (url string, errb *syncbuf.Buffer, stop func() int) {
	t.Helper()
	var out syncbuf.Buffer
	errb = &syncbuf.Buffer{}
	app.Stdout, app.Stderr, app.Version = &out, errb, "test"
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- app.Execute(ctx, append([]string{"agent", "--listen", listen}, args...))
	}()
	addr := regexp.MustCompile(`on (http://127\.[0-9.]+:\d+) \(read-only\)`)
	for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		select {
		case c := <-code:
			cancel()
			t.Fatalf("agent ended with %d: %s %s", c, out.String(), errb.String())
		default:
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("no address printed: %q", out.String())
	}
	return url, errb, func() int {
		cancel()
		select {
		case c := <-code:
			return c
		case <-time.After(30 * time.Second):
			t.Fatal("the agent did not stop on cancel")
			return -1
		}
	}
}

func TestAgentCommand(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	ctx := context.Background()
	url, errb, stop := startAgent(t, func(k string) string { return map[string]string{"AGENT_TOKEN": "tok"}[k] },
		"--token-env", "AGENT_TOKEN", "--pid", strconv.Itoa(os.Getpid()))
	m, err := (&agent.Client{URL: url, Token: "tok"}).Machine(ctx)
	if err != nil || m.PID != os.Getpid() {
		t.Errorf("machine %+v, %v", m, err)
	}
	if m.Node != "" || m.InstanceType != "" || m.Note != "" {
		t.Errorf("without NODE_NAME or --cloud-metadata: node %q instance type %q note %q, want none", m.Node, m.InstanceType, m.Note)
	}
	if _, err := (&agent.Client{URL: url}).Counters(ctx); err == nil || !strings.Contains(err.Error(), "needs a token") {
		t.Errorf("without the token: %v", err)
	}
	if c := stop(); c != ExitOK {
		t.Errorf("exit %d after cancel, want 0; stderr %q", c, errb.String())
	}
	if errb.String() != "" {
		t.Errorf("stderr %q (no warning on loopback with a token)", errb.String())
	}
}

// TestAgentCommandPlacement: --cloud-metadata aws asks the (fake) IMDS, and
// NODE_NAME outside a cluster keeps the node's name with a note.
func TestAgentCommandPlacement(t *testing.T) {
	_, imds := placementtest.StartCloud(t, func(f *placementtest.Cloud) http.HandlerFunc { return f.AWS })
	url, _, stop := startAgent(t, func(k string) string { return map[string]string{"NODE_NAME": "node-7"}[k] },
		"--cloud-metadata", "AWS", "--cloud-metadata-endpoint", imds)
	defer stop()
	m, err := (&agent.Client{URL: url}).Machine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.InstanceType != "c7g.2xlarge" || m.Region != "eu-west-1" || m.Zone != "eu-west-1b" || m.Node != "node-7" {
		t.Errorf("instance type %q region %q zone %q node %q; want c7g.2xlarge eu-west-1 eu-west-1b node-7", m.InstanceType, m.Region, m.Zone, m.Node)
	}
	if !strings.Contains(m.Note, "node node-7's labels not read") || !strings.Contains(m.Note, "KUBERNETES_SERVICE_HOST") {
		t.Errorf("note %q: want one saying node-7's labels were not read, and why", m.Note)
	}
}

func TestAgentCommandBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"agent"}, "--listen ADDR is required"},
		{[]string{"agent", "--listen", "9107"}, "want HOST:PORT"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--token-env", "EMPTY"}, "EMPTY: that environment variable is empty"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--pid", "1", "--process", "x"}, "not both"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--process", "no-such-process-fb"}, "no process is named"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--pid", "1073741824"}, "process 1073741824"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--cloud-metadata", "ibm"}, `--cloud-metadata: cloud metadata provider "ibm": want one of off, auto, aws, gcp, azure`},
	} {
		r := runCLI(ctx, nil, tc.args...)
		if r.code == ExitOK || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestAgentCommandWarnsOffLoopback(t *testing.T) {
	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() { code <- app.Execute(ctx, []string{"agent", "--listen", "0.0.0.0:0"}) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(errb.String(), "without a token") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-code
	if !strings.Contains(errb.String(), "without a token: anyone who reaches the port") {
		t.Errorf("stderr %q: no warning for all interfaces without a token", errb.String())
	}
}
