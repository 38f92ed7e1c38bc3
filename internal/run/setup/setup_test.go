package setup

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// TestRunnerConfig: the target's policy is the run's, and a coordinated
// client keeps interval histograms whether or not it was asked to.
func TestRunnerConfig(t *testing.T) {
	policy := driver.ErrorPolicy{Codes: map[string]bool{"1213": true}}
	cases := []struct {
		name           string
		asked, coordin bool
		wantHistograms bool
	}{
		{"alone", false, false, false},
		{"alone, asked", true, false, true},
		{"coordinated", false, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := RunnerConfig(runner.Config{Threads: 3, IntervalHistograms: tc.asked}, policy, tc.coordin)
			if cfg.IntervalHistograms != tc.wantHistograms || !cfg.Ignore.Ignores("1213") || cfg.Threads != 3 {
				t.Errorf("config %+v, want interval histograms %v, the policy and the threads kept", cfg, tc.wantHistograms)
			}
		})
	}
}

// TestRand: the seed given is kept, the clock's taken when none is; a
// coordinated client other than 0 derives its own from either.
func TestRand(t *testing.T) {
	now := func() time.Time { return time.Unix(0, 123456789) }
	clock := randgen.ResolveSeed(0, now)
	cases := []struct {
		name   string
		seed   uint64
		client int
		want   uint64
	}{
		{"given", 42, NoClient, 42},
		{"given, client 0", 42, 0, 42},
		{"given, client 2", 42, 2, randgen.ClientSeed(42, 2)},
		{"from the clock", 0, NoClient, clock},
		{"from the clock, client 1", 0, 1, randgen.ClientSeed(clock, 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := randgen.DefaultConfig()
			cfg.Seed = tc.seed
			f, err := Rand(cfg, tc.client, now)
			if err != nil || f.Config().Seed != tc.want {
				t.Fatalf("seed %v (%v), want %d", f, err, tc.want)
			}
		})
	}
	cfg := randgen.DefaultConfig()
	cfg.Type = "bell"
	if _, err := Rand(cfg, NoClient, now); err == nil {
		t.Error("an unknown distribution was accepted")
	}
}

// TestOptions: each part records the run command's names with the values as
// its flags print them; secrets never appear.
func TestOptions(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.String("mysql-password", "", "")
	fs.String("pgsql-password", "", "")
	fs.Int("tables", 1, "")
	fs.Bool("help", false, "")
	if err := fs.Parse([]string{"--mysql-password=s3cret", "--tables=4"}); err != nil {
		t.Fatal(err)
	}
	cpus, err := cpuset.Parse("2-3")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		add  func(Options)
		want Options
	}{
		{"flags", func(o Options) { o.AddFlags(fs) }, Options{"mysql-password": "***", "pgsql-password": "", "tables": "4"}},
		{"run", func(o Options) {
			o.AddRun(runner.Config{Threads: 8, Duration: 90 * time.Second, Warmup: 1500 * time.Millisecond, Rate: 2e6, ConnectRate: 2.5, Percentiles: []float64{50, 99.9}})
		}, Options{"threads": "8", "time": "90", "warmup-time": "1.5", "rate": "2000000", "connect-rate": "2.5", "connect-per-event": "false", "jobs": "0", "percentile": "50,99.9"}},
		{"rand", func(o Options) { o.AddRand(randgen.Config{Type: "zipfian", Seed: 7}) }, Options{"rand-type": "zipfian", "rand-seed": "7"}},
		{"client cpus", func(o Options) { o.AddClientCPUs(clientcpus.Decision{CPUs: cpus}, true) }, Options{"client-cpus": "2-3", "allow-cpu-overlap": "true"}},
		{"unpinned", func(o Options) { o.AddClientCPUs(clientcpus.Decision{}, false) }, Options{"client-cpus": "", "allow-cpu-overlap": "false"}},
		{"session", func(o Options) { o.AddSession("read-committed", []string{"a=1", "b=2"}) }, Options{"isolation-level": "read-committed", "session-var": "[a=1,b=2]"}},
		{"no session", func(o Options) { o.AddSession("", nil) }, Options{"isolation-level": "", "session-var": "[]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{}
			tc.add(o)
			if !reflect.DeepEqual(o, tc.want) {
				t.Errorf("options %v, want %v", o, tc.want)
			}
		})
	}
	for name, want := range map[string]bool{"mysql-password": true, "pgsql-password": true, "sqlite-db": false, "password": false, "": false} {
		if Secret(name) != want {
			t.Errorf("Secret(%q) = %v, want %v", name, !want, want)
		}
	}
}

// TestStart: a start is read on the server's clock (this machine's plus the
// offset measured), and recorded with the offset and its error bound only
// on that clock.
func TestStart(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	server := dbclock.Reading{Offset: 7 * time.Second, RoundTrip: 3 * time.Millisecond}
	cases := []struct {
		name  string
		start Start
		now   time.Time
		until time.Duration
		info  result.ClientInfo
	}{
		{"server ahead", Start{At: at, Clock: ClockServer, Server: server}, at.Add(-time.Second), -6 * time.Second,
			result.ClientInfo{ID: 1, Of: 3, StartAt: at, Clock: ClockServer, ClockOffsetMs: 7000, ClockErrorMs: 1.5}},
		{"local clock", Start{At: at, Clock: ClockLocal}, at.Add(-time.Second), time.Second,
			result.ClientInfo{ID: 1, Of: 3, StartAt: at, Clock: ClockLocal}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if d := tc.start.Until(tc.now); d != tc.until {
				t.Errorf("until %s, want %s", d, tc.until)
			}
			if info := tc.start.Client(1, 3); !reflect.DeepEqual(*info, tc.info) {
				t.Errorf("client %+v, want %+v", *info, tc.info)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on an ended context: %v", err)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v", err)
	}
}

// inspecting is a workload that reports what Inspect returns.
type inspecting struct {
	workload.Workload
	rep workload.DataReport
	err error
}

func (w inspecting) Inspect(context.Context, driver.Conn, driver.Dialect) (workload.DataReport, error) {
	return w.rep, w.err
}

// TestInspectData: the report and a refusal pass through; an interruption is
// ErrInterrupted; a dry run reads nothing.
func TestInspectData(t *testing.T) {
	tg, err := measure.Open(context.Background(), testdb.SQLite(t), measure.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	refused := errors.New("the tables hold 10 rows, not 1000")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	found := workload.DataReport{Warnings: []string{"asked 1000, found 10"}}
	dry := *tg
	dry.Config.DryRun = true
	cases := []struct {
		name string
		ctx  context.Context
		t    *measure.Target
		wl   inspecting
		want workload.DataReport
		err  error
	}{
		{"found", context.Background(), tg, inspecting{rep: found}, found, nil},
		{"refused", context.Background(), tg, inspecting{err: refused}, workload.DataReport{}, refused},
		{"interrupted", ended, tg, inspecting{err: context.Canceled}, workload.DataReport{}, ErrInterrupted},
		{"dry run", context.Background(), &dry, inspecting{err: refused}, workload.DataReport{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := InspectData(tc.ctx, tc.t, tc.wl)
			if !errors.Is(err, tc.err) || tc.err == nil && err != nil || !reflect.DeepEqual(rep, tc.want) {
				t.Errorf("report %+v, error %v; want %+v, %v", rep, err, tc.want, tc.err)
			}
		})
	}
}
