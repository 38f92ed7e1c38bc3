package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
)

// writeServerResult writes a result of oltp_point_select at 4 threads run
// from an x86 client against a remote server described by sm (none: a
// result of schema 1.3 that does not know its server's machine), with
// server variables vars.
func writeServerResult(t *testing.T, dir, name string, tps float64, sm []result.ServerMachine, vars map[string]string) string {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res := &result.Result{
		Schema: result.SchemaVersion, Tool: result.Tool{Name: "fairbench", Version: "test"},
		Workload: "oltp_point_select", Options: map[string]string{"rand-type": "uniform", "tables": "1", "table-size": "1000", "threads": "4"},
		Target:         result.Target{Driver: "mysql", Hosts: []string{"10.1.2.3"}, Ports: []int{3306}, PSMode: "prepared"},
		Machine:        result.Machine{Arch: "amd64", CPUModel: "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", LogicalCPUs: 24, Hostname: "client"},
		Server:         result.Server{Flavor: "MariaDB", Version: "10.11.6-MariaDB", Variables: vars},
		ServerMachines: sm, Status: result.StatusComplete, Start: start, End: start.Add(time.Minute), Threads: 4,
		Totals: result.Phase{Seconds: 60, TPS: tps, QPS: tps},
	}
	path := filepath.Join(dir, name+".json")
	if err := result.Write(path, res); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareAndCostJudgeTheServerMachine: compare scales by the server
// machines a result records (saying where each figure came from), refuses to
// scale a remote server's unknown machine (saying how to fix it), opens with
// what differs, and cost prices the recorded instance type and region.
func TestCompareAndCostJudgeTheServerMachine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	graviton := []result.ServerMachine{{Role: result.RoleServer, Source: result.ServerSourceAgent, Agent: "http://10.1.2.3:7070",
		Machine: result.Machine{Arch: "arm64", CPUModel: "Neoverse-N1", Core: "Neoverse-N1", LogicalCPUs: 8, MaxMHz: 2500,
			InstanceType: "m6g.2xlarge", Region: "us-east-1", Hostname: "db-arm"}}}
	xeon := []result.ServerMachine{{Role: result.RoleServer, Source: result.ServerSourceFlags,
		Machine: result.Machine{Arch: "amd64", LogicalCPUs: 8, GivenGHz: 3.1, InstanceType: "m5.2xlarge", Region: "us-east-1"}}}
	arm := writeServerResult(t, dir, "arm", 1000, graviton, map[string]string{"innodb_flush_log_at_trx_commit": "1"})
	x86 := writeServerResult(t, dir, "x86", 1100, xeon, map[string]string{"innodb_flush_log_at_trx_commit": "2"})
	old := writeServerResult(t, dir, "old", 900, nil, map[string]string{"innodb_flush_log_at_trx_commit": "1"})

	r := runCLI(ctx, nil, "compare", "arm="+arm, "x86="+x86)
	for _, want := range []string{
		"What differs between the systems",
		"variable innodb_flush_log_at_trx_commit | 1",
		"server instance type                    | m6g.2xlarge             | m5.2xlarge",
		"arm: server machine db-arm (arm64 Neoverse-N1 ×8) from server_machines (agent), MariaDB 10.11.6-MariaDB, 2.5 GHz (cpufreq max), 8 vCPU,",
		"x86: server machine amd64 ×8 from server_machines (flags), MariaDB 10.11.6-MariaDB, 3.1 GHz (--server-ghz), 8 vCPU,",
		"x86 fscaled", "Per compute power",
	} {
		if r.code != ExitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("compare: exit %d, output lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if strings.Index(r.stdout, "What differs") > strings.Index(r.stdout, "Systems:") {
		t.Errorf("compare does not open with what differs:\n%s", r.stdout)
	}

	r = runCLI(ctx, nil, "compare", "arm="+arm, "old="+old)
	for _, want := range []string{
		"old: server machine unknown, client client (amd64 Intel Xeon Gold 6266C ×24)",
		"old: the database server's machine is unknown (the result ran against 10.1.2.3, and records no server_machines)",
		"--ghz LABEL=GHz --vcpus LABEL=N, or record the server's machine with run --server-agent or --server-machine",
	} {
		if r.code != ExitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("compare with a remote 1.3 result: exit %d, output lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "fscaled") || strings.Contains(r.stdout, "Per compute power") {
		t.Errorf("the unknown machine was scaled:\n%s", r.stdout)
	}
	// The user's figures make it scalable.
	r = runCLI(ctx, nil, "compare", "--ghz", "old=3.0", "--vcpus", "old=8", "arm="+arm, "old="+old)
	if r.code != ExitOK || !strings.Contains(r.stdout, "old fscaled") || !strings.Contains(r.stdout, "3 GHz (--ghz), 8 vCPU (--vcpus)") {
		t.Errorf("compare --ghz --vcpus: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	sheet := writeFile(t, "prices.yaml", `source: test
instances:
  - {name: east/m6g.2xlarge, type: m6g.2xlarge, region: us-east-1, arch: arm64, vcpu: 8, price_per_hour: 0.308}
  - {name: west/m6g.2xlarge, type: m6g.2xlarge, region: us-west-2, arch: arm64, vcpu: 8, price_per_hour: 0.308}
  - {name: east/m5.2xlarge, type: m5.2xlarge, region: us-east-1, arch: x86_64, vcpu: 6, price_per_hour: 0.384}
systems:
  - {name: graviton, items: [{instance: east/m6g.2xlarge}]}
  - {name: xeon, items: [{instance: east/m5.2xlarge}]}
`)
	c := runCLI(ctx, nil, "cost", "--prices", sheet, "arm="+arm, "x86="+x86)
	for _, want := range []string{
		"Cost of graviton", "Cost of xeon",
		"warning: x86: its server machine (m5.2xlarge) recorded 8 vCPUs, the price sheet's instance east/m5.2xlarge has 6",
	} {
		if c.code != ExitOK || !strings.Contains(c.stdout, want) {
			t.Errorf("cost: exit %d, output lacks %q:\n%s%s", c.code, want, c.stdout, c.stderr)
		}
	}
	c = runCLI(ctx, nil, "cost", "--prices", sheet, "arm="+arm, "old="+old)
	if c.code != ExitUsage || !strings.Contains(c.stderr, "old run on? its results record no instance type of the server's machine: give --system old=SYSTEM") {
		t.Errorf("cost of an unknown machine: exit %d %s", c.code, c.stderr)
	}
}
