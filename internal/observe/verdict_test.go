package observe

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
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
		{"cpu", result.Observed{Machine: machine(96, 1, 0), Client: client},
			result.BoundCPU, "CPU-bound: machine CPUs 96% busy, iowait 1%; client used 18% of the machine"},
		{"cpu at threshold with steal", result.Observed{Machine: machine(85, 0, 12)},
			result.BoundCPU, "CPU-bound: machine CPUs 85% busy, iowait 0%; steal 12% (the hypervisor takes CPU)"},
		{"iowait", result.Observed{Machine: machine(30, 41, 0), Server: server(91.2, 1240.4)},
			result.BoundIO, "IO-bound: iowait 41%, 1,240 disk reads/s, buffer-pool hit ratio 91.2%"},
		{"iowait at threshold beats busy", result.Observed{Machine: machine(80, 20, 0)},
			result.BoundIO, "IO-bound: iowait 20%"},
		{"server reads from disk", result.Observed{Machine: machine(40, 5, 0), Server: server(80, 100), Client: client},
			result.BoundIO, "IO-bound: 100 disk reads/s, buffer-pool hit ratio 80.0%, iowait 5%, CPUs 40% busy; client used 18% of the machine"},
		{"server reads from the page cache", result.Observed{Machine: machine(40, 4, 0), Server: server(80, 100)},
			result.BoundIO, "IO-bound: 100 disk reads/s, buffer-pool hit ratio 80.0%, iowait 4%, CPUs 40% busy — the reads that missed the server's cache came from the OS page cache, not the disk"},
		{"cache misses beat busy CPUs", result.Observed{Machine: machine(97, 2, 0), Server: server(73.6, 4075.7)},
			result.BoundIO, "IO-bound: 4,076 disk reads/s, buffer-pool hit ratio 73.6%, iowait 2%, CPUs 97% busy — the reads that missed the server's cache came from the OS page cache, not the disk"},
		{"few disk reads", result.Observed{Machine: machine(35, 2, 0), Server: server(80, 99)},
			result.BoundNeither, "neither: CPUs 35% busy, iowait 2% — the client, the network or locking may limit"},
		{"good hit ratio", result.Observed{Machine: machine(35, 2, 0), Server: server(95, 50000)},
			result.BoundNeither, "neither: CPUs 35% busy, iowait 2% — the client, the network or locking may limit"},
		{"neither", result.Observed{Machine: machine(84.6, 19.4, 0), Client: client},
			result.BoundNeither, "neither: CPUs 85% busy, iowait 19%; client used 18% of the machine — the client, the network or locking may limit"},
		{"no machine, server IO", result.Observed{Server: server(50, 2000)},
			result.BoundIO, "IO-bound: 2,000 disk reads/s, buffer-pool hit ratio 50.0%"},
		{"no machine", result.Observed{Server: server(99.5, 10), Client: client},
			result.BoundUnknown, "unknown: the machine's CPU use could not be read; 10 disk reads/s, buffer-pool hit ratio 99.5%; client used 18% of the machine"},
		{"nothing", result.Observed{},
			result.BoundUnknown, "unknown: the machine's CPU use could not be read"},
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
