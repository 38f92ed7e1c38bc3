package hostcounters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
)

// CPUUse turns two readings of CPU times into the CPU use between them, each
// share a percentage of all the ticks counted (they add up to 100); cpus is the
// number of CPUs the readings cover. It fails when no tick passed.
func CPUUse(a, b CPUTimes, cpus int) (*result.ObservedMachine, error) {
	ta, tb := a.Total(), b.Total()
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
		CPUs:       cpus,
		UserPct:    pct(a.User, b.User),
		NicePct:    pct(a.Nice, b.Nice),
		SystemPct:  pct(a.System, b.System),
		IOWaitPct:  pct(a.IOWait, b.IOWait),
		IRQPct:     pct(a.IRQ, b.IRQ),
		SoftIRQPct: pct(a.SoftIRQ, b.SoftIRQ),
		StealPct:   pct(a.Steal, b.Steal),
		IdlePct:    pct(a.Idle, b.Idle),
	}
	m.BusyPct = m.UserPct + m.NicePct + m.SystemPct + m.IRQPct + m.SoftIRQPct + m.StealPct
	return m, nil
}

// sub is b − a, 0 when the counter went backwards (a reset or a device
// replaced by another of the same name).
func sub(a, b uint64) float64 {
	if b < a {
		return 0
	}
	return float64(b - a)
}

// Delta is what the machine did from snapshot a to snapshot b (a taken
// first). With cpuList (kernel list syntax, "0-3,8") the CPU figures and the
// busiest CPU cover only those CPUs (the server's, when it is pinned); empty,
// all of them. Role and Source are left for the caller to fill. Parts that
// cannot be computed are nil and Note says why.
func Delta(a, b Snapshot, cpuList string) (o result.ObservedServerMachine) {
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	defer func() { o.Note = strings.Join(notes, "; ") }()

	if b.MonotonicNs <= a.MonotonicNs {
		note("the second snapshot is not later than the first by the machine's clock (a reboot?)")
		return o
	}
	o.Seconds = float64(b.MonotonicNs-a.MonotonicNs) / 1e9
	for _, n := range b.Notes {
		if !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}

	o.CPU, o.BusiestCPU, o.BusiestCPUPct = cpuDelta(a, b, cpuList, note)
	o.Disk = diskDelta(a.Disks, b.Disks, o.Seconds)
	o.Net = netDelta(a.Net, b.Net, o.Seconds)
	o.Process = processDelta(a, b, o.Seconds, note)
	return o
}

// cpuDelta computes the CPU use over the CPUs of cpuList (all when empty) and
// the busiest of them.
func cpuDelta(a, b Snapshot, cpuList string, note func(string, ...any)) (*result.ObservedMachine, int, float64) {
	var want []int // nil: every CPU
	if cpuList != "" {
		set, err := cpuset.Parse(cpuList)
		switch {
		case err != nil:
			note("%v: the CPU figures cover all CPUs", err)
		case set.IsEmpty():
		default:
			want = set.CPUs()
		}
	}
	before := make(map[int]CPUTimes, len(a.CPUs))
	for _, c := range a.CPUs {
		before[c.ID] = c
	}
	var sumA, sumB CPUTimes
	n := 0
	busiest, busiestPct := -1, -1.0
	var missing []int
	for _, cb := range b.CPUs {
		if want != nil {
			if _, ok := slices.BinarySearch(want, cb.ID); !ok {
				continue
			}
		}
		ca, ok := before[cb.ID]
		if !ok {
			missing = append(missing, cb.ID)
			continue
		}
		sumA.add(ca)
		sumB.add(cb)
		n++
		if t := sub(ca.Total(), cb.Total()); t > 0 {
			if pct := 100 * sub(ca.Busy(), cb.Busy()) / t; pct > busiestPct {
				busiest, busiestPct = cb.ID, pct
			}
		}
	}
	if len(missing) > 0 {
		note("CPUs %s came online during the phase and are left out", cpuset.Of(missing...))
	}
	if want != nil && n < len(want) {
		note("%d of the %d CPUs of %s were counted (the others are offline or absent)", n, len(want), cpuList)
	}
	if want == nil && len(missing) == 0 {
		sumA, sumB = a.CPU, b.CPU // the kernel's own sum
		n = len(b.CPUs)
	}
	m, err := CPUUse(sumA, sumB, n)
	if err != nil {
		note("%v", err)
		return nil, 0, 0
	}
	if busiest < 0 {
		busiest, busiestPct = 0, 0
	}
	return m, busiest, busiestPct
}

