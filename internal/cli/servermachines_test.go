package cli

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// mariadbPID is the shared MariaDB's process, found as the agent's --process would.
func mariadbPID(t *testing.T) int {
	t.Helper()
	for _, name := range []string{"mariadbd", "mysqld"} {
		if pid, err := hostcounters.FindProcess(os.DirFS("/"), name); err == nil {
			return pid
		}
	}
	t.Skip("no mariadbd process visible")
	return 0
}

// TestRunObservesTheServerMachine: a run against the shared MariaDB over
// 127.0.0.1 records this machine as the server's (source local, the
// mariadbd process) and what it did; with --server-agent the agent
// describes and observes it; an agent stopped mid-run leaves the run whole,
// its figures covering the time it answered; an agent that does not answer
// at the start refuses the run. The cases run in parallel.
func TestRunObservesTheServerMachine(t *testing.T) {
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	pid := mariadbPID(t)
	ctx := context.Background()
	runArgs := func(out string, extra ...string) []string {
		return join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=1", "--time=3", "--output=" + out}, extra, targetArgs(cfg))
	}

	t.Run("local", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "r.json")
		if r := runCLI(ctx, nil, runArgs(out)...); r.code != ExitOK {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		res := readResult(t, out)
		if len(res.ServerMachines) != 1 || res.ServerMachines[0].Source != result.ServerSourceLocal || res.ServerMachines[0].PID != pid {
			t.Fatalf("server_machines %+v, want this machine with mariadbd (pid %d)", res.ServerMachines, pid)
		}
		o := res.Observed.ServerMachines
		if len(o) != 1 || o[0].Source != "local" || o[0].CPU == nil || o[0].Process == nil || o[0].Process.PID != pid || o[0].Process.CPUPct <= 0 {
			t.Fatalf("observed.server_machines %+v", o)
		}
		if !strings.Contains(res.Observed.Verdict, "server machine CPUs") {
			t.Errorf("verdict %q", res.Observed.Verdict)
		}
	})

	t.Run("agent", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{"AGENT_TOKEN": "tok"}
		url, _, stop := startAgent(t, func(k string) string { return env[k] }, "--token-env", "AGENT_TOKEN", "--pid", strconv.Itoa(pid))
		defer stop()
		out := filepath.Join(t.TempDir(), "r.json")
		r := runCLI(ctx, env, runArgs(out, "--server-agent", url, "--server-agent-token-env", "AGENT_TOKEN")...)
		if r.code != ExitOK {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		res := readResult(t, out)
		if len(res.ServerMachines) != 1 || res.ServerMachines[0].Source != result.ServerSourceAgent || res.ServerMachines[0].Agent != url || res.ServerMachines[0].PID != pid {
			t.Fatalf("server_machines %+v, want the agent's", res.ServerMachines)
		}
		o := res.Observed.ServerMachines
		if len(o) != 1 || o[0].Source != "agent" || o[0].CPU == nil || o[0].Process == nil || o[0].Process.CPUPct <= 0 || o[0].Note != "" {
			t.Fatalf("observed.server_machines %+v", o)
		}
		if strings.Contains(strings.Join(res.CommandLine, " "), "tok ") {
			t.Errorf("the token is in the command line: %q", res.CommandLine)
		}
		// Without the variable's value the run is refused before it starts.
		r = runCLI(ctx, nil, runArgs(filepath.Join(t.TempDir(), "x.json"), "--server-agent", url, "--server-agent-token-env", "AGENT_TOKEN")...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "AGENT_TOKEN is empty or unset") {
			t.Errorf("empty token variable: exit %d\n%s", r.code, r.stderr)
		}
	})

	t.Run("agent stops mid-run", func(t *testing.T) {
		t.Parallel()
		// An agent whose counters requests are counted, stopped once the run
		// has read them three times (the start of the phase and two ticks).
		srv, err := agent.NewServer(ctx, agent.Options{PID: pid})
		if err != nil {
			t.Fatal(err)
		}
		reads := make(chan struct{}, 100)
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == agent.PathCounters {
				reads <- struct{}{}
			}
			srv.ServeHTTP(w, r)
		}))
		defer hs.Close()
		url := hs.URL
		out := filepath.Join(t.TempDir(), "r.json")
		done := make(chan cliRun, 1)
		go func() {
			done <- runCLI(ctx, nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=1", "--time=8", "--output=" + out, "--server-agent", url}, targetArgs(cfg))...)
		}()
		for i := 0; i < 3; i++ {
			select {
			case <-reads:
			case r := <-done:
				t.Fatalf("the run ended before the agent was read 3 times: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		}
		hs.CloseClientConnections()
		hs.Listener.Close()
		hs.CloseClientConnections()
		r := <-done
		if r.code != ExitOK {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		res := readResult(t, out)
		o := res.Observed.ServerMachines
		if len(o) != 1 || o[0].CPU == nil || !strings.Contains(o[0].Note, "agent "+url+" stopped answering") || !strings.Contains(o[0].Note, "its figures cover the first") {
			t.Fatalf("observed.server_machines %+v", o)
		}
		t.Logf("warnings: %q\nverdict: %s", res.Warnings, res.Observed.Verdict)
		if !hasWarning(res, "server machines: agent "+url+" stopped answering") || !strings.Contains(r.stdout, "stopped answering") {
			t.Errorf("warnings %q / output lack the lost agent:\n%s", res.Warnings, r.stdout)
		}
	})

	t.Run("agent unreachable", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + ln.Addr().String()
		ln.Close()
		out := filepath.Join(t.TempDir(), "r.json")
		r := runCLI(ctx, nil, runArgs(out, "--server-agent", url)...)
		if r.code != ExitTarget || !strings.Contains(r.stderr, "cannot reach the fairbench agent at "+url) || !strings.Contains(r.stderr, "nothing was run") {
			t.Errorf("exit %d, want %d\n%s%s", r.code, ExitTarget, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "transactions:") {
			t.Errorf("the run started:\n%s", r.stdout)
		}
	})
}

func hasWarning(res *result.Result, prefix string) bool {
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}
