package observe

import (
	"fmt"
	"io/fs"

	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/record/result"
)

// cpuTimes is the aggregate "cpu" line of /proc/stat, in clock ticks, and the
// number of per-CPU lines.
type cpuTimes struct {
	hostcounters.CPUTimes
	cpus int
}

// total is every tick of the line.
func (c cpuTimes) total() uint64 { return c.Total() }

// readCPUTimes reads proc/stat of fsys.
func readCPUTimes(fsys fs.FS) (cpuTimes, error) {
	b, err := fs.ReadFile(fsys, "proc/stat")
	if err != nil {
		return cpuTimes{}, fmt.Errorf("machine CPU use: %w", err)
	}
	return parseProcStat(b)
}

// parseProcStat parses the text of /proc/stat with hostcounters' parser.
func parseProcStat(text []byte) (cpuTimes, error) {
	total, cpus, err := hostcounters.ParseProcStat(text)
	if err != nil {
		return cpuTimes{}, err
	}
	return cpuTimes{CPUTimes: total, cpus: len(cpus)}, nil
}

// cpuUse turns two readings into the machine's CPU use between them. It fails when
// no tick passed.
func cpuUse(a, b cpuTimes) (*result.ObservedMachine, error) {
	return hostcounters.CPUUse(a.CPUTimes, b.CPUTimes, b.cpus)
}
