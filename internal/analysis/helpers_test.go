package analysis

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/golden"
)

// Machines and servers of the tests.
var (
	armMachine = result.Machine{Arch: "arm64", CPUModel: "Kunpeng-920", Vendor: "HiSilicon", Core: "TaiShan-v110",
		LogicalCPUs: 24, Cores: 24, Sockets: 1, Hostname: "arm-bench"}
	x86Machine = result.Machine{Arch: "amd64", CPUModel: "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", Vendor: "Intel",
		LogicalCPUs: 24, Cores: 12, Sockets: 1, ThreadsPerCore: 2, MaxMHz: 3900, Hostname: "x86-bench"}
	n1Machine = result.Machine{Arch: "arm64", CPUModel: "AWS Graviton2 (ARM Neoverse-N1)", Core: "Neoverse-N1",
		LogicalCPUs: 4, MaxMHz: 2500, Hostname: "bench1"}
	mysql8   = result.Server{Flavor: "MySQL", Version: "8.0.19"}
	mariadb  = result.Server{Flavor: "MariaDB", Version: "10.11.6-MariaDB"}
	testTime = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
)

// fakeRun describes a result to build.
type fakeRun struct {
	machine  result.Machine
	server   result.Server
	workload string
	randType string
	tables   int
	size     int
	// warehouses, when set, replaces tables and table-size in the options.
	warehouses int
	threads    int
	tps, qps   float64
	p95, p99   float64
	tpmC       float64
	status     result.Status
	suite      *result.SuiteCell
	// opts are further options (they win over the ones build sets), and
	// commandLine the result's CommandLine.
	opts        map[string]string
	commandLine []string
	// outage, when set, is the seconds the server was away during the run,
	// 10 s into its measured phase.
	outage float64
	// target is where the load went (default: 127.0.0.1:3306, so that the
	// client machine is the machine under test); serverMachines are the
	// result's server_machines, variables the server's variables and
	// managed the managed server's settings.
	target         *result.Target
	serverMachines []result.ServerMachine
	variables      map[string]string
	managed        map[string]string
	// managedCPUs is the managed server's cpu_list (server start --cpus).
	managedCPUs string
	// scripts are the scripts of a scripted workload.
	scripts []result.Script
}

// build makes a result of r, with defaults for what r leaves empty.
func (r fakeRun) build() *result.Result {
	if r.workload == "" {
		r.workload = "oltp_read_write"
	}
	if r.randType == "" {
		r.randType = "uniform"
	}
	if r.tables == 0 && r.warehouses == 0 {
		r.tables, r.size = 4, 100000
	}
	if r.status == "" {
		r.status = result.StatusComplete
	}
	res := &result.Result{
		Schema:   result.SchemaVersion,
		Tool:     result.Tool{Name: "fairbench", Version: "test"},
		Workload: r.workload,
		Options:  map[string]string{"rand-type": r.randType, "threads": itoa(r.threads)},
		Target:   result.Target{Driver: "mysql", Hosts: []string{"127.0.0.1"}, Ports: []int{3306}, PSMode: "prepared"},
		Machine:  r.machine,
		Server:   r.server,
		Status:   r.status,
		Start:    testTime,
		End:      testTime.Add(time.Minute),
		Threads:  r.threads,
		Totals:   result.Phase{Seconds: 60, TPS: r.tps, QPS: r.qps},
		Suite:    r.suite,
	}
	if r.warehouses > 0 {
		res.Options["warehouses"] = itoa(r.warehouses)
	} else {
		res.Options["tables"], res.Options["table-size"] = itoa(r.tables), itoa(r.size)
	}
	for k, v := range r.opts {
		res.Options[k] = v
	}
	res.CommandLine = r.commandLine
	if r.target != nil {
		res.Target = *r.target
	}
	res.ServerMachines = r.serverMachines
	if r.variables != nil {
		res.Server.Variables = r.variables
	}
	res.Scripts = r.scripts
	if r.managed != nil {
		res.ManagedServer = &result.ManagedServer{Flavor: "mariadb", Profile: "custom", Settings: r.managed}
	}
	if r.managedCPUs != "" {
		if res.ManagedServer == nil {
			res.ManagedServer = &result.ManagedServer{Flavor: "mariadb"}
		}
		res.ManagedServer.CPUList = r.managedCPUs
	}
	if r.outage > 0 {
		res.Outages = []result.Outage{{Start: testTime.Add(10 * time.Second), Seconds: r.outage, Threads: 1}}
	}
	if r.p95 > 0 || r.p99 > 0 {
		res.Totals.Latency.Percentiles = map[string]float64{"95": r.p95, "99": r.p99}
	}
	if r.tpmC > 0 {
		res.Figures = []result.Figure{{Name: "tpmC", Value: r.tpmC, Unit: "transactions/min"}}
	}
	return res
}

func itoa(n int) string { return strconv.Itoa(n) }

// mustSystem builds a system from results or fails the test.
func mustSystem(t *testing.T, label string, runs ...fakeRun) *System {
	t.Helper()
	var res []*result.Result
	for _, r := range runs {
		res = append(res, r.build())
	}
	s, err := FromResults(label, res)
	if err != nil {
		t.Fatalf("FromResults(%s): %v", label, err)
	}
	return s
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// near reports whether a and b agree to a relative tolerance of 1e-6 (or both
// are NaN).
func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
