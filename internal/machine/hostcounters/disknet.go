package hostcounters

import (
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// DiskStats is one whole disk of /proc/diskstats. Sectors are 512 bytes
// whatever the device's own sector size.
type DiskStats struct {
	Name           string `json:"name"`
	Reads          uint64 `json:"reads"`
	SectorsRead    uint64 `json:"sectors_read"`
	MsReading      uint64 `json:"ms_reading"`
	Writes         uint64 `json:"writes"`
	SectorsWritten uint64 `json:"sectors_written"`
	MsWriting      uint64 `json:"ms_writing"`
	// MsDoingIO is the time the device had IO in flight (its busy time).
	MsDoingIO uint64 `json:"ms_doing_io"`
}

// NetStats is one interface of /proc/net/dev.
type NetStats struct {
	Name      string `json:"name"`
	RxBytes   uint64 `json:"rx_bytes"`
	RxPackets uint64 `json:"rx_packets"`
	TxBytes   uint64 `json:"tx_bytes"`
	TxPackets uint64 `json:"tx_packets"`
	// Virtual is true for an interface the kernel lists under
	// /sys/devices/virtual/net (bridges, veth pairs, tunnels, lo).
	Virtual bool `json:"virtual,omitempty"`
}

// notDisk are the prefixes of block devices that are no disk of their own.
var notDisk = []string{"loop", "ram", "zram", "dm-", "md", "sr", "fd"}

// wholeDisks returns the names in /sys/block, or nil when it cannot be read.
func wholeDisks(fsys fs.FS) map[string]bool { return dirNames(fsys, "sys/block") }

// isPartitionName reports whether name looks like a partition: sda1, vdb2,
// xvda1, hda3 (a letter device followed by digits) or nvme0n1p1, mmcblk0p1.
func isPartitionName(name string) bool {
	if strings.HasPrefix(name, "nvme") || strings.HasPrefix(name, "mmcblk") {
		i := strings.LastIndexByte(name, 'p')
		return i > 0 && i < len(name)-1 && allDigits(name[i+1:]) && allDigits(name[i-1:i])
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	return i > 0 && i < len(name) && name[i-1] >= 'a' && name[i-1] <= 'z'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseDiskstats parses /proc/diskstats, keeping whole disks (whole lists
// them; nil: recognise partitions by name). Malformed lines are skipped.
func parseDiskstats(text []byte, whole map[string]bool) []DiskStats {
	var disks []DiskStats
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte{'\n'})
		var f [14][]byte
		rest := line
		n := 0
		for n < len(f) {
			if f[n], rest = nextField(rest); f[n] == nil {
				break
			}
			n++
		}
		if n < 14 {
			continue
		}
		name := string(f[2])
		if whole != nil && !whole[name] || whole == nil && isPartitionName(name) {
			continue
		}
		skip := false
		for _, p := range notDisk {
			skip = skip || strings.HasPrefix(name, p)
		}
		if skip {
			continue
		}
		var v [11]uint64
		bad := false
		for i := range v {
			x, err := strconv.ParseUint(string(f[3+i]), 10, 64)
			v[i], bad = x, bad || err != nil
		}
		if bad || v == [11]uint64{} {
			continue
		}
		// 3 reads, 4 reads merged, 5 sectors read, 6 ms reading, 7 writes,
		// 8 writes merged, 9 sectors written, 10 ms writing, 11 in flight,
		// 12 ms doing IO, 13 weighted ms.
		disks = append(disks, DiskStats{Name: name, Reads: v[0], SectorsRead: v[2], MsReading: v[3],
			Writes: v[4], SectorsWritten: v[6], MsWriting: v[7], MsDoingIO: v[9]})
	}
	return disks
}

// virtualNets returns the names under /sys/devices/virtual/net, or nil.
func virtualNets(fsys fs.FS) map[string]bool { return dirNames(fsys, "sys/devices/virtual/net") }

// dirNames returns the names in directory dir, or nil when it cannot be read
// or is empty.
func dirNames(fsys fs.FS, dir string) map[string]bool {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil || len(entries) == 0 {
		return nil
	}
	m := make(map[string]bool, len(entries))
	for _, e := range entries {
		m[e.Name()] = true
	}
	return m
}

// parseNetDev parses /proc/net/dev: "name: rx_bytes rx_packets errs drop fifo
// frame compressed multicast tx_bytes tx_packets …".
func parseNetDev(text []byte, virtual map[string]bool) ([]NetStats, error) {
	var nets []NetStats
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte{'\n'})
		name, rest, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue // the two header lines
		}
		nm := string(bytes.TrimSpace(name))
		var v [10]uint64
		for i := range v {
			var f []byte
			if f, rest = nextField(rest); f == nil {
				return nil, fmt.Errorf("network counters: /proc/net/dev line of %s has too few columns", nm)
			}
			x, err := strconv.ParseUint(string(f), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("network counters: /proc/net/dev line of %s: %q is not a number", nm, f)
			}
			v[i] = x
		}
		nets = append(nets, NetStats{Name: nm, RxBytes: v[0], RxPackets: v[1], TxBytes: v[8], TxPackets: v[9],
			Virtual: virtual[nm] || nm == "lo"})
	}
	return nets, nil
}

// parseMeminfo returns MemTotal and MemAvailable of /proc/meminfo in bytes.
func parseMeminfo(text []byte) (total, avail int64) {
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte{'\n'})
		key, rest, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		var dst *int64
		switch string(key) {
		case "MemTotal":
			dst = &total
		case "MemAvailable":
			dst = &avail
		default:
			continue
		}
		f, _ := nextField(rest)
		if kb, err := strconv.ParseInt(string(f), 10, 64); err == nil {
			*dst = kb * 1024
		}
		if total != 0 && avail != 0 {
			break
		}
	}
	return total, avail
}
