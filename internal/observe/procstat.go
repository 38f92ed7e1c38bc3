package observe

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// cpuTimes is the aggregate "cpu" line of /proc/stat, in clock ticks, and the
// number of per-CPU lines.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
	cpus                                                  int
}

// total is every tick of the line. guest and guest_nice are left out: the kernel
// already counts them in user and nice.
func (c cpuTimes) total() uint64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// readCPUTimes reads proc/stat of fsys.
func readCPUTimes(fsys fs.FS) (cpuTimes, error) {
	b, err := fs.ReadFile(fsys, "proc/stat")
	if err != nil {
		return cpuTimes{}, fmt.Errorf("machine CPU use: %w", err)
	}
	return parseProcStat(string(b))
}

// parseProcStat parses the text of /proc/stat: the aggregate "cpu" line (older
// kernels print fewer columns; missing ones count as 0) and the "cpuN" lines.
func parseProcStat(text string) (cpuTimes, error) {
	var (
		c     cpuTimes
		found bool
	)
	for line := range strings.Lines(text) {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "cpu") {
			continue
		}
		if fields[0] != "cpu" {
			if _, err := strconv.Atoi(fields[0][3:]); err == nil {
				c.cpus++
			}
			continue
		}
		if len(fields) < 5 {
			return cpuTimes{}, fmt.Errorf("machine CPU use: /proc/stat cpu line %q has too few columns", strings.TrimSpace(line))
		}
		dst := []*uint64{&c.user, &c.nice, &c.system, &c.idle, &c.iowait, &c.irq, &c.softirq, &c.steal}
		for i, f := range fields[1:] {
			if i == len(dst) {
				break
			}
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return cpuTimes{}, fmt.Errorf("machine CPU use: /proc/stat cpu line: column %d is %q, not a number", i+1, f)
			}
			*dst[i] = n
		}
		found = true
	}
	if !found {
		return cpuTimes{}, fmt.Errorf("machine CPU use: /proc/stat has no cpu line")
	}
	return c, nil
}

// cpuUse turns two readings into the machine's CPU use between them. It fails when
// no tick passed or a counter went backwards.
func cpuUse(a, b cpuTimes) (*result.ObservedMachine, error) {
	ta, tb := a.total(), b.total()
	if tb <= ta {
		return nil, fmt.Errorf("machine CPU use: no clock tick passed in /proc/stat during the phase")
	}
	total := float64(tb - ta)
	pct := func(x, y uint64) float64 {
		if y < x {
			return 0
		}
		return 100 * float64(y-x) / total
	}
	m := &result.ObservedMachine{
		Source:     "/proc/stat",
		CPUs:       b.cpus,
		UserPct:    pct(a.user, b.user),
		NicePct:    pct(a.nice, b.nice),
		SystemPct:  pct(a.system, b.system),
		IOWaitPct:  pct(a.iowait, b.iowait),
		IRQPct:     pct(a.irq, b.irq),
		SoftIRQPct: pct(a.softirq, b.softirq),
		StealPct:   pct(a.steal, b.steal),
		IdlePct:    pct(a.idle, b.idle),
	}
	m.BusyPct = m.UserPct + m.NicePct + m.SystemPct + m.IRQPct + m.SoftIRQPct + m.StealPct
	return m, nil
}
