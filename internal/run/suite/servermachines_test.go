package suite

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// A plan's target.server_agent (with its token from the environment) and
// target.server_machine reach every cell's result: the agent's machine in
// server_machines and what it did in observed.server_machines.
func TestSuiteRecordsServerMachines(t *testing.T) {
	cfg := testdb.MySQL(t)
	srv, err := agent.NewServer(context.Background(), agent.Options{Token: "plan-token"})
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
	t.Cleanup(func() { cancel(); <-done })
	t.Setenv("FAIRBENCH_TEST_AGENT_TOKEN", "plan-token")
	url := "http://" + ln.Addr().String()

	// One cell, flat out (not smallPlan's --rate): the verdict judges the
	// server machine's CPUs only when the run keeps them busy.
	one := func(extra string) string {
		return strings.NewReplacer("  rate: 400\n", "", "rounds: 2", "rounds: 1", "threads: [1, 2]", "threads: [1]", "workloads: [oltp_point_select, oltp_read_write]", "workloads: [oltp_point_select]").
			Replace(smallPlan(targetYAML(cfg)+extra, ""))
	}
	for _, tc := range []struct {
		name, extra, source string
		observed            int
	}{
		{"agent", "  server_agent: " + url + "\n  server_agent_token_env: FAIRBENCH_TEST_AGENT_TOKEN\n", result.ServerSourceAgent, 1},
		{"local", "", result.ServerSourceLocal, 1},
		{"described", "  server_machine: {vcpus: 64, instance_type: m6g.16xlarge}\n", result.ServerSourceLocal, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "suite")
			_, out, err := runPlan(context.Background(), t, writePlan(t, one(tc.extra)), dir, false)
			if err != nil {
				t.Fatalf("suite: %v\n%s", err, out)
			}
			m := checkComplete(t, dir)
			if len(m.Cells) != 1 {
				t.Fatalf("%d cells, want 1", len(m.Cells))
			}
			res := readCell(t, dir, m)
			if len(res.ServerMachines) != 1 || res.ServerMachines[0].Source != tc.source {
				t.Fatalf("server_machines %+v, want one from %s", res.ServerMachines, tc.source)
			}
			sm := res.ServerMachines[0]
			if tc.source == result.ServerSourceAgent && sm.Agent != url {
				t.Errorf("agent %q, want %q", sm.Agent, url)
			}
			if tc.name == "described" && (sm.LogicalCPUs != 64 || sm.InstanceType != "m6g.16xlarge") {
				t.Errorf("described machine %+v", sm)
			}
			if tc.source == result.ServerSourceLocal && sm.Process != "mariadbd" && sm.Process != "mysqld" {
				t.Errorf("local server process %q (pid %d), want mariadbd (note %q)", sm.Process, sm.PID, sm.Note)
			}
			o := res.Observed.ServerMachines
			if len(o) != tc.observed || o[0].Source != tc.source || o[0].CPU == nil || o[0].Seconds <= 0 {
				t.Fatalf("observed.server_machines %+v", o)
			}
			if !strings.Contains(res.Observed.Verdict, "server machine CPUs") {
				t.Errorf("verdict %q does not judge the server machine", res.Observed.Verdict)
			}
		})
	}
}

// readCell reads the result of the manifest's only cell.
func readCell(t *testing.T, dir string, m *suitedir.Manifest) *result.Result {
	t.Helper()
	res, err := result.Read(filepath.Join(dir, m.Cells[0].File))
	if err != nil {
		t.Fatal(err)
	}
	return res
}
