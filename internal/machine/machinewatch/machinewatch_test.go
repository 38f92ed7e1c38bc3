package machinewatch

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/record/result"
)

// startAgent serves a real agent (this machine, this process as the
// database's) on a loopback port until stop.
func startAgent(t *testing.T, token string) (url string, stop func()) {
	t.Helper()
	srv, err := agent.NewServer(context.Background(), agent.Options{Token: token, PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return "http://" + ln.Addr().String(), stop
}

// burn keeps a CPU busy for d, so that the process's CPU time moves.
func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

var remote = driver.Config{Kind: driver.KindMySQL, Hosts: []string{"db.example"}, Ports: []int{3306}}

func TestAgentObserved(t *testing.T) {
	url, _ := startAgent(t, "s3cret")
	ctx := context.Background()
	p, err := Sources{Agents: "tikv=" + url, TokenEnv: "TOK"}.Parse(func(k string) string { return map[string]string{"TOK": "s3cret"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	w, err := Prepare(ctx, remote, Options{Agents: p.Agents, Token: p.Token})
	if err != nil {
		t.Fatal(err)
	}
	ms, notes := w.Describe(ctx)
	if len(ms) != 1 || ms[0].Source != result.ServerSourceAgent || ms[0].Role != "tikv" || ms[0].Agent != url || ms[0].PID != os.Getpid() || len(notes) != 0 {
		t.Fatalf("Describe = %+v, %v", ms, notes)
	}
	w.Begin(ctx)
	burn(300 * time.Millisecond)
	w.Interval(result.Interval{})
	obs, notes := w.End(ctx)
	if len(obs) != 1 || len(notes) != 0 {
		t.Fatalf("End = %+v, %v", obs, notes)
	}
	o := obs[0]
	if o.Role != "tikv" || o.Source != "agent" || o.CPU == nil || o.Seconds <= 0 || o.Process == nil || o.Process.CPUPct <= 0 || o.Note != "" {
		t.Errorf("observed %+v (process %+v)", o, o.Process)
	}
}

func TestAgentStopsMidRun(t *testing.T) {
	url, stop := startAgent(t, "")
	ctx := context.Background()
	w, err := Prepare(ctx, remote, Options{Agents: []agent.Endpoint{{Role: "server", URL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Begin(ctx)
	// The ticker reads the agent at least once before it stops.
	time.Sleep(TickInterval + 700*time.Millisecond)
	stop()
	time.Sleep(200 * time.Millisecond)
	obs, notes := w.End(ctx)
	if len(obs) != 1 || obs[0].CPU == nil || obs[0].Seconds <= 0 {
		t.Fatalf("End = %+v, %v", obs, notes)
	}
	want := "agent " + url + " stopped answering "
	if len(notes) != 1 || !strings.HasPrefix(notes[0], want) || !strings.Contains(notes[0], "its figures cover the first") || !strings.HasPrefix(obs[0].Note, want) {
		t.Errorf("notes %q, entry note %q; want them to start %q", notes, obs[0].Note, want)
	}
}

func TestAgentUnreachableRefuses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	_, err = Prepare(context.Background(), remote, Options{Agents: []agent.Endpoint{{Role: "server", URL: url}}})
	var te *TargetError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "nothing was run") || !strings.Contains(err.Error(), url) {
		t.Errorf("Prepare = %v, want a TargetError naming %s", err, url)
	}
}

func TestLocalObserved(t *testing.T) {
	ctx := context.Background()
	cfg := driver.Config{Kind: driver.KindSQLite, Path: "x.db"}
	w, err := Prepare(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := w.Describe(ctx)
	if len(ms) != 1 || ms[0].Source != result.ServerSourceLocal || ms[0].PID != os.Getpid() {
		t.Fatalf("Describe = %+v", ms)
	}
	w.Begin(ctx)
	burn(300 * time.Millisecond)
	obs, notes := w.End(ctx)
	if len(obs) != 1 || obs[0].Source != "local" || obs[0].CPU == nil || obs[0].Process == nil || obs[0].Process.PID != os.Getpid() || len(notes) != 0 {
		t.Fatalf("End = %+v, %v", obs, notes)
	}
}

func TestRemoteUnknownAndFlags(t *testing.T) {
	ctx := context.Background()
	w, err := Prepare(ctx, remote, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, notes := w.Describe(ctx)
	if len(ms) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "machine is not known") {
		t.Errorf("remote without description: %+v, %q", ms, notes)
	}
	w.Begin(ctx)
	if obs, notes := w.End(ctx); len(obs) != 0 || len(notes) != 0 {
		t.Errorf("End = %+v, %v; want nothing observed", obs, notes)
	}
	w, err = Prepare(ctx, remote, Options{Spec: servermachine.Spec{VCPUs: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if ms, _ := w.Describe(ctx); len(ms) != 1 || ms[0].Source != result.ServerSourceFlags || len(w.watched) != 0 {
		t.Errorf("flags: %+v, watched %d", ms, len(w.watched))
	}
}

func TestSourcesInput(t *testing.T) {
	env := func(k string) string { return map[string]string{"SET": "tok"}[k] }
	const svc, pods = "fairbench-agent", "app=db"
	for _, tc := range []struct {
		s        Sources
		key, err string
	}{
		{Sources{}, "", ""},
		{Sources{Agents: "http://db1:9107"}, "", ""},
		{Sources{Agents: "http://db1:9107", TokenEnv: "SET"}, "", ""},
		{Sources{Service: svc, Pods: pods, TokenEnv: "SET"}, "", ""},
		{Sources{Service: svc + ":1234", Pods: pods, Namespace: "bench"}, "", ""},
		{Sources{TokenEnv: "SET"}, KeyTokenEnv, "no --server-agent or --server-agent-service"},
		{Sources{Agents: "http://db1:9107", TokenEnv: "UNSET"}, KeyTokenEnv, "UNSET is empty or unset"},
		{Sources{Agents: "db1:9107"}, KeyAgents, "must start with http://"},
		{Sources{Agents: "http://db1:9107", Service: svc, Pods: pods}, KeyService, "give one of them"},
		{Sources{Service: svc}, KeyPods, "needs --server-pods SELECTOR"},
		{Sources{Pods: pods}, KeyPods, "needs --server-agent-service"},
		{Sources{Namespace: "bench"}, KeyNamespace, "--server-pods, which is not given"},
		{Sources{Service: "Agents", Pods: pods}, KeyService, "not a Service's DNS name"},
		{Sources{Service: svc, Pods: " app=db"}, KeyPods, "starts or ends with a space"},
		{Sources{Service: svc, Pods: pods, Namespace: "Bench"}, KeyNamespace, "not a namespace's name"},
	} {
		p, err := tc.s.Parse(env)
		var se *SourceError
		if (err == nil) != (tc.err == "") || err != nil && (!strings.Contains(err.Error(), tc.err) || !errors.As(err, &se) || se.Key != tc.key) {
			t.Errorf("%+v: %v (key %+v), want %q at %s", tc.s, err, se, tc.err, tc.key)
		}
		if err == nil && (tc.s.Service != "") != (p.Kubernetes != nil) {
			t.Errorf("%+v: Kubernetes %+v", tc.s, p.Kubernetes)
		}
	}
	p, _ := Sources{Service: svc + ":1234", Pods: pods, Namespace: "bench", TokenEnv: "SET"}.Parse(env)
	if k := p.Kubernetes; k.Service != svc || k.Port != 1234 || k.Selector != pods || k.Namespace != "bench" || p.Token != "tok" {
		t.Errorf("parsed %+v, token %q", k, p.Token)
	}
	if _, err := Prepare(context.Background(), remote, Options{Agents: []agent.Endpoint{{URL: "http://x"}}, Spec: servermachine.Spec{VCPUs: 2}}); err == nil || !strings.Contains(err.Error(), "leave out") {
		t.Errorf("agent with flags: %v", err)
	}
}

// TestLocalReadAtPhaseEndsOnly: this machine's /proc is read when the phase
// begins and when it ends, never at an interval or a tick in between (an
// agent's machine is: TestAgentStopsMidRun).
func TestLocalReadAtPhaseEndsOnly(t *testing.T) {
	ctx := context.Background()
	w, err := Prepare(ctx, driver.Config{Kind: driver.KindSQLite, Path: "x.db"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.watched) != 1 {
		t.Fatalf("%d machines watched, want this one", len(w.watched))
	}
	m := w.watched[0]
	var reads atomic.Int32
	var holding atomic.Bool
	hold := make(chan struct{})
	read := m.read
	m.read = func(ctx context.Context) (hostcounters.Snapshot, error) {
		reads.Add(1)
		if holding.Load() {
			<-hold // a reading during the phase stays in flight, to be seen
		}
		return read(ctx)
	}
	w.Begin(ctx)
	<-m.begun
	holding.Store(true)
	w.Interval(result.Interval{})
	w.tick()
	m.mu.Lock()
	inFlight := m.inFlight
	m.mu.Unlock()
	holding.Store(false)
	close(hold)
	if inFlight || w.stopTick != nil {
		t.Errorf("a reading during the phase (in flight %v) or a ticker (%v): this machine is read at the phase's ends only", inFlight, w.stopTick != nil)
	}
	obs, notes := w.End(ctx)
	if n := reads.Load(); n != 2 || len(obs) != 1 || obs[0].Source != "local" || obs[0].Process == nil || len(notes) != 0 {
		t.Errorf("%d readings, observed %+v, notes %v; want 2 readings (begin, end) and the machine observed", n, obs, notes)
	}
}
