// Package hostcounters reads a Linux machine's counters (CPU time per CPU, disk
// and network traffic, memory, and optionally one process's use) into a
// Snapshot, and turns two snapshots into what the machine did between them
// (Delta). A Snapshot is the wire format of `fairbench agent`.
//
// Everything is read from an fs.FS rooted at "/" (procfs at proc/, sysfs at
// sys/), so that tests read fixtures. Only /proc/stat is required; whatever
// else cannot be read is left out and Snapshot.Notes says why.
package hostcounters

import (
	"fmt"
	"io/fs"
)

// SnapshotVersion is the version of the Snapshot format; it changes when a
// field changes meaning.
const SnapshotVersion = 1

// Snapshot is one reading of a machine's counters. Counters only grow (but
// for a reboot or a device's removal); Delta turns two readings into rates.
type Snapshot struct {
	// Version is SnapshotVersion.
	Version int `json:"version"`
	// MonotonicNs is the machine's CLOCK_MONOTONIC (time since boot, not
	// counting suspend) in nanoseconds: deltas are by the machine's own clock.
	MonotonicNs int64 `json:"monotonic_ns"`
	// ClockTicks is the kernel's USER_HZ, the unit of the CPU times (the
	// AT_CLKTCK of the reading process's auxiliary vector; 100 when that could
	// not be read, with a note).
	ClockTicks int `json:"clock_ticks"`
	// CPU is the aggregate "cpu" line of /proc/stat; CPUs the "cpuN" lines.
	CPU  CPUTimes   `json:"cpu"`
	CPUs []CPUTimes `json:"cpus"`
	// Disks are the whole disks of /proc/diskstats (see Read for which).
	Disks []DiskStats `json:"disks,omitempty"`
	// Net are the interfaces of /proc/net/dev, loopback included (Delta
	// leaves it out).
	Net []NetStats `json:"net,omitempty"`
	// MemTotalBytes and MemAvailableBytes are from /proc/meminfo.
	MemTotalBytes     int64 `json:"mem_total_bytes,omitempty"`
	MemAvailableBytes int64 `json:"mem_available_bytes,omitempty"`
	// Process is the process asked for, when a PID was given and it could be read.
	Process *ProcessStats `json:"process,omitempty"`
	// Notes say what could not be read.
	Notes []string `json:"notes,omitempty"`
}

// Read reads a snapshot from fsys, a file system rooted at "/". With pid > 0
// it also reads that process (/proc/PID/stat, io, status). It fails only when
// /proc/stat cannot be read or parsed; other files missing or unreadable leave
// their part out, with a note.
//
// Disks: only whole disks are kept. Partitions are left out (they repeat
// their disk's IO), and so are loop, ram, zram, dm-* (device mapper: LVM,
// crypt), md* (software RAID), sr* (optical) and fd* devices, which either
// hold no storage or stack on disks that are counted already; disks never
// used since boot (all counters zero) too. A device is a whole disk when it
// is listed in /sys/block; without /sys/block partitions are recognised by
// name (sda1, nvme0n1p1, mmcblk0p1).
func Read(fsys fs.FS, pid int) (Snapshot, error) {
	return NewReader(fsys, pid).Read()
}

// Reader reads snapshots of one machine (and process) again and again,
// reading what never changes (the clock tick, the page size) once. It is
// safe for use by several goroutines at once.
type Reader struct {
	fsys       fs.FS
	pid        int
	clockTicks int
	pageSize   int64
	tickNote   string
}

// NewReader returns a Reader of fsys, a file system rooted at "/", and with
// pid > 0 of that process.
func NewReader(fsys fs.FS, pid int) *Reader {
	r := &Reader{fsys: fsys, pid: pid}
	var ok bool
	r.clockTicks, r.pageSize, ok = auxvValues(fsys)
	if !ok {
		r.clockTicks = 100
		r.tickNote = "the clock tick (USER_HZ) could not be read from /proc/self/auxv: CPU times assume 100 per second"
	}
	return r
}

// Read reads a snapshot; see the package function Read.
func (r *Reader) Read() (Snapshot, error) {
	fsys, pid := r.fsys, r.pid
	s := Snapshot{Version: SnapshotVersion, MonotonicNs: monotonicNs(), ClockTicks: r.clockTicks}
	b, err := fs.ReadFile(fsys, "proc/stat")
	if err != nil {
		return Snapshot{}, fmt.Errorf("machine counters: %w", err)
	}
	if s.CPU, s.CPUs, err = ParseProcStat(b); err != nil {
		return Snapshot{}, err
	}
	if r.tickNote != "" {
		s.Notes = append(s.Notes, r.tickNote)
	}
	if b, err := fs.ReadFile(fsys, "proc/diskstats"); err != nil {
		s.Notes = append(s.Notes, "disk counters: "+err.Error())
	} else {
		s.Disks = parseDiskstats(b, wholeDisks(fsys))
	}
	if b, err := fs.ReadFile(fsys, "proc/net/dev"); err != nil {
		s.Notes = append(s.Notes, "network counters: "+err.Error())
	} else if s.Net, err = parseNetDev(b, virtualNets(fsys)); err != nil {
		s.Notes = append(s.Notes, err.Error())
	}
	if b, err := fs.ReadFile(fsys, "proc/meminfo"); err != nil {
		s.Notes = append(s.Notes, "memory: "+err.Error())
	} else {
		s.MemTotalBytes, s.MemAvailableBytes = parseMeminfo(b)
	}
	if pid > 0 {
		p, err := readProcess(fsys, pid, r.pageSize)
		if err != nil {
			s.Notes = append(s.Notes, err.Error())
		} else {
			s.Process = &p
			if p.IOError != "" {
				s.Notes = append(s.Notes, p.IOError)
			}
		}
	}
	return s, nil
}
