package observe

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/hostcounters"
)

const procStatBefore = `cpu  1000 100 500 8000 200 50 50 100 0 0
cpu0 500 50 250 4000 100 25 25 50 0 0
cpu1 500 50 250 4000 100 25 25 50 0 0
intr 123456 0 0
ctxt 987654
btime 1700000000
processes 4242
procs_running 3
`

// procStatAfter adds 2000 ticks: user 800, nice 0, system 300, idle 400,
// iowait 200, irq 100, softirq 100, steal 100.
const procStatAfter = `cpu  1800 100 800 8400 400 150 150 200 50 0
cpu0 900 50 400 4200 200 75 75 100 25 0
cpu1 900 50 400 4200 200 75 75 100 25 0
intr 223456 0 0
`

func TestParseProcStat(t *testing.T) {
	c, err := parseProcStat([]byte(procStatBefore))
	if err != nil {
		t.Fatal(err)
	}
	want := cpuTimes{CPUTimes: hostcounters.CPUTimes{ID: -1, User: 1000, Nice: 100, System: 500, Idle: 8000, IOWait: 200, IRQ: 50, SoftIRQ: 50, Steal: 100}, cpus: 2}
	if c != want {
		t.Errorf("parseProcStat = %+v, want %+v", c, want)
	}
	if c.total() != 10000 {
		t.Errorf("total = %d, want 10000", c.total())
	}
}

func TestParseProcStatOldKernel(t *testing.T) {
	// Linux 2.4 printed four columns.
	c, err := parseProcStat([]byte("cpu 10 20 30 40\ncpu0 10 20 30 40\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.User != 10 || c.Idle != 40 || c.IOWait != 0 || c.cpus != 1 {
		t.Errorf("parseProcStat = %+v", c)
	}
}

func TestParseProcStatErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no cpu line", "intr 1 2 3\n", "no cpu line"},
		{"short line", "cpu 1 2\n", "too few columns"},
		{"not a number", "cpu 1 x 3 4 5\n", `column 2 is "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseProcStat([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestCPUUse(t *testing.T) {
	a, _ := parseProcStat([]byte(procStatBefore))
	b, _ := parseProcStat([]byte(procStatAfter))
	m, err := cpuUse(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"user", m.UserPct, 40}, {"nice", m.NicePct, 0}, {"system", m.SystemPct, 15},
		{"idle", m.IdlePct, 20}, {"iowait", m.IOWaitPct, 10}, {"irq", m.IRQPct, 5},
		{"softirq", m.SoftIRQPct, 5}, {"steal", m.StealPct, 5}, {"busy", m.BusyPct, 70},
	} {
		if f.got != f.want {
			t.Errorf("%s = %v%%, want %v%%", f.name, f.got, f.want)
		}
	}
	if m.CPUs != 2 || m.Source != "/proc/stat" {
		t.Errorf("CPUs, Source = %d, %q; want 2, /proc/stat", m.CPUs, m.Source)
	}
	if _, err := cpuUse(a, a); err == nil || !strings.Contains(err.Error(), "no clock tick") {
		t.Errorf("cpuUse over no ticks: error %v, want 'no clock tick'", err)
	}
}
