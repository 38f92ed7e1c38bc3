package cli

import (
	"io"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/run/setup"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// TestSuiteOptionsReadAsTheRunCommands: what a suite's cell records under
// the run command's names (setup.Options) names flags of `fairbench run`,
// each with the value that command records for the same choice, so that
// cells and single runs read alike.
func TestSuiteOptionsReadAsTheRunCommands(t *testing.T) {
	a := &App{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Workloads: DefaultWorkloads()}
	cpus, err := cpuset.Parse("2-3")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		add  func(setup.Options)
	}{
		{"run", []string{"--threads=8", "--time=90", "--warmup-time=1.5", "--rate=250", "--connect-rate=2.5", "--percentile=50,99.9"}, func(o setup.Options) {
			o.AddRun(runner.Config{Threads: 8, Duration: 90 * time.Second, Warmup: 1500 * time.Millisecond, Rate: 250, ConnectRate: 2.5, Percentiles: []float64{50, 99.9}})
		}},
		{"run defaults", nil, func(o setup.Options) {
			o.AddRun(runner.Config{Threads: 1, Duration: 10 * time.Second, Percentiles: []float64{50, 90, 95, 99, 99.9}})
		}},
		{"rand", []string{"--rand-type=zipfian", "--rand-seed=7"}, func(o setup.Options) { o.AddRand(randgen.Config{Type: "zipfian", Seed: 7}) }},
		{"client cpus", []string{"--client-cpus=2-3", "--allow-cpu-overlap"}, func(o setup.Options) { o.AddClientCPUs(clientcpus.Decision{CPUs: cpus}, true) }},
		{"unpinned", nil, func(o setup.Options) { o.AddClientCPUs(clientcpus.Decision{}, false) }},
		{"session", []string{"--isolation-level=read-committed", "--session-var=a=1", "--session-var=b=2"}, func(o setup.Options) {
			o.AddSession("read-committed", []string{"a=1", "b=2"})
		}},
		{"no session", nil, func(o setup.Options) { o.AddSession("", nil) }},
	}
	spec, err := a.Workloads.Lookup("oltp_read_write")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := a.newInvocation(phaseRun, spec).command.Flags()
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			run := resolvedOptions(fs)
			cell := setup.Options{}
			tc.add(cell)
			if len(cell) == 0 {
				t.Fatal("nothing recorded")
			}
			for name, v := range cell {
				switch {
				case fs.Lookup(name) == nil:
					t.Errorf("a cell records %q, which is no option of run", name)
				case run[name] != v:
					t.Errorf("--%s: a cell records %q, run %q", name, v, run[name])
				}
			}
		})
	}
}
