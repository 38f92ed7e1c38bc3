package observe

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// fakeWatch is a MachineWatch that returns fixed figures and logs its calls.
type fakeWatch struct {
	observed []result.ObservedServerMachine
	notes    []string
	log      *[]string
}

func (w fakeWatch) Begin(context.Context) { *w.log = append(*w.log, "machines begin") }
func (w fakeWatch) End(context.Context) ([]result.ObservedServerMachine, []string) {
	*w.log = append(*w.log, "machines end")
	return w.observed, w.notes
}

// serverCounters is an Observer standing in for the server's counters of a
// MySQL or PostgreSQL server (the probe of SQLite has none): its End sets
// o.Observed.Server.
type serverCounters struct{ s *result.ObservedServer }

func (serverCounters) Begin(context.Context) {}
func (c serverCounters) End(_ context.Context, o *Observation) {
	if c.s != nil {
		o.Observed.Server = c.s
	}
}

// TestObserversInOrder runs the observers of a phase as measure.Run does
// (begun in order, ended in reverse into one Observation) and checks what
// each recorded and what the verdict, ending last, made of it.
func TestObserversInOrder(t *testing.T) {
	drv, _, server := target(t, testdb.SQLite(t))
	busyServer := result.ObservedServerMachine{Role: "server", Source: "agent", Seconds: 10,
		CPU: &result.ObservedMachine{Source: "/proc/stat", CPUs: 1, BusyPct: 95, UserPct: 90, SystemPct: 5}}
	flushes := 10.0
	for _, tc := range []struct {
		name         string
		remote       bool
		watch        bool
		server       *result.ObservedServer
		transactions int64
		wantBound    string
		wantVerdict  string // prefix
		wantMachines int
		wantNotes    []string
		wantPerTxn   float64 // log flushes per transaction, 0: none
		wantLog      []string
	}{
		{name: "local server, probe alone", wantBound: result.BoundNeither,
			wantVerdict: "neither: CPUs 70% busy, iowait 10%"},
		{name: "remote server without machines", remote: true, wantBound: result.BoundUnknown,
			wantVerdict: "unknown: the server's machine was not observed (a remote server without --server-agent)"},
		{name: "remote server with its machine", remote: true, watch: true, wantBound: result.BoundCPU,
			wantVerdict: "CPU-bound: server machine CPUs 95% busy", wantMachines: 1, wantNotes: []string{"agent x: late"},
			wantLog: []string{"machines begin", "machines end"}},
		{name: "transactions reach the verdict", server: &result.ObservedServer{LogFlushesPerSec: &flushes},
			transactions: 200, wantBound: result.BoundCommit, wantVerdict: "commit-bound (log flushes): 0.50 log flushes per transaction",
			wantPerTxn: 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := &testEnv{
				fsys:  fstest.MapFS{"proc/stat": {Data: []byte(procStatBefore)}},
				now:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
				usage: cpuUsage{user: time.Second, system: time.Second},
			}
			var log []string
			observers := []Observer{VerdictObserver(tc.remote), serverCounters{tc.server}}
			if tc.watch {
				observers = append(observers, MachinesObserver(fakeWatch{
					observed: []result.ObservedServerMachine{busyServer}, notes: []string{"agent x: late"}, log: &log}))
			}
			observers = append(observers, &probeObserver{drv: drv, server: server, env: te.env()})
			ctx := context.Background()
			for _, o := range observers {
				o.Begin(ctx)
			}
			te.fsys["proc/stat"] = &fstest.MapFile{Data: []byte(procStatAfter)}
			te.now = te.now.Add(10 * time.Second)
			te.usage = cpuUsage{user: 3 * time.Second, system: 2 * time.Second}
			obs := Observation{Transactions: tc.transactions}
			for i := len(observers) - 1; i >= 0; i-- {
				observers[i].End(ctx, &obs)
			}

			o := obs.Observed
			if o == nil || o.Seconds != 10 || o.Client == nil || o.Machine == nil {
				t.Fatalf("Observed = %+v, want the probe's 10 s with client and machine figures", o)
			}
			if o.Bound != tc.wantBound || !strings.HasPrefix(o.Verdict, tc.wantVerdict) {
				t.Errorf("Bound, Verdict = %q, %q; want %q, %q…", o.Bound, o.Verdict, tc.wantBound, tc.wantVerdict)
			}
			if len(o.ServerMachines) != tc.wantMachines {
				t.Errorf("ServerMachines = %+v, want %d", o.ServerMachines, tc.wantMachines)
			}
			if !reflect.DeepEqual(obs.MachineNotes, tc.wantNotes) {
				t.Errorf("MachineNotes = %q, want %q", obs.MachineNotes, tc.wantNotes)
			}
			if !reflect.DeepEqual(log, tc.wantLog) {
				t.Errorf("machine watch calls %q, want %q", log, tc.wantLog)
			}
			var perTxn float64
			if o.Server != nil && o.Server.LogFlushesPerTxn != nil {
				perTxn = *o.Server.LogFlushesPerTxn
			}
			if perTxn != tc.wantPerTxn {
				t.Errorf("log flushes per transaction %v, want %v", perTxn, tc.wantPerTxn)
			}
		})
	}
}
