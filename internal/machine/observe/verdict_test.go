package observe

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

func TestVerdict(t *testing.T) {
	machine := func(busy, iowait, steal float64) *result.ObservedMachine {
		return &result.ObservedMachine{CPUs: 8, BusyPct: busy, IOWaitPct: iowait, StealPct: steal, IdlePct: 100 - busy - iowait}
	}
	server := func(hit, reads float64) *result.ObservedServer {
		return &result.ObservedServer{BufferPoolHitPct: &hit, DiskReadsPerSec: &reads}
	}
	client := &result.ObservedClient{MachinePct: 18}
	for _, tc := range []struct {
		name    string
		o       result.Observed
		bound   string
		verdict string
	}{
		{"cpu", result.Observed{Seconds: 10, Machine: machine(96, 1, 0), Client: client},
			result.BoundCPU, "CPU-bound: machine CPUs 96% busy, iowait 1%; client used 18% of the machine"},
		{"cpu at threshold with steal", result.Observed{Seconds: 10, Machine: machine(85, 0, 12)},
			result.BoundCPU, "CPU-bound: machine CPUs 85% busy, iowait 0%; steal 12% (the hypervisor takes CPU)"},
		{"iowait", result.Observed{Seconds: 10, Machine: machine(30, 41, 0), Server: server(91.2, 1240.4)},
			result.BoundIO, "IO-bound: iowait 41%, 1,240 disk reads/s, buffer-pool hit ratio 91.2%"},
		{"iowait at threshold beats busy", result.Observed{Seconds: 10, Machine: machine(80, 20, 0)},
			result.BoundIO, "IO-bound: iowait 20%"},
		{"server reads from disk", result.Observed{Seconds: 10, Machine: machine(40, 5, 0), Server: server(80, 100), Client: client},
			result.BoundIO, "IO-bound: 100 disk reads/s, buffer-pool hit ratio 80.0%, iowait 5%, CPUs 40% busy; client used 18% of the machine"},
		{"server reads from the page cache", result.Observed{Seconds: 10, Machine: machine(40, 4, 0), Server: server(80, 100)},
			result.BoundIO, "IO-bound: 100 disk reads/s, buffer-pool hit ratio 80.0%, iowait 4%, CPUs 40% busy — the reads that missed the server's cache came from the OS page cache, not the disk"},
		{"cache misses beat busy CPUs", result.Observed{Seconds: 10, Machine: machine(97, 2, 0), Server: server(73.6, 4075.7)},
			result.BoundIO, "IO-bound: 4,076 disk reads/s, buffer-pool hit ratio 73.6%, iowait 2%, CPUs 97% busy — the reads that missed the server's cache came from the OS page cache, not the disk"},
		{"few disk reads", result.Observed{Seconds: 10, Machine: machine(35, 2, 0), Server: server(80, 99)},
			result.BoundNeither, "neither: CPUs 35% busy, iowait 2% — the client, the network or locking may limit"},
		{"good hit ratio", result.Observed{Seconds: 10, Machine: machine(35, 2, 0), Server: server(95, 50000)},
			result.BoundNeither, "neither: CPUs 35% busy, iowait 2% — the client, the network or locking may limit"},
		{"neither", result.Observed{Seconds: 10, Machine: machine(84.6, 19.4, 0), Client: client},
			result.BoundNeither, "neither: CPUs 85% busy, iowait 19%; client used 18% of the machine — the client, the network or locking may limit"},
		{"no machine, server IO", result.Observed{Seconds: 10, Server: server(50, 2000)},
			result.BoundIO, "IO-bound: 2,000 disk reads/s, buffer-pool hit ratio 50.0%"},
		{"no machine", result.Observed{Seconds: 10, Server: server(99.5, 10), Client: client},
			result.BoundUnknown, "unknown: the machine's CPU use could not be read; 10 disk reads/s, buffer-pool hit ratio 99.5%; client used 18% of the machine"},
		{"nothing", result.Observed{Seconds: 10},
			result.BoundUnknown, "unknown: the machine's CPU use could not be read"},
		{"one clock tick, busy", result.Observed{Seconds: 0.0053, Machine: machine(100, 0, 0), Client: client},
			result.BoundUnknown, "not judged: the measured phase lasted 0.005 s, and the CPU counters need at least 0.5 s to tell CPU- or IO-bound"},
		{"just short of half a second, server IO", result.Observed{Seconds: 0.4994, Machine: machine(40, 30, 0), Server: server(50, 2000)},
			result.BoundUnknown, "not judged: the measured phase lasted 0.499 s, and the CPU counters need at least 0.5 s to tell CPU- or IO-bound"},
		{"half a second is judged", result.Observed{Seconds: 0.5, Machine: machine(96, 1, 0)},
			result.BoundCPU, "CPU-bound: machine CPUs 96% busy, iowait 1%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bound, verdict := verdict(&tc.o)
			if bound != tc.bound || verdict != tc.verdict {
				t.Errorf("verdict = %q, %q\nwant       %q, %q", bound, verdict, tc.bound, tc.verdict)
			}
		})
	}
}

