package suite

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/testing/golden"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestExamplePlansValidateAndScale(t *testing.T) {
	files, err := filepath.Glob("../../../plans/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example plans: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			// On a two-socket machine with SMT siblings, whatever this one is:
			// the plans that choose server CPUs are written for large machines.
			p, err := ReadPlan(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(fixtureEnv(intelSys, "")); err != nil {
				t.Fatal(err)
			}
			full := p.estimate(p.Expand())
			if err := p.Scale(0.01); err != nil {
				t.Fatal(err)
			}
			scaled := p.estimate(p.Expand())
			if scaled.Cells != full.Cells {
				t.Errorf("scaling changed the matrix: %d → %d cells", full.Cells, scaled.Cells)
			}
			if !(scaled.Total() < full.Total()) && full.Total() > 10*time.Second {
				t.Errorf("scaled estimate %s not shorter than %s", scaled.Total(), full.Total())
			}
			if p.Run.Time.D() < time.Second {
				t.Errorf("scaled cell time %s below 1s", p.Run.Time.D())
			}
		})
	}
}

func TestQuickPlanIsAboutAMinute(t *testing.T) {
	p := loadPlan(t, "../../../plans/quick.yaml")
	if e := p.estimate(p.Expand()); e.Total() < 30*time.Second || e.Total() > 90*time.Second {
		t.Errorf("quick plan estimate %s, want about a minute", e.Total())
	}
	if p.Server != nil || p.kind() != "sqlite" {
		t.Errorf("quick plan must run on the embedded default")
	}
}

func TestExpandOrderAndAutoThreads(t *testing.T) {
	p := parseValid(t, `
data: {tables: 1, table_size: 1000}
matrix:
  workloads: [oltp_point_select, oltp_read_write]
  rand_types: [uniform, zipfian]
  threads: auto
  rounds: 2
run: {time: 10, warmup_time: 5}
steps: {changeover_sleep: 3}
`)
	cells := p.Expand()
	if len(cells) != 2*2*4*2 {
		t.Fatalf("%d cells", len(cells))
	}
	if got := p.Matrix.threadCounts(); !slices.Equal(got, []int{1, 2, 4, 8}) {
		t.Errorf("auto threads on 2 CPUs × 4 = %v", got)
	}
	first := []string{"uniform/r1/oltp_point_select/t1", "uniform/r1/oltp_point_select/t2", "uniform/r1/oltp_point_select/t4", "uniform/r1/oltp_point_select/t8", "uniform/r1/oltp_read_write/t1"}
	for i, id := range first {
		if cells[i].ID != id || cells[i].Index != i+1 {
			t.Errorf("cell %d = %s (index %d), want %s", i, cells[i].ID, cells[i].Index, id)
		}
	}
	if last := cells[len(cells)-1].ID; last != "zipfian/r2/oltp_read_write/t8" {
		t.Errorf("last cell %s", last)
	}
	e := p.estimate(cells)
	// 32 cells × 15 s; a sleep at each change of test case, round or distribution
	// within the one group: 7 changes.
	if e.Measured != 32*15*time.Second || e.Sleeps != 7*3*time.Second {
		t.Errorf("estimate %+v", e)
	}
}

func TestScale(t *testing.T) {
	p := parseValid(t, `
data: [{warehouses: 10}, {warehouses: 500}]
matrix: {workloads: [tpcc], threads: [150]}
run: {time: 10m, warmup_time: 30}
steps: {changeover_sleep: 60, query_warmup: {workload: tpcc, threads: 2, time: 300}}
`)
	if err := p.Scale(0.01); err != nil {
		t.Fatal(err)
	}
	if p.Run.Time.D() != 6*time.Second || p.Run.WarmupTime.D() != time.Second || p.Steps.ChangeoverSleep.D() != time.Second || p.Steps.QueryWarmup.Time.D() != 3*time.Second {
		t.Errorf("scaled times: %+v %+v", p.Run, p.Steps)
	}
	if p.Data[0].Warehouses != 1 || p.Data[1].Warehouses != 5 {
		t.Errorf("scaled warehouses %+v", p.Data)
	}
	if ids := []string{p.Expand()[0].ID, p.Expand()[1].ID}; ids[0] != "w1/uniform/r1/tpcc/t150" || ids[1] != "w5/uniform/r1/tpcc/t150" {
		t.Errorf("ids %v", ids)
	}
	for _, bad := range []float64{0, -1, 1000} {
		if err := p.Scale(bad); err == nil || !strings.Contains(err.Error(), "--scale") {
			t.Errorf("Scale(%v) = %v", bad, err)
		}
	}
}

