package measure

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// machines is a MachineObserver that records its calls, standing in for the
// server-machine observers to come.
type machines struct {
	mu                      sync.Mutex
	describes, begins, ends int
	intervals               int
}

func (m *machines) Describe(context.Context) ([]result.ServerMachine, []string) {
	m.describes++
	return []result.ServerMachine{{Role: "primary"}}, []string{"no cloud metadata"}
}
func (m *machines) Begin(context.Context) { m.mu.Lock(); m.begins++; m.mu.Unlock() }
func (m *machines) Interval(result.Interval) {
	m.mu.Lock()
	m.intervals++
	m.mu.Unlock()
}
func (m *machines) End(context.Context) ([]result.ObservedServerMachine, []string) {
	m.mu.Lock()
	m.ends++
	m.mu.Unlock()
	return []result.ObservedServerMachine{{Role: "primary"}}, nil
}

// prepared opens cfg and loads one small sysbench table on it.
func prepared(t *testing.T, cfg driver.Config, opts OpenOptions) (*Target, workload.Workload, *randgen.Factory) {
	t.Helper()
	ctx := context.Background()
	tg, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	spec, err := workload.NewRegistry(oltp.Specs()...).Lookup("oltp_point_select")
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("w", pflag.ContinueOnError)
	wl := spec.New(fs)
	if err := fs.Parse([]string{"--tables=1", "--table-size=100"}); err != nil {
		t.Fatal(err)
	}
	if err := wl.Validate(); err != nil {
		t.Fatal(err)
	}
	rc := randgen.DefaultConfig()
	rc.Seed = 7
	rng, err := randgen.NewFactory(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := wl.Prepare(ctx, workload.PrepareEnv{Driver: tg.Driver, Threads: 1, Rand: rng, Log: io.Discard, Progress: workload.NewProgress(0)}); err != nil {
		t.Fatal(err)
	}
	return tg, wl, rng
}

func runConfig(t *testing.T, tg *Target) runner.Config {
	t.Helper()
	policy, err := driver.ParseErrorPolicy("", tg.Driver.DefaultIgnorable(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return runner.Config{Threads: 2, Events: 200, Percentiles: []float64{95}, Ignore: policy,
		ReportInterval: 50 * time.Millisecond, ReconnectTimeout: time.Second}
}

// TestRunAssemblesTheResult runs a measured run on each target and checks
// that the result carries what the caller gave, what the target said of
// itself, the run's figures, the data found, the observation, and — through
// the MachineObserver extension point — the server machines.
func TestRunAssemblesTheResult(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			obs := &machines{}
			tg, wl, rng := prepared(t, cfg, OpenOptions{Machines: obs})
			if obs.describes != 1 || len(tg.ServerMachines) != 1 {
				t.Fatalf("Open described the machines %d times, got %+v", obs.describes, tg.ServerMachines)
			}
			data, err := workload.InspectData(context.Background(), tg.Driver, wl)
			if err != nil {
				t.Fatal(err)
			}
			managed := &result.ManagedServer{Flavor: "test"}
			tg.Managed = managed
			machine := result.Machine{Hostname: "given"}
			measured := 0
			rcfg := runConfig(t, tg)
			res, out := Run(context.Background(), Spec{
				Target: tg, Workload: wl, WorkloadName: "oltp_point_select", Rand: rng, Config: rcfg, Data: data,
				Tool: result.Tool{Name: "fairbench", Version: "test"}, CommandLine: []string{"fairbench", "x"},
				Options: map[string]string{"threads": "2"}, Machine: &machine,
				Client:    &result.ClientInfo{ID: 1, Of: 2},
				Suite:     &result.SuiteCell{Plan: "p", Cell: "c"},
				OnMeasure: func() { measured++ },
			})
			if out.Status != result.StatusComplete || res.Status != result.StatusComplete {
				t.Fatalf("status %s (%v)", out.Status, out.Err)
			}
			checks := []struct {
				what string
				ok   bool
			}{
				{"schema", res.Schema == result.SchemaVersion},
				{"tool and command line", res.Tool.Version == "test" && len(res.CommandLine) == 2},
				{"workload and seed", res.Workload == "oltp_point_select" && res.Seed == 7},
				{"options, with ignore-errors", res.Options["threads"] == "2" && res.Options["ignore-errors"] == rcfg.Ignore.String()},
				{"target", res.Target.Driver == kind},
				{"server fingerprint", reflect.DeepEqual(res.Server, tg.Server) && res.Server.Flavor != ""},
				{"managed server", res.ManagedServer == managed},
				{"client machine as given", res.Machine.Hostname == "given"},
				{"client and suite cell", res.Client != nil && res.Client.ID == 1 && res.Suite != nil && res.Suite.Cell == "c"},
				{"events", res.Totals.Counts.Events == 200 && res.Threads == 2},
				{"data found", len(res.Data) > 0},
				{"observed", res.Observed != nil && res.Observed.Seconds > 0},
				{"OnMeasure once", measured == 1},
				{"server machines", len(res.ServerMachines) == 1 && len(res.Observed.ServerMachines) == 1},
				{"machine observer calls", obs.begins == 1 && obs.ends == 1 && obs.intervals > 0},
				{"machine notes warned", strings.Contains(strings.Join(res.Warnings, "\n"), "server machines: no cloud metadata")},
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s: wrong in %+v", c.what, res)
				}
			}
		})
	}
}