// diskDelta sums the disks present in both snapshots.
func diskDelta(a, b []DiskStats, secs float64) *result.ObservedDisk {
	if len(b) == 0 {
		return nil
	}
	d := &result.ObservedDisk{Devices: []string{}}
	var ops, ms float64
	for _, db := range b {
		i := slices.IndexFunc(a, func(x DiskStats) bool { return x.Name == db.Name })
		if i < 0 {
			continue
		}
		da := a[i]
		d.Devices = append(d.Devices, db.Name)
		r, w := sub(da.Reads, db.Reads), sub(da.Writes, db.Writes)
		d.ReadIOPS += r / secs
		d.WriteIOPS += w / secs
		d.ReadMBPerSec += sub(da.SectorsRead, db.SectorsRead) * 512 / 1e6 / secs
		d.WriteMBPerSec += sub(da.SectorsWritten, db.SectorsWritten) * 512 / 1e6 / secs
		ops += r + w
		ms += sub(da.MsReading, db.MsReading) + sub(da.MsWriting, db.MsWriting)
		d.UtilPct = max(d.UtilPct, min(100, sub(da.MsDoingIO, db.MsDoingIO)/(secs*1000)*100))
	}
	if len(d.Devices) == 0 {
		return nil
	}
	if ops > 0 {
		d.AwaitMs = ms / ops
	}
	return d
}

// netDelta sums the interfaces present in both snapshots but loopback: the
// physical ones (not under /sys/devices/virtual/net) when there are any, as
// bridges and veth pairs carry the same traffic again; else every one but lo
// (in a container, whose eth0 is itself a veth).
func netDelta(a, b []NetStats, secs float64) *result.ObservedNet {
	physical := slices.ContainsFunc(b, func(x NetStats) bool { return !x.Virtual })
	n := &result.ObservedNet{Interfaces: []string{}}
	for _, nb := range b {
		if nb.Name == "lo" || physical && nb.Virtual {
			continue
		}
		i := slices.IndexFunc(a, func(x NetStats) bool { return x.Name == nb.Name })
		if i < 0 {
			continue
		}
		na := a[i]
		n.Interfaces = append(n.Interfaces, nb.Name)
		n.RxMBPerSec += sub(na.RxBytes, nb.RxBytes) / 1e6 / secs
		n.TxMBPerSec += sub(na.TxBytes, nb.TxBytes) / 1e6 / secs
		n.RxPacketsPerS += sub(na.RxPackets, nb.RxPackets) / secs
		n.TxPacketsPerS += sub(na.TxPackets, nb.TxPackets) / secs
	}
	if len(n.Interfaces) == 0 {
		return nil
	}
	return n
}

// processDelta is the process's use between the snapshots, when both read the
// same process.
func processDelta(a, b Snapshot, secs float64, note func(string, ...any)) *result.ObservedProcess {
	pa, pb := a.Process, b.Process
	if pa == nil || pb == nil {
		return nil
	}
	if pa.PID != pb.PID || pa.StartTicks != pb.StartTicks {
		note("process %d was replaced by another during the phase (it restarted?): its figures are left out", pa.PID)
		return nil
	}
	hz := float64(b.ClockTicks)
	if hz <= 0 {
		hz = 100
	}
	p := &result.ObservedProcess{
		PID:           pb.PID,
		Name:          pb.Name,
		UserSeconds:   sub(pa.UserTicks, pb.UserTicks) / hz,
		SystemSeconds: sub(pa.SystemTicks, pb.SystemTicks) / hz,
		WorkerSeconds: sub(pa.WorkerTicks, pb.WorkerTicks) / hz,
		Workers:       pb.Workers,
		RSSBytes:      pb.RSSBytes,
	}
	p.CPUPct = 100 * (p.UserSeconds + p.SystemSeconds + p.WorkerSeconds) / secs
	if pa.ReadBytes != nil && pb.ReadBytes != nil && pa.WriteBytes != nil && pb.WriteBytes != nil {
		r := sub(*pa.ReadBytes, *pb.ReadBytes) / 1e6 / secs
		w := sub(*pa.WriteBytes, *pb.WriteBytes) / 1e6 / secs
		p.ReadMBPerSec, p.WriteMBPerSec = &r, &w
	}
	return p
}