// A factor above 1 cannot take a plan past the bounds it was validated
// against: table_size past the id column, warehouses, durations past 30 days.
func TestScaleRefusesValuesPastTheBounds(t *testing.T) {
	cases := []struct{ plan, want string }{
		{"data: {tables: 1, table_size: 2000000000}\nmatrix: {workloads: [oltp_read_only], threads: [1]}\nrun: {time: 1}\n", "data.table_size 4000000000, more than 2147483647"},
		{"data: {warehouses: 60000}\nmatrix: {workloads: [tpcc], threads: [1]}\nrun: {time: 1}\n", "data.warehouses 120000, more than 100000"},
		{"data: {tables: 1}\nmatrix: {workloads: [oltp_read_only], threads: [1]}\nrun: {time: 500h}\n", "run.time 1000h0m0s, longer than 30 days"},
	}
	for _, c := range cases {
		p := parseValid(t, c.plan)
		if err := p.Scale(2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Scale(2) = %v, want an error saying %q", err, c.want)
		}
	}
}

func TestDatasetLabelsStayUnique(t *testing.T) {
	p := parseValid(t, "data: [{warehouses: 1}, {warehouses: 1}]\nmatrix: {workloads: [tpcc], threads: [1]}\nrun: {time: 1}\n")
	c := p.Expand()
	if c[0].ID == c[1].ID {
		t.Errorf("two data sets share the cell id %s", c[0].ID)
	}
}