func TestGrouped(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999.4: "999", 999.5: "1,000", 1240: "1,240", 1234567: "1,234,567", 123456: "123,456"} {
		if got := grouped(in); got != want {
			t.Errorf("grouped(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestJudge(t *testing.T) {
	machine := func(busy, iowait float64) *result.ObservedMachine {
		return &result.ObservedMachine{CPUs: 4, BusyPct: busy, IOWaitPct: iowait, IdlePct: 100 - busy - iowait}
	}
	sm := func(role string, busy, iowait float64) result.ObservedServerMachine {
		return result.ObservedServerMachine{Role: role, Source: "agent", CPU: machine(busy, iowait), BusiestCPU: 2, BusiestCPUPct: busy + 3,
			Process: &result.ObservedProcess{PID: 7, Name: "mariadbd", CPUPct: 310}}
	}
	hit, reads := 80.0, 2000.0
	server := &result.ObservedServer{BufferPoolHitPct: &hit, DiskReadsPerSec: &reads}
	client := &result.ObservedClient{MachinePct: 18}
	const before = "CPU-bound: machine CPUs 96% busy, iowait 0%"
	for _, tc := range []struct {
		name    string
		o       result.Observed
		remote  bool
		bound   string
		verdict string
	}{
		{"local without server machines keeps the verdict", result.Observed{Seconds: 10, Machine: machine(96, 0), Bound: result.BoundCPU, Verdict: before}, false,
			result.BoundCPU, before},
		{"remote server CPU-bound", result.Observed{Seconds: 10, Machine: machine(20, 0), ServerMachines: []result.ObservedServerMachine{sm("server", 93, 1)}}, true,
			result.BoundCPU, "CPU-bound: server machine CPUs 93% busy, iowait 1%, busiest CPU 2 at 96%, mariadbd used 310% of a CPU; client machine CPUs 20% busy"},
		{"local server CPU-bound keeps the client's share", result.Observed{Seconds: 10, Machine: machine(96, 0), Client: client, ServerMachines: []result.ObservedServerMachine{sm("server", 96, 0)}}, false,
			result.BoundCPU, "CPU-bound: server machine CPUs 96% busy, iowait 0%, busiest CPU 2 at 99%, mariadbd used 310% of a CPU; client used 18% of the machine"},
		{"server iowait", result.Observed{Seconds: 10, Machine: machine(10, 0), ServerMachines: []result.ObservedServerMachine{sm("server", 30, 25)}}, true,
			result.BoundIO, "IO-bound: server machine iowait 25%; client machine CPUs 10% busy"},
		{"server cache misses", result.Observed{Seconds: 10, Server: server, Machine: machine(10, 0), ServerMachines: []result.ObservedServerMachine{sm("server", 30, 2)}}, true,
			result.BoundIO, "IO-bound: 2,000 disk reads/s, buffer-pool hit ratio 80.0%, server machine iowait 2%, CPUs 30% busy; client machine CPUs 10% busy — the reads that missed the server's cache came from the OS page cache, not the disk"},
		{"client-bound", result.Observed{Seconds: 10, Machine: machine(97, 0), ServerMachines: []result.ObservedServerMachine{sm("server", 40, 1)}}, true,
			result.BoundNeither, "neither: server machine CPUs 40% busy, iowait 1%, busiest CPU 2 at 43%, mariadbd used 310% of a CPU; client-bound: the client machine's CPUs 97% busy"},
		{"neither", result.Observed{Seconds: 10, Machine: machine(30, 0), ServerMachines: []result.ObservedServerMachine{sm("server", 40, 1)}}, true,
			result.BoundNeither, "neither: server machine CPUs 40% busy, iowait 1%, busiest CPU 2 at 43%, mariadbd used 310% of a CPU; client machine CPUs 30% busy — the client, the network or locking may limit"},
		{"several machines: the busiest names its role", result.Observed{Seconds: 10, Machine: machine(30, 0), ServerMachines: []result.ObservedServerMachine{sm("tidb", 40, 1), sm("tikv", 90, 2)}}, true,
			result.BoundCPU, "CPU-bound: the tikv machine's CPUs 90% busy, iowait 2%, busiest CPU 2 at 93%, mariadbd used 310% of a CPU; client machine CPUs 30% busy"},
		{"a machine without CPU figures is left out", result.Observed{Seconds: 10, Machine: machine(97, 0), ServerMachines: []result.ObservedServerMachine{{Role: "server", Source: "agent", Note: "stopped"}}}, true,
			result.BoundUnknown, "unknown: the server's machine was not observed (its counters could not be read: see the notes of observed.server_machines); client-bound: the client machine's CPUs 97% busy"},
		{"remote not observed", result.Observed{Seconds: 10, Machine: machine(30, 0)}, true,
			result.BoundUnknown, "unknown: the server's machine was not observed (a remote server without --server-agent); client machine CPUs 30% busy"},
		{"remote not observed, server reads from disk", result.Observed{Seconds: 10, Server: server}, true,
			result.BoundIO, "IO-bound: 2,000 disk reads/s, buffer-pool hit ratio 80.0%; the server's machine was not observed (a remote server without --server-agent)"},
		{"a short phase stays not judged", result.Observed{Seconds: 0.2, Machine: machine(30, 0), ServerMachines: []result.ObservedServerMachine{sm("server", 93, 1)},
			Bound: result.BoundUnknown, Verdict: tooShort(0.2)}, true,
			result.BoundUnknown, "not judged: the measured phase lasted 0.200 s, and the CPU counters need at least 0.5 s to tell CPU- or IO-bound"},
		{"unread server counters stay said", result.Observed{Seconds: 10, Machine: machine(30, 0), Verdict: withUnreadServer("neither", "denied")}, true,
			result.BoundUnknown, "unknown: the server's machine was not observed (a remote server without --server-agent); client machine CPUs 30% busy; the server's counters could not be read (denied), so reads missing its cache were not judged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			Judge(&o, tc.remote, 0)
			if o.Bound != tc.bound || o.Verdict != tc.verdict {
				t.Errorf("Judge = %q, %q\nwant    %q, %q", o.Bound, o.Verdict, tc.bound, tc.verdict)
			}
		})
	}
}

// TestJudgeCommitAndOthers: the commit-bound rule (log flushes per
// transaction of the run, PostgreSQL's flush time) and the other processes'
// share of each machine, with the wording of the lines they change.
func TestJudgeCommitAndOthers(t *testing.T) {
	// cpu is a machine of n CPUs with user and system shares (busy = their
	// sum plus irq) and iowait.
	cpu := func(n int, user, system, irq, iowait float64) *result.ObservedMachine {
		return &result.ObservedMachine{CPUs: n, UserPct: user, SystemPct: system, IRQPct: irq, BusyPct: user + system + irq, IOWaitPct: iowait,
			IdlePct: 100 - user - system - irq - iowait}
	}
	flushes := func(perSec float64) *result.ObservedServer { return &result.ObservedServer{LogFlushesPerSec: &perSec} }
	pgTimed := func(perSec, timePct float64) *result.ObservedServer {
		return &result.ObservedServer{LogFlushesPerSec: &perSec, LogFlushTimePct: &timePct}
	}
	local := func(m *result.ObservedMachine, pid int, cpuPct float64) []result.ObservedServerMachine {
		return []result.ObservedServerMachine{{Role: "server", Source: "local", CPU: m, BusiestCPU: 1, BusiestCPUPct: m.BusyPct,
			Process: &result.ObservedProcess{PID: pid, Name: "mariadbd", CPUPct: cpuPct}}}
	}
	agent := func(m *result.ObservedMachine, proc *result.ObservedProcess) []result.ObservedServerMachine {
		return []result.ObservedServerMachine{{Role: "server", Source: "agent", CPU: m, BusiestCPU: 0, BusiestCPUPct: m.BusyPct, Process: proc}}
	}
	client := func(pct float64) *result.ObservedClient { return &result.ObservedClient{MachinePct: pct} }
	pct := func(p *float64) string {
		if p == nil {
			return "absent"
		}
		return fmt.Sprintf("%.1f", *p)
	}
	for _, tc := range []struct {
		name         string
		o            result.Observed
		remote       bool
		transactions int64
		bound        string
		verdict      string
		machine      string // the client machine's other processes
		server       string // the first server machine's
		perTxn       string // log flushes per transaction
	}{
		{"flush=1: a flush per commit is commit-bound",
			result.Observed{Seconds: 10, Server: flushes(198), Machine: cpu(2, 20, 15, 0, 30), Client: client(5),
				ServerMachines: local(cpu(2, 20, 15, 0, 30), 4242, 40)}, false, 1950,
			result.BoundCommit, "commit-bound (log flushes): 1.02 log flushes per transaction, 198 flushes/s, server machine iowait 30%, CPUs 35% busy; client used 5% of the machine",
			"10.0", "10.0", "1.0"},
		{"flush=2: a flush a second is not",
			result.Observed{Seconds: 10, Server: flushes(1.2), Machine: cpu(2, 70, 25, 0, 0), Client: client(20),
				ServerMachines: local(cpu(2, 70, 25, 0, 0), 4242, 140)}, false, 9000,
			result.BoundCPU, "CPU-bound: server machine CPUs 95% busy, iowait 0%, busiest CPU 1 at 95%, mariadbd used 140% of a CPU; client used 20% of the machine",
			"5.0", "5.0", "0.0"},
		{"half a flush per transaction is commit-bound",
			result.Observed{Seconds: 10, Server: flushes(50), Machine: cpu(4, 10, 5, 0, 3)}, false, 1000,
			result.BoundCommit, "commit-bound (log flushes): 0.50 log flushes per transaction, 50 flushes/s, iowait 3%, CPUs 15% busy",
			"absent", "absent", "0.5"},
		{"too few transactions are not judged on their flushes",
			result.Observed{Seconds: 10, Server: flushes(1.9), Machine: cpu(4, 10, 5, 0, 3)}, false, 19,
			result.BoundNeither, "neither: CPUs 15% busy, iowait 3% — the client, the network or locking may limit",
			"absent", "absent", "absent"},
		{"PostgreSQL flushing most of the time is commit-bound",
			result.Observed{Seconds: 10, Server: pgTimed(300, 62), Machine: cpu(2, 30, 10, 0, 20)}, true, 30000,
			result.BoundCommit, "commit-bound (log flushes): 0.10 log flushes per transaction, 300 flushes/s, flushing 62% of the time; the server's machine was not observed (a remote server without --server-agent); client machine CPUs 40% busy",
			"absent", "absent", "0.1"}, // no client figure: no share
		{"three quarters of the machine to other processes: CPU-bound by them",
			result.Observed{Seconds: 10, Machine: cpu(2, 80, 17, 3, 0), Client: client(7),
				ServerMachines: local(cpu(2, 80, 17, 3, 0), 4242, 35)}, false, 900,
			result.BoundCPU, "CPU-bound by other processes: server machine CPUs 100% busy, iowait 0%, busiest CPU 1 at 100%, mariadbd used 35% of a CPU; other processes used 72% of the machine; client used 7% of the machine",
			"72.5", "72.5", "absent"},
		{"some other processes on a CPU-bound machine are named",
			result.Observed{Seconds: 10, Machine: cpu(2, 70, 25, 0, 0), Client: client(20),
				ServerMachines: local(cpu(2, 70, 25, 0, 0), 4242, 120)}, false, 900,
			result.BoundCPU, "CPU-bound: server machine CPUs 95% busy, iowait 0%, busiest CPU 1 at 95%, mariadbd used 120% of a CPU; other processes used 15% of the machine; client used 20% of the machine",
			"15.0", "15.0", "absent"},
		{"the limit itself is quiet",
			result.Observed{Seconds: 10, Machine: cpu(2, 30, 10, 0, 0), Client: client(10), ServerMachines: local(cpu(2, 30, 10, 0, 0), 4242, 40)}, false, 900,
			result.BoundNeither, "neither: server machine CPUs 40% busy, iowait 0%, busiest CPU 1 at 40%, mariadbd used 40% of a CPU; client used 10% of the machine — the client, the network or locking may limit",
			"10.0", "10.0", "absent"},
		{"a local server whose process is unknown leaves the share unknown",
			result.Observed{Seconds: 10, Machine: cpu(2, 80, 17, 3, 0), Client: client(7),
				ServerMachines: []result.ObservedServerMachine{{Role: "server", Source: "local", CPU: cpu(2, 80, 17, 3, 0)}}}, false, 900,
			result.BoundCPU, "CPU-bound: server machine CPUs 100% busy, iowait 0%, busiest CPU 0 at 0%; client used 7% of the machine",
			"absent", "absent", "absent"},
		{"embedded SQLite: the server is the client",
			result.Observed{Seconds: 10, Machine: cpu(2, 60, 20, 0, 0), Client: client(30), ServerMachines: local(cpu(2, 60, 20, 0, 0), os.Getpid(), 60)}, false, 900,
			result.BoundNeither, "neither: server machine CPUs 80% busy, iowait 0%, busiest CPU 1 at 80%, mariadbd used 60% of a CPU; other processes used 50% of the machine; client used 30% of the machine — the client, the network or locking may limit",
			"50.0", "50.0", "absent"},
		{"a remote server machine with other processes",
			result.Observed{Seconds: 10, Machine: cpu(4, 20, 5, 0, 0), Client: client(24),
				ServerMachines: agent(cpu(8, 70, 20, 2, 0), &result.ObservedProcess{PID: 9, Name: "postgres", CPUPct: 400})}, true, 900,
			result.BoundCPU, "CPU-bound: server machine CPUs 92% busy, iowait 0%, busiest CPU 0 at 92%, postgres used 400% of a CPU; other processes used 40% of the server machine; client machine CPUs 25% busy",
			"1.0", "40.0", "absent"},
		{"a remote client machine with other processes, an agent without the server's process",
			result.Observed{Seconds: 10, Machine: cpu(4, 50, 10, 0, 0), Client: client(24), ServerMachines: agent(cpu(8, 30, 10, 0, 0), nil)}, true, 900,
			result.BoundNeither, "neither: server machine CPUs 40% busy, iowait 0%, busiest CPU 0 at 40%; client machine CPUs 60% busy; other processes used 36% of it — the client, the network or locking may limit",
			"36.0", "absent", "absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			Judge(&o, tc.remote, tc.transactions)
			if o.Bound != tc.bound || o.Verdict != tc.verdict {
				t.Errorf("Judge = %q, %q\nwant    %q, %q", o.Bound, o.Verdict, tc.bound, tc.verdict)
			}
			var m, s, perTxn *float64
			if o.Machine != nil {
				m = o.Machine.OtherProcessesPct
			}
			if len(o.ServerMachines) > 0 {
				s = o.ServerMachines[0].CPU.OtherProcessesPct
			}
			if o.Server != nil {
				perTxn = o.Server.LogFlushesPerTxn
			}
			if pct(m) != tc.machine || pct(s) != tc.server || pct(perTxn) != tc.perTxn {
				t.Errorf("other processes: machine %s, server machine %s; flushes per transaction %s; want %s, %s, %s",
					pct(m), pct(s), pct(perTxn), tc.machine, tc.server, tc.perTxn)
			}
		})
	}
}