// TestRunWithoutObserver is today's path: no server machines, and the
// client machine read when none is given.
func TestRunWithoutObserver(t *testing.T) {
	tg, wl, rng := prepared(t, testdb.SQLite(t), OpenOptions{})
	res, out := Run(context.Background(), Spec{Target: tg, Workload: wl, WorkloadName: "w", Rand: rng, Config: runConfig(t, tg)})
	if out.Status != result.StatusComplete {
		t.Fatalf("status %s (%v)", out.Status, out.Err)
	}
	if res.ServerMachines != nil || res.Observed == nil || res.Observed.ServerMachines != nil {
		t.Errorf("server machines without an observer: %+v / %+v", res.ServerMachines, res.Observed)
	}
	if res.Machine.Arch == "" || res.Options["ignore-errors"] == "" {
		t.Errorf("machine %+v, options %v: want the local machine and the error policy", res.Machine, res.Options)
	}
}

// TestOpenRefusesAnUnreachableTarget: a failed first connection is a
// *ConnectError that names the target, and OnSlow is not needed to say so.
func TestOpenRefusesAnUnreachableTarget(t *testing.T) {
	cfg := driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{1}, User: "x", Database: "x"}
	_, err := Open(context.Background(), cfg, OpenOptions{})
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot connect to "+cfg.Describe()) {
		t.Fatalf("error %v, want a *ConnectError naming %s", err, cfg.Describe())
	}
}

// TestOpenParsesTheErrorPolicy: the target's ignore-errors setting becomes
// its driver's error policy (the driver's defaults when empty), and a code
// the driver cannot carry is a *PolicyError before anything connects.
func TestOpenParsesTheErrorPolicy(t *testing.T) {
	cases := []struct {
		name, ignore string
		ignores      string // a code the policy must ignore ("" for none)
		refused      bool
	}{
		{"driver's defaults", "", "SQLITE_BUSY", false},
		{"a list", "sqlite_locked", "SQLITE_LOCKED", false},
		{"none", "none", "", false},
		{"another driver's code", "1213", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := Open(context.Background(), testdb.SQLite(t), OpenOptions{IgnoreErrors: tc.ignore})
			var pe *PolicyError
			if tc.refused {
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), "1213") {
					t.Fatalf("error %v, want a *PolicyError naming the code", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if tc.ignores != "" && !tg.Ignore.Ignores(tc.ignores) || tc.ignores == "" && (tg.Ignore.All || len(tg.Ignore.Codes) > 0) {
				t.Errorf("policy %+v for %q, want it to ignore %q", tg.Ignore, tc.ignore, tc.ignores)
			}
		})
	}
}
