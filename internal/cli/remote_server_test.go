package cli

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testnet"
)

// The tests here run against "a remote server": a MariaDB in a network
// namespace of the test's own (internal/testing/testnet), reached over a veth pair.
// fairbench cannot see its process, so it must be told about its machine
// (an agent) or say that it is not known.

// agentTokenEnv names the environment variable the agent and run read the
// bearer token from.
const agentTokenEnv = "FB_TEST_AGENT_TOKEN"

// buildFairbench builds the fairbench binary into dir and returns its path:
// the agent runs as a process of its own, inside the namespace.
func buildFairbench(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "fairbench")
	build := exec.Command("go", "build", "-o", bin, "github.com/fairbench/fairbench/cmd/fairbench")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fairbench: %v\n%s", err, out)
	}
	return bin
}

// remoteAgent is a `fairbench agent` process inside the namespace.
type remoteAgent struct {
	cmd   *exec.Cmd
	url   string
	token string
	done  chan struct{}
}

// startRemoteAgent starts `fairbench agent --listen PEER:9107 --pid PID
// --token-env …` inside m's namespace, waits until it serves, and kills it
// when the test ends.
func startRemoteAgent(t *testing.T, bin string, m *testnet.MariaDB) *remoteAgent {
	t.Helper()
	const port = 9107 // the namespace is the test's own: the port is free
	listen := net.JoinHostPort(m.Host, strconv.Itoa(port))
	a := &remoteAgent{token: "t0k3n-" + strconv.Itoa(os.Getpid()), done: make(chan struct{})}
	a.cmd = m.NS.Command(context.Background(), bin, "agent", "--listen", listen, "--pid", strconv.Itoa(m.PID), "--token-env", agentTokenEnv)
	a.cmd.Env = append(os.Environ(), agentTokenEnv+"="+a.token)
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	a.cmd.Stderr = &stderr
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start the agent: %v", err)
	}
	served := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := regexp.MustCompile(`http://[0-9.:]+`).FindString(sc.Text()); u != "" {
				served <- u
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		<-a.done
	})
	select {
	case a.url = <-served:
	case <-a.done:
		t.Fatalf("the agent exited at start: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the agent did not say it serves within 30 s: %s", stderr.String())
	}
	if want := "http://" + listen; a.url != want {
		t.Fatalf("the agent serves on %s, want %s", a.url, want)
	}
	return a
}

