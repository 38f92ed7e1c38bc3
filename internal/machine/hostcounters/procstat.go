package hostcounters

import (
	"bytes"
	"fmt"
	"strconv"
)

// CPUTimes is one cpu line of /proc/stat in clock ticks. guest and guest_nice
// are left out: the kernel counts them in user and nice already.
type CPUTimes struct {
	// ID is N of a "cpuN" line; -1 for the aggregate "cpu" line.
	ID      int    `json:"id"`
	User    uint64 `json:"user"`
	Nice    uint64 `json:"nice"`
	System  uint64 `json:"system"`
	Idle    uint64 `json:"idle"`
	IOWait  uint64 `json:"iowait"`
	IRQ     uint64 `json:"irq"`
	SoftIRQ uint64 `json:"softirq"`
	Steal   uint64 `json:"steal"`
}

// Total is every tick of the line.
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Busy is every tick but idle and iowait.
func (c CPUTimes) Busy() uint64 {
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
}

// add adds o's ticks to c's.
func (c *CPUTimes) add(o CPUTimes) {
	c.User += o.User
	c.Nice += o.Nice
	c.System += o.System
	c.Idle += o.Idle
	c.IOWait += o.IOWait
	c.IRQ += o.IRQ
	c.SoftIRQ += o.SoftIRQ
	c.Steal += o.Steal
}

// ParseProcStat parses the text of /proc/stat: the aggregate "cpu" line and
// the "cpuN" lines (older kernels print fewer columns; missing ones count as 0).
// It is the one /proc/stat parser of fairbench.
func ParseProcStat(text []byte) (total CPUTimes, cpus []CPUTimes, err error) {
	found := false
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte{'\n'})
		if !bytes.HasPrefix(line, []byte("cpu")) {
			if found {
				break // the cpu lines come first; the rest (intr…) can be long
			}
			continue
		}
		name, rest := nextField(line)
		c := CPUTimes{ID: -1}
		if len(name) > 3 {
			id, err := strconv.Atoi(string(name[3:]))
			if err != nil || id < 0 {
				continue
			}
			c.ID = id
		}
		dst := [...]*uint64{&c.User, &c.Nice, &c.System, &c.Idle, &c.IOWait, &c.IRQ, &c.SoftIRQ, &c.Steal}
		n := 0
		for n < len(dst) {
			var f []byte
			if f, rest = nextField(rest); f == nil {
				break
			}
			v, err := strconv.ParseUint(string(f), 10, 64)
			if err != nil {
				return CPUTimes{}, nil, fmt.Errorf("machine CPU use: /proc/stat %s line: column %d is %q, not a number", name, n+1, f)
			}
			*dst[n] = v
			n++
		}
		if n < 4 {
			return CPUTimes{}, nil, fmt.Errorf("machine CPU use: /proc/stat cpu line %q has too few columns", bytes.TrimSpace(line))
		}
		if c.ID < 0 {
			total, found = c, true
		} else {
			cpus = append(cpus, c)
		}
	}
	if !found {
		return CPUTimes{}, nil, fmt.Errorf("machine CPU use: /proc/stat has no cpu line")
	}
	return total, cpus, nil
}

// nextField returns the first space-separated field of b and what follows it;
// nil when there is none.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i == len(b) {
		return nil, nil
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}
