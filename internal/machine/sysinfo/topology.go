package sysinfo

import (
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
)

const cpuDir = "sys/devices/system/cpu"

// cpuDirs lists the sysfs directories of the CPUs ("sys/devices/system/cpu/cpu0", …).
func cpuDirs(fsys fs.FS) []string {
	entries, err := fs.ReadDir(fsys, cpuDir)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "cpu") {
			continue
		}
		if _, err := strconv.Atoi(name[3:]); err != nil {
			continue
		}
		dirs = append(dirs, cpuDir+"/"+name)
	}
	return dirs
}

// countCPUs fills LogicalCPUs, Cores, Sockets and ThreadsPerCore, preferring the
// kernel's topology in sysfs and falling back to cpuinfo's ids and "cpu cores".
func countCPUs(m *result.Machine, fsys fs.FS, info cpuInfo) {
	m.LogicalCPUs = len(info.cpus)
	if m.LogicalCPUs == 0 {
		m.LogicalCPUs = countList(readText(fsys, cpuDir+"/online"))
	}

	cores := map[[2]int64]bool{}
	sockets := map[int64]bool{}
	for _, dir := range cpuDirs(fsys) {
		core, ok1 := readInt(fsys, dir+"/topology/core_id")
		pkg, ok2 := readInt(fsys, dir+"/topology/physical_package_id")
		if !ok1 || !ok2 {
			continue
		}
		cores[[2]int64{pkg, core}] = true
		sockets[pkg] = true
	}
	m.Cores, m.Sockets = len(cores), len(sockets)

	if m.Cores == 0 {
		m.Cores = info.cores()
	}
	if m.Sockets == 0 {
		m.Sockets = info.distinct("physical id")
	}
	if m.Cores == 0 && m.Sockets > 0 {
		if perSocket, err := strconv.Atoi(info.first("cpu cores")); err == nil {
			m.Cores = perSocket * m.Sockets
		}
	}
	if m.Cores > 0 && m.LogicalCPUs >= m.Cores {
		m.ThreadsPerCore = m.LogicalCPUs / m.Cores
	}
}

// countList counts the CPUs of a kernel CPU list such as "0-3,8-11"; 0 when
// the list does not parse.
func countList(list string) int {
	s, err := cpuset.Parse(list)
	if err != nil {
		return 0
	}
	return s.Len()
}

// readFrequencies fills MHz and BogoMIPS from cpuinfo and MaxMHz, MinMHz and CurMHz
// from cpufreq (whose files hold kHz).
func readFrequencies(m *result.Machine, fsys fs.FS, info cpuInfo) {
	m.MHz = round1(info.average("cpu mhz"))
	if v, err := strconv.ParseFloat(info.first("bogomips"), 64); err == nil {
		m.BogoMIPS = v
	}

	var curSum float64
	curN := 0
	for _, dir := range cpuDirs(fsys) {
		if khz, ok := readInt(fsys, dir+"/cpufreq/cpuinfo_max_freq"); ok && khz > 0 {
			m.MaxMHz = math.Max(m.MaxMHz, float64(khz)/1000)
		}
		if khz, ok := readInt(fsys, dir+"/cpufreq/cpuinfo_min_freq"); ok && khz > 0 {
			if m.MinMHz == 0 || float64(khz)/1000 < m.MinMHz {
				m.MinMHz = float64(khz) / 1000
			}
		}
		if khz, ok := readInt(fsys, dir+"/cpufreq/scaling_cur_freq"); ok && khz > 0 {
			curSum += float64(khz) / 1000
			curN++
		}
	}
	if curN > 0 {
		m.CurMHz = round1(curSum / float64(curN))
	}
}

// round1 rounds to one decimal, enough for a frequency in MHz.
func round1(v float64) float64 {
	return math.Round(v*10) / 10
}