// get fetches path from the agent with the token or without it.
func (a *remoteAgent) get(t *testing.T, path string, withToken bool) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if withToken {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// TestRunRemoteServer runs oltp_point_select against a MariaDB in a network
// namespace of the test's own:
//
//   - without anything describing the server's machine, the result has no
//     server_machines, a warning that the machine is not known, and a
//     verdict that says the server machine was not observed;
//   - with `fairbench agent --pid` running beside the server (inside the
//     namespace) and run --server-agent, the server's machine comes from
//     the agent and what it did is observed, with its CPU and the server
//     process's use;
//   - an agent killed mid-run leaves the result written, complete, with a
//     word about the agent.
//
// The cases with an agent need run --server-agent (issue 15).
func TestRunRemoteServer(t *testing.T) {
	m := testnet.RemoteMariaDB(t)
	bin := buildFairbench(t, t.TempDir())
	target := m.ConnectFlags()
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=1000"}, target)...); r.code != ExitOK {
		t.Fatalf("prepare over the veth: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := func(t *testing.T, env map[string]string, extra ...string) (cliRun, *result.Result) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		r := runCLI(context.Background(), env, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2",
			"--time=3", "--output=" + out}, target, extra)...)
		if _, err := os.Stat(out); err != nil {
			t.Fatalf("no result written (exit %d): %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		res := readResult(t, out)
		if res.Totals.Counts.Events == 0 {
			t.Errorf("no events counted: the run did not reach the server over the veth\n%s", r.stderr)
		}
		if len(res.Target.Hosts) == 0 || res.Target.Hosts[0] != m.Host {
			t.Errorf("target hosts %v, want [%s]", res.Target.Hosts, m.Host)
		}
		return r, res
	}

	t.Run("no description", func(t *testing.T) {
		r, res := run(t, nil)
		if r.code != ExitOK || res.Status != result.StatusComplete {
			t.Fatalf("exit %d, status %s (%s); want 0, complete\n%s", r.code, res.Status, res.Error, r.stderr)
		}
		if len(res.ServerMachines) != 0 {
			t.Errorf("server_machines %+v: the machine of a remote server nothing describes is not known", res.ServerMachines)
		}
		if !containsAny(res.Warnings, "machine is not known") {
			t.Errorf("warnings %q: want one that the server's machine is not known", res.Warnings)
		}
		if !strings.Contains(r.stdout+r.stderr, "machine is not known") {
			t.Errorf("the warning was not printed:\n%s%s", r.stdout, r.stderr)
		}
		if res.Observed == nil {
			t.Fatal("no observed section")
		}
		if len(res.Observed.ServerMachines) != 0 {
			t.Errorf("observed server_machines %+v, want none", res.Observed.ServerMachines)
		}
		if !strings.Contains(res.Observed.Verdict, "not observed") {
			t.Errorf("verdict %q: want it to say the server machine was not observed", res.Observed.Verdict)
		}
	})

	t.Run("agent", func(t *testing.T) {
		a := startRemoteAgent(t, bin, m)
		// The agent runs today: it refuses a request without the token and
		// serves the server process it was given.
		if code, _ := a.get(t, agent.PathMachine, false); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", agent.PathMachine, code)
		}
		code, body := a.get(t, agent.PathMachine, true)
		if code != http.StatusOK {
			t.Fatalf("GET %s with the token: %d %s", agent.PathMachine, code, body)
		}
		if !regexp.MustCompile(`"pid":\s*` + strconv.Itoa(m.PID) + `\b`).Match(body) {
			t.Errorf("the agent's machine does not name the server's PID %d:\n%s", m.PID, body)
		}

		r, res := run(t, map[string]string{agentTokenEnv: a.token}, "--server-agent", a.url, "--server-agent-token-env", agentTokenEnv)
		if r.code != ExitOK || res.Status != result.StatusComplete {
			t.Fatalf("exit %d, status %s (%s); want 0, complete\n%s", r.code, res.Status, res.Error, r.stderr)
		}
		if len(res.ServerMachines) != 1 {
			t.Fatalf("server_machines %+v, want the agent's one", res.ServerMachines)
		}
		sm := res.ServerMachines[0]
		if sm.Source != result.ServerSourceAgent || sm.PID != m.PID {
			t.Errorf("server machine source %q, PID %d; want %q, %d", sm.Source, sm.PID, result.ServerSourceAgent, m.PID)
		}
		if strings.Contains(sm.Agent, a.token) || strings.Contains(strings.Join(res.CommandLine, " "), a.token) {
			t.Errorf("the token is in the result: agent %q, command line %q", sm.Agent, res.CommandLine)
		}
		if containsAny(res.Warnings, "machine is not known") {
			t.Errorf("warnings %q: the machine is known from the agent", res.Warnings)
		}
		if res.Observed == nil || len(res.Observed.ServerMachines) != 1 {
			t.Fatalf("observed %+v, want one server machine", res.Observed)
		}
		o := res.Observed.ServerMachines[0]
		if o.Source != result.ServerSourceAgent || o.CPU == nil || o.CPU.CPUs <= 0 || o.Seconds <= 0 {
			t.Errorf("observed server machine %+v: want source agent, a CPU part and seconds", o)
		}
		if o.Process == nil || o.Process.PID != m.PID || o.Process.UserSeconds+o.Process.SystemSeconds <= 0 {
			t.Errorf("observed server process %+v: want PID %d with the CPU time it spent serving the run", o.Process, m.PID)
		}
		if strings.Contains(res.Observed.Verdict, "not observed") {
			t.Errorf("verdict %q: the server machine was observed", res.Observed.Verdict)
		}
	})

	t.Run("agent killed", func(t *testing.T) {
		a := startRemoteAgent(t, bin, m)
		env := map[string]string{agentTokenEnv: a.token}
		// The kill lands in the measured phase, whatever this machine's
		// speed: once the server has read rows for the run, the run has
		// read the agent at its start.
		db, err := sql.Open("mysql", m.DSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		base, err := rowsRead(db)
		if err != nil {
			t.Fatal(err)
		}
		killed := make(chan error, 1)
		go func() {
			for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				n, err := rowsRead(db)
				if err != nil {
					killed <- err
					return
				}
				if n > base+1000 {
					killed <- a.cmd.Process.Signal(syscall.SIGKILL)
					return
				}
			}
			killed <- errors.New("the run read no rows within 2 minutes")
		}()
		r, res := run(t, env, "--server-agent", a.url, "--server-agent-token-env", agentTokenEnv)
		if err := <-killed; err != nil {
			t.Fatalf("kill the agent mid-run: %v", err)
		}
		if r.code != ExitOK || res.Status != result.StatusComplete {
			t.Errorf("exit %d, status %s (%s); want 0, complete: an agent gone does not change the run\n%s", r.code, res.Status, res.Error, r.stderr)
		}
		if len(res.ServerMachines) != 1 || res.ServerMachines[0].Source != result.ServerSourceAgent {
			t.Errorf("server_machines %+v: want the agent's, read before it was killed", res.ServerMachines)
		}
		var said []string
		for _, s := range res.Warnings {
			if strings.Contains(s, "agent") {
				said = append(said, "warning: "+s)
			}
		}
		if res.Observed != nil {
			notes := []string{res.Observed.Note}
			for _, o := range res.Observed.ServerMachines {
				notes = append(notes, o.Note)
			}
			for _, s := range notes {
				if strings.Contains(s, "agent") {
					said = append(said, "note: "+s)
				}
			}
		}
		t.Logf("said of the agent: %q", said)
		if len(said) == 0 {
			b, _ := json.MarshalIndent(res.Observed, "", "  ")
			t.Errorf("nothing says the agent went away: warnings %q, observed %s", res.Warnings, b)
		}
	})
}

// rowsRead returns the server's Handler_read_key (rows read by key), which
// only the run's queries move.
func rowsRead(db *sql.DB) (int64, error) {
	var name string
	var n int64
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Handler_read_key'").Scan(&name, &n); err != nil {
		return 0, fmt.Errorf("read Handler_read_key: %w", err)
	}
	return n, nil
}

// containsAny reports whether one of ss contains sub.
func containsAny(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