func parseValid(t *testing.T, text string) *Plan {
	t.Helper()
	p, err := ParsePlan("plan.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(testEnv()); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanErrors(t *testing.T) {
	const ok = "data: {tables: 1, table_size: 1000}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{"plan.yaml: the plan is empty"}},
		{"not a mapping", "- a\n", []string{"plan.yaml:1:", "a plan is a mapping"}},
		{"syntax", "matrix: [\n", []string{"plan.yaml:"}},
		{"unknown top key", ok + "setps: {}\n", []string{"plan.yaml:4:", `unknown key "setps" at the top level`, `did you mean "steps"?`}},
		{"unknown nested key", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  treads: [1]\n", []string{"plan.yaml:4:", `unknown key "treads" in matrix`, `"threads"`}},
		{"bad number", "data: {tables: 1}\nmatrix:\n  rounds: many\n", []string{"plan.yaml:3:", `matrix.rounds: "many" is not a whole number`}},
		{"bad duration", ok + "steps: {changeover_sleep: soon}\n", []string{"plan.yaml:4:", "steps.changeover_sleep", `"soon" is not a duration`}},
		{"bad threads", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  threads: [1, lots]\nrun: {time: 1}\n", []string{"plan.yaml:4:", `"lots" is not a thread count`}},
		{"unknown workload", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write, oltp_rw]\n  threads: [1]\nrun: {time: 1}\n", []string{"plan.yaml:3:", "matrix.workloads[1]", `unknown workload "oltp_rw"`, "fairbench list"}},
		{"no workloads", "data: {tables: 1}\nmatrix: {threads: [1]}\nrun: {time: 1}\n", []string{"plan.yaml:2:", "matrix.workloads is empty"}},
		{"no threads", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write]}\nrun: {time: 1}\n", []string{"matrix.threads is missing", "auto"}},
		{"zero threads", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  threads: [0]\nrun: {time: 1}\n", []string{"plan.yaml:4:", "thread count 0"}},
		// The run command's bounds (workload.Max*), with the same words.
		{"too many threads", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  threads: [1, 65537]\nrun: {time: 1}\n", []string{"plan.yaml:4:", "thread count 65537: give 1 to 65536"}},
		{"auto threads past the bound", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  threads: auto\n  target_cpus: 9223372036854775807\nrun: {time: 1}\n", []string{"more than 65536"}},
		{"too many prepare threads", "data: {tables: 1, prepare_threads: 100000}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n", []string{"prepare_threads 100000: give 1 to 65536"}},
		{"too many tables", "data: {tables: 65537}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n", []string{"plan.yaml:1:", "--tables=65537: use 1 to 65536 tables"}},
		{"table size past the id column", "data: {tables: 1, table_size: 2147483648}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n", []string{"at most 2147483647 rows"}},
		{"too many warehouses", "data: {warehouses: 100001}\nmatrix: {workloads: [tpcc], threads: [1]}\nrun: {time: 1}\n", []string{"--warehouses=100001: use 1 to 100000"}},
		{"time past 30 days", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 9223372036854775807}\n", []string{"plan.yaml:3:", "longer than 30 days", "2592000 seconds"}},
		{"duration past 30 days", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 721h}\n", []string{"plan.yaml:3:", "longer than 30 days"}},
		{"NaN rate", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1, rate: .nan}\n", []string{"plan.yaml:3:", "rate NaN: give 0 (closed loop) to 1e+09"}},
		{"NaN time", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: NaN}\n", []string{"plan.yaml:3:", "not a duration"}},
		{"duplicate threads", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  threads: [2, 2]\nrun: {time: 1}\n", []string{"listed twice"}},
		{"no time", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\n", []string{"run.time is missing"}},
		// An explicit 0 that would silently become the default.
		{"zero report interval", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1, report_interval: 0}\n", []string{"plan.yaml:3:", "run.report_interval is 0", "leave the key out for 1 s"}},
		{"negative connect rate", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  connect_rate: -5\n", []string{"plan.yaml:5:", "connect_rate -5", "connections a cell may open per second"}},
		{"infinite connect rate", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  connect_rate: .inf\n", []string{"plan.yaml:5:", "connect_rate +Inf"}},
		{"zero reconnect timeout", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  reconnect_timeout: 0\n", []string{"plan.yaml:5:", "run.reconnect_timeout is 0", "leave the key out for 30 s"}},
		// Percentiles go through the run command's parser: an empty or null
		// element is refused, not dropped.
		{"null percentile", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  percentiles:\n    - 50\n    -\n    - 99\n", []string{"plan.yaml:7:", "run.percentiles[1]", "element 2 of 2 is empty"}},
		{"empty percentile in string", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  percentiles: 50,,99\n", []string{"plan.yaml:5:", "element 2 of 3 is empty"}},
		{"percentile out of range", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  percentiles: [50, 101]\n", []string{"plan.yaml:5:", `"101" is not a percentile`}},
		{"percentile twice", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  percentiles: [95, 99, 99]\n", []string{"plan.yaml:5:", "percentile 99 is given twice"}},
		{"no percentiles", "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun:\n  time: 1\n  percentiles: []\n", []string{"plan.yaml:5:", "the list is empty"}},
		{"bad distribution", "data: {tables: 1}\nmatrix:\n  workloads: [oltp_read_write]\n  threads: [1]\n  rand_types: [uniform, zipf]\nrun: {time: 1}\n", []string{"plan.yaml:5:", `unknown distribution "zipf"`, "zipfian"}},
		{"tpcc with distributions", "data: {warehouses: 1}\nmatrix:\n  workloads: [tpcc]\n  threads: [1]\n  rand_types: [uniform, zipfian]\nrun: {time: 1}\n", []string{"NURand"}},
		{"option unknown to workload", "data:\n  tables: 1\n  options: {warehouses_per_table: 3}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n", []string{"plan.yaml:1:", `oltp_read_write has no option "warehouses_per_table"`}},
		{"tables with tpcc", "data:\n  tables: 4\nmatrix: {workloads: [tpcc], threads: [1]}\nrun: {time: 1}\n", []string{`tpcc has no option "tables"`}},
		{"bad option value", "data:\n  tables: 1\n  options: {range_size: wide}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n", []string{"option range_size"}},
		{"password in plan", "target: {driver: mysql, password: hunter2}\n" + ok, []string{"plan.yaml:1:", "passwords never go in plan files", "password_env"}},
		{"missing secret", "target:\n  driver: mysql\n  password_env: FAIRBENCH_NO_SUCH_VAR\n" + ok, []string{"plan.yaml:3:", "FAIRBENCH_NO_SUCH_VAR holds no password", "export"}},
		{"unknown error code", "target:\n  driver: mysql\n  ignore_errors: 1213,40P01\n" + ok, []string{"plan.yaml:3:", "target.ignore_errors", `"40P01" is not a MySQL error number`}},
		{"bad isolation", "target:\n  driver: mysql\n  isolation: dirty\n" + ok, []string{"plan.yaml:3:", "target.isolation"}},
		{"bad session var", "target:\n  driver: mysql\n  session_vars: [innodb_lock_wait_timeout]\n" + ok, []string{"plan.yaml:3:", "target.session_vars"}},
		{"session var of two lines", "target:\n  driver: mysql\n  session_vars: [\"a=1\\nb=2\"]\n" + ok, []string{"plan.yaml:3:", "target.session_vars[0]", "one NAME=VALUE per list item"}},
		{"compression on pgsql", "target:\n  driver: pgsql\n  compression: on\n" + ok, []string{"plan.yaml:3:", "target.compression", "MySQL only"}},
		{"cipher without tls", "target:\n  driver: mysql\n  ssl_cipher: ECDHE-RSA-AES128-GCM-SHA256\n" + ok, []string{"plan.yaml:3:", "target.ssl_cipher", "ssl: required"}},
		{"bad driver", "target: {driver: oracle}\n" + ok, []string{"unknown driver \"oracle\""}},
		{"bad port", "target:\n  driver: pgsql\n  port: 99999\n" + ok, []string{"plan.yaml:3:", "target.port"}},
		{"host without driver", "target: {host: db1}\n" + ok, []string{"add driver: mysql"}},
		{"server and target", "server: {flavor: mariadb}\ntarget: {host: db1}\n" + ok, []string{"plan.yaml:2:", "remove target.host"}},
		{"bad flavor", "server: {flavor: oracle}\n" + ok, []string{"plan.yaml:1:", "server.flavor"}},
		{"bad profile", "server:\n  flavor: mariadb\n  profiles: [cpu-bound, ram-bound]\n" + ok, []string{"plan.yaml:3:", "server.profiles[1]"}},
		{"bad server cpus", "server:\n  flavor: mariadb\n  cpus: 0-x\n" + ok, []string{"plan.yaml:3:", "server.cpus", `"0-x" is not a CPU id or a range`}},
		{"empty server cpus", "server:\n  flavor: mariadb\n  cpus: ''\n" + ok, []string{"plan.yaml:3:", "server.cpus: no CPUs given"}},
		{"huge server cpu", "server:\n  flavor: mariadb\n  cpus: 70000\n" + ok, []string{"plan.yaml:3:", "too large"}},
		{"bad prepare", ok + "steps:\n  prepare: maybe\n", []string{"plan.yaml:5:", `unknown prepare "maybe"`, "reuse"}},
		{"bad on_failure", ok + "steps:\n  on_failure: retry\n", []string{"plan.yaml:5:", "continue or stop"}},
		{"two actions in one", ok + "steps:\n  between_cells:\n    - {sql: SELECT 1, drop_caches: true}\n", []string{"plan.yaml:6:", "exactly one action"}},
		{"purge on sqlite", ok + "steps:\n  between_cells:\n    - purge_binary_logs: true\n", []string{"MySQL-protocol servers only"}},
		{"query warm-up without time", ok + "steps:\n  query_warmup: {workload: oltp_read_only}\n", []string{"steps.query_warmup.time"}},
		{"no data", "matrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n", []string{"data is missing"}},
		{"clients not a mapping", "target: {driver: mysql}\n" + ok + "clients: 3\n", []string{"plan.yaml:5:", "a mapping (count, wait)"}},
		{"clients unknown key", "target: {driver: mysql}\n" + ok + "clients:\n  count: 2\n  waits: 1m\n", []string{"plan.yaml:7:", `unknown key "waits" in clients`, `"wait"`}},
		{"clients count missing", "target: {driver: mysql}\n" + ok + "clients:\n  wait: 1m\n", []string{"plan.yaml:5:", "clients.count 0"}},
		{"clients count negative", "target: {driver: mysql}\n" + ok + "clients:\n  count: -2\n", []string{"plan.yaml:6:", "clients.count -2"}},
		{"clients bad wait", "target: {driver: mysql}\n" + ok + "clients:\n  count: 2\n  wait: soon\n", []string{"plan.yaml:7:", "clients.wait", `"soon" is not a duration`}},
		{"clients short wait", "target: {driver: mysql}\n" + ok + "clients:\n  count: 2\n  wait: 0.1\n", []string{"plan.yaml:7:", "at least 1s"}},
		{"clients on sqlite", ok + "clients:\n  count: 2\n", []string{"plan.yaml:4:", "embedded SQLite", "driver: mysql or pgsql"}},
		{"bad server agent", "target:\n  driver: mysql\n  server_agent: db1:9107\n" + ok, []string{"plan.yaml:3:", "target.server_agent", "http://"}},
		{"agent token unset", "target:\n  driver: mysql\n  server_agent: http://db1:9107\n  server_agent_token_env: FAIRBENCH_NO_SUCH_VAR\n" + ok, []string{"plan.yaml:4:", "FAIRBENCH_NO_SUCH_VAR is empty or unset"}},
		{"bad server machine", "target:\n  driver: mysql\n  server_machine:\n    vcpus: -1\n" + ok, []string{"plan.yaml:4:", "target.server_machine.vcpus"}},
		{"unknown server machine key", "target:\n  driver: mysql\n  server_machine: {vcpu: 8}\n" + ok, []string{"plan.yaml:3:", `unknown key "vcpu"`, `"vcpus"`}},
		{"agent and server machine", "target:\n  driver: mysql\n  server_agent: http://db1:9107\n  server_machine: {vcpus: 8}\n" + ok, []string{"plan.yaml:4:", "remove server_machine or them"}},
		{"agent service without pods", "target:\n  driver: mysql\n  server_agent_service: fairbench-agent\n" + ok, []string{"target.server_pods", "needs --server-pods SELECTOR"}},
		{"agent service and agents", "target:\n  driver: mysql\n  server_agent: http://db1:9107\n  server_agent_service: fairbench-agent\n  server_pods: app=db\n" + ok, []string{"plan.yaml:4:", "give one of them"}},
		{"bad agent service", "target:\n  driver: mysql\n  server_agent_service: Fairbench\n  server_pods: app=db\n" + ok, []string{"plan.yaml:3:", "not a Service's DNS name"}},
		{"bad pods namespace", "target:\n  driver: mysql\n  server_agent_service: fairbench-agent\n  server_pods: app=db\n  server_pods_namespace: a.b\n" + ok, []string{"plan.yaml:5:", "not a namespace's name"}},
		{"agent service and server machine", "target:\n  driver: mysql\n  server_agent_service: fairbench-agent\n  server_pods: app=db\n  server_machine: {vcpus: 8}\n" + ok, []string{"plan.yaml:5:", "remove server_machine or them"}},
		{"clients with a server", "server: {flavor: mariadb}\n" + ok + "clients:\n  count: 2\n", []string{"plan.yaml:5:", "server:", "fairbench server start"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePlan("plan.yaml", []byte(tc.text))
			if err == nil {
				err = p.Validate(Env{Registry: registry(), Getenv: func(string) string { return "" }, CPUs: 2})
			}
			if err == nil {
				t.Fatalf("no error for\n%s", tc.text)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDryRunGolden(t *testing.T) {
	p := loadPlan(t, "../../../plans/quick.yaml")
	var out bytes.Buffer
	if err := DryRun(&out, p); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "quick.dryrun.golden"), out.Bytes())
}

// TestWriteTablesGolden: the suite's tables show every round and the mean
// over rounds in the metric compare shows by default — tps for OLTP, also
// for the read-only cases, tpmC for a TPC-C suite, tps for a suite of both
// — each column headed with it, each figure printed as compare prints it;
// a mean over fewer rounds than the plan's says so (golden files in
// testdata/tables-*.golden, go test -run TestWriteTablesGolden -update).
func TestWriteTablesGolden(t *testing.T) {
	type cell struct {
		wl      string
		threads int
		round   int
		status  string
		tps     float64
	}
	oltp := []cell{
		{"oltp_point_select", 1, 1, suitedir.StatusComplete, 100}, {"oltp_point_select", 2, 1, suitedir.StatusComplete, 190},
		{"oltp_read_write", 1, 1, suitedir.StatusComplete, 10}, {"oltp_read_write", 2, 1, suitedir.StatusFailed, 0},
		{"oltp_point_select", 1, 2, suitedir.StatusComplete, 110}, {"oltp_point_select", 2, 2, suitedir.StatusInterrupted, 150},
		{"oltp_read_write", 1, 2, suitedir.StatusComplete, 12}, {"oltp_read_write", 2, 2, suitedir.StatusPending, 0},
	}
	tpcc := []cell{
		{"tpcc", 8, 1, suitedir.StatusComplete, 40}, {"tpcc", 8, 2, suitedir.StatusComplete, 44}, {"tpcc", 8, 3, suitedir.StatusComplete, 47},
	}
	for _, tc := range []struct {
		name  string
		cells []cell
		want  []string // what the tables must say
	}{
		{"oltp", oltp, []string{"oltp_point_select (tps)", "mean of 2 rounds", "(1 of 2)"}},
		{"tpcc", tpcc, []string{"tpcc (tpmC)", "mean of 3 rounds"}},
		{"mixed", append(slices.Clone(oltp), tpcc...), []string{"tpcc (tps)", "oltp_point_select (tps)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &suitedir.Manifest{}
			for i, c := range tc.cells {
				data := "1x1000"
				if c.wl == "tpcc" {
					data = "w1"
				}
				rec := suitedir.CellRecord{Cell: suitedir.Cell{Index: i + 1, Data: data, Workload: c.wl, RandType: "uniform", Threads: c.threads, Round: c.round}, Status: c.status}
				if c.tps > 0 {
					rec.Summary = &suitedir.Summary{TPS: c.tps, QPS: c.tps * 20}
					switch c.wl {
					case "oltp_point_select":
						rec.Summary.QPS = c.tps
					case "tpcc":
						rec.Summary.TpmC = c.tps * 60 * 0.45
					}
				}
				m.Cells = append(m.Cells, rec)
			}
			var out bytes.Buffer
			WriteTables(&out, m)
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("tables lack %q", w)
				}
			}
			golden.Check(t, filepath.Join("testdata", "tables-"+tc.name+".golden"), out.Bytes())
		})
	}
}

func TestPreflightRefusesMoreThreadsThanConnections(t *testing.T) {
	cfg := testdb.MySQL(t)
	p := parseValid(t, targetYAML(cfg)+"data: {tables: 1, table_size: 1000}\nmatrix:\n  workloads: [oltp_read_only]\n  threads: [1, 65536]\nrun: {time: 1}\n")
	err := Preflight(context.Background(), p, testEnv())
	if err == nil || !strings.Contains(err.Error(), "plan.yaml:") || !strings.Contains(err.Error(), "max_connections") || !strings.Contains(err.Error(), "65538") {
		t.Errorf("preflight: %v", err)
	}
	// Coordinated clients need room for all of them: half the server's
	// connections per client fit one client, not three.
	limit := serverMaxConnections(t, cfg)
	half := fmt.Sprintf("%d", limit/2)
	trio := parseValid(t, targetYAML(cfg)+"data: {tables: 1, table_size: 1000}\nmatrix:\n  workloads: [oltp_read_only]\n  threads: [1, "+half+"]\nrun: {time: 1}\nclients: {count: 3}\n")
	err = Preflight(context.Background(), trio, testEnv())
	if err == nil || !strings.Contains(err.Error(), "3 clients × ("+half+" threads + 3 for the suite)") || !strings.Contains(err.Error(), "clients.count") {
		t.Errorf("preflight of three clients: %v", err)
	}
	owned := parseValid(t, "server: {flavor: mariadb, settings: {max_connections: 50}}\ndata: {tables: 1, table_size: 1000}\nmatrix:\n  workloads: [oltp_read_only]\n  threads: [64]\nrun: {time: 1}\n")
	err = Preflight(context.Background(), owned, testEnv())
	if err == nil || !strings.Contains(err.Error(), "server.settings.max_connections is 50") {
		t.Errorf("preflight of an owned server: %v", err)
	}
}

// serverMaxConnections reads the test server's max_connections.
func serverMaxConnections(t *testing.T, cfg driver.Config) int {
	t.Helper()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	conn, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryStrings(context.Background(), "SELECT @@max_connections")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(rows[0][0])
	if err != nil || n < 8 {
		t.Fatalf("max_connections %q", rows[0][0])
	}
	return n
}

// TestServerCPUs: server.cpus is parsed, checked against the CPUs this
// process may use, and shown by the dry run.
func TestServerCPUs(t *testing.T) {
	const ok = "data: {tables: 1, table_size: 1000}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\nrun: {time: 1}\n"
	env := Env{Registry: registry(), Getenv: func(string) string { return "" }, CPUs: 2,
		UsableCPUs: func() (cpuset.Set, error) { return cpuset.MustParse("0-1"), nil }}
	tests := []struct{ cpus, want, err string }{
		{"1", "1", ""},
		{"0", "0", ""},
		{"'1,0'", "0-1", ""},
		{"2-3", "", "plan.yaml:3: server.cpus: CPU list 2-3: CPU 2-3 not usable here: this process may use CPUs 0-1"},
		{"1-2", "", "CPU 2 not usable here"},
	}
	for _, tt := range tests {
		p, err := ParsePlan("plan.yaml", []byte("server:\n  flavor: mariadb\n  cpus: "+tt.cpus+"\n"+ok))
		if err == nil {
			err = p.Validate(env)
		}
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("cpus %s: %v, want %q", tt.cpus, err, tt.err)
			}
		case err != nil:
			t.Errorf("cpus %s: %v", tt.cpus, err)
		case p.Server.CPUSet().String() != tt.want:
			t.Errorf("cpus %s: CPUSet %q, want %q", tt.cpus, p.Server.CPUSet(), tt.want)
		}
	}
	p, err := ParsePlan("plan.yaml", []byte("server: {flavor: mariadb, cpus: 1}\n"+ok))
	if err == nil {
		err = p.Validate(env)
	}
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := DryRun(&out, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Server mariadb, profile cpu-bound (sized for ") || !strings.Contains(out.String(), ", every thread on CPUs 1):") {
		t.Errorf("dry run does not show the CPUs:\n%s", out.String())
	}
	// A plan without cpus leaves the server unpinned.
	p, err = ParsePlan("plan.yaml", []byte("server: {flavor: mariadb}\n"+ok))
	if err == nil {
		err = p.Validate(env)
	}
	if err != nil || !p.Server.CPUSet().IsEmpty() {
		t.Errorf("no cpus: %q, %v", p.Server.CPUSet(), err)
	}
}

// TestClientCPUsKey: run.client_cpus is parsed and, for a plan that starts
// its server, checked against server.cpus and the usable CPUs (rest: the
// ones the server is not given); the dry run shows its CPU list.
func TestClientCPUsKey(t *testing.T) {
	const ok = "data: {tables: 1, table_size: 1000}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\n"
	env := Env{Registry: registry(), Getenv: func(string) string { return "" }, CPUs: 4,
		UsableCPUs: func() (cpuset.Set, error) { return cpuset.MustParse("0-3"), nil }}
	pinned := "server: {flavor: mariadb, cpus: 0-1}\n"
	tests := []struct{ name, plan, want, err string }{
		{"apart", pinned + ok + "run: {time: 1, client_cpus: 2-3}\n", "2-3", ""},
		{"rest", pinned + ok + "run: {time: 1, client_cpus: rest}\n", "rest", ""},
		{"overlap", pinned + ok + "run: {time: 1, client_cpus: 1-2}\n", "", "plan.yaml:4: run.client_cpus: client CPUs 1-2: CPU 1 is also the database server's (the plan's server (server.cpus) may use CPUs 0-1)"},
		{"overlap allowed", pinned + ok + "run: {time: 1, client_cpus: 1-2, allow_cpu_overlap: true}\n", "1-2", ""},
		{"unpinned server", "server: {flavor: mariadb}\n" + ok + "run: {time: 1, client_cpus: 3}\n", "", "CPU 3 is also the database server's (the plan's unpinned server (no server.cpus) may use CPUs 0-3)"},
		{"rest, unpinned server", "server: {flavor: mariadb}\n" + ok + "run: {time: 1, client_cpus: rest}\n", "", "none is left for the client"},
		{"not usable", pinned + ok + "run: {time: 1, client_cpus: 4}\n", "", "CPU 4 not usable here: this process may use CPUs 0-3"},
		{"bad list", ok + "run: {time: 1, client_cpus: 2-x}\n", "", `plan.yaml:3: run.client_cpus: CPU list "2-x"`},
		{"empty", ok + "run: {time: 1, client_cpus: ''}\n", "", "run.client_cpus: no CPUs given"},
		// Without a server of its own, the target's process is checked when the suite runs.
		{"no server", ok + "run: {time: 1, client_cpus: 1}\n", "1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePlan("plan.yaml", []byte(tt.plan))
			if err == nil {
				err = p.Validate(env)
			}
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("%v, want %q", err, tt.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			case p.ClientCPUs().String() != tt.want:
				t.Fatalf("ClientCPUs %q, want %q", p.ClientCPUs(), tt.want)
			}
			var out bytes.Buffer
			if err := DryRun(&out, p); err != nil {
				t.Fatal(err)
			}
			// rest is shown as the CPUs it resolves to, never as "rest".
			shown := tt.want
			if shown == "rest" {
				shown = "2-3 (client_cpus: rest"
			}
			if !strings.Contains(out.String(), "Client: every thread of fairbench on CPUs "+shown) || strings.Contains(out.String(), "CPUs rest") {
				t.Errorf("dry run does not show the client's CPUs %s:\n%s", shown, out.String())
			}
		})
	}
}

// TestForcedShutdownKey: run.forced_shutdown is read by the run command's
// parser (seconds, a share of run.time, off) and reaches every cell's run
// configuration; a bad value is refused at its line; left out, the cells
// abandon their events in flight at run.time, as before.
func TestForcedShutdownKey(t *testing.T) {
	const ok = "data: {tables: 1}\nmatrix: {workloads: [oltp_read_write], threads: [1]}\n"
	tests := []struct {
		name, run string
		want      runner.Drain
		err       string
	}{
		{"seconds", "run: {time: 60, forced_shutdown: 5}\n", runner.Drain{Wait: true, Limit: 5 * time.Second}, ""},
		{"share", "run: {time: 60, forced_shutdown: 10%}\n", runner.Drain{Wait: true, Limit: 6 * time.Second}, ""},
		{"off", "run: {time: 60, forced_shutdown: off}\n", runner.Drain{Wait: true, Unlimited: true}, ""},
		{"left out", "run: {time: 60}\n", runner.Drain{}, ""},
		{"bad", "run:\n  time: 60\n  forced_shutdown: soon\n", runner.Drain{}, `plan.yaml:5: run.forced_shutdown: forced_shutdown "soon": give the seconds`},
	}
	env := Env{Registry: registry(), Getenv: func(string) string { return "" }, CPUs: 4}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePlan("plan.yaml", []byte(ok+tt.run))
			if err == nil {
				err = p.Validate(env)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("%v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := &session{plan: p}
			if got := s.runnerConfig(1, time.Minute, 0, &target{}).Drain; got != tt.want {
				t.Errorf("cell drain %+v, want %+v", got, tt.want)
			}
		})
	}
}