// TestNoisyWarning: the warning names the share and the machine, above the
// limit only.
func TestNoisyWarning(t *testing.T) {
	at := func(pct float64, remote bool) *result.Observed {
		o := &result.Observed{Seconds: 10, Machine: &result.ObservedMachine{OtherProcessesPct: &pct}}
		if remote {
			q := pct + 1
			o.ServerMachines = []result.ObservedServerMachine{{Role: "server", Source: "agent", CPU: &result.ObservedMachine{OtherProcessesPct: &q}}}
		}
		return o
	}
	for _, tc := range []struct {
		o    *result.Observed
		want string
	}{
		{nil, ""},
		{&result.Observed{}, ""},
		{at(10, false), ""},
		{at(74.4, false), "other processes used 74% of the machine's CPUs during the measured phase (more than 10%): the figures may be low"},
		{at(30, true), "other processes used 31% of the server machine's CPUs during the measured phase"},
		{&result.Observed{Seconds: 0.4, Machine: at(90, false).Machine}, ""}, // a few clock ticks: not judged
	} {
		got := NoisyWarning(tc.o)
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("NoisyWarning = %q, want it to begin %q", got, tc.want)
		}
		if got != "" && !tc.o.Noisy() {
			t.Errorf("Noisy() = %v with the warning %q", tc.o.Noisy(), got)
		}
	}
}
