package servermachine

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers of a list: the kernel's NR_CPUS is at most 8192.
const maxCPU = 1 << 16

// ParseCPUList parses a kernel CPU list ("0-3,8,10-11") into sorted, distinct
// CPU numbers. An empty list gives none.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	seen := map[int]bool{}
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= maxCPU {
			return nil, fmt.Errorf("%q is not a CPU list such as 0-3,8", s)
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	slices.Sort(cpus)
	return cpus, nil
}

// FormatCPUList writes sorted, distinct CPU numbers in the kernel's list form.
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ProcessCPUList returns the CPUs process pid may run on, in list form: the
// Cpus_allowed_list of proc/PID/status narrowed by the cpuset.cpus.effective
// of its cgroup v2 (proc/PID/cgroup → sys/fs/cgroup/PATH), read from fsys
// rooted at /. It returns "" when the process may use every online CPU
// (sys/devices/system/cpu/online), and an error when its status cannot be read.
func ProcessCPUList(fsys fs.FS, pid int) (string, error) {
	dir := "proc/" + strconv.Itoa(pid)
	status, err := fs.ReadFile(fsys, dir+"/status")
	if err != nil {
		return "", fmt.Errorf("reading the CPUs of process %d: %w", pid, err)
	}
	allowed, found := statusField(status, "Cpus_allowed_list")
	if !found {
		return "", fmt.Errorf("reading the CPUs of process %d: /%s/status has no Cpus_allowed_list", pid, dir)
	}
	cpus, err := ParseCPUList(allowed)
	if err != nil {
		return "", fmt.Errorf("reading the CPUs of process %d: Cpus_allowed_list: %w", pid, err)
	}
	if set, ok := cgroupCPUs(fsys, dir); ok {
		cpus = slices.DeleteFunc(cpus, func(c int) bool { _, in := slices.BinarySearch(set, c); return !in })
	}
	if online, err := readCPUList(fsys, "sys/devices/system/cpu/online"); err == nil && len(online) > 0 {
		cpus = slices.DeleteFunc(cpus, func(c int) bool { _, in := slices.BinarySearch(online, c); return !in })
		if slices.Equal(cpus, online) {
			return "", nil
		}
	}
	return FormatCPUList(cpus), nil
}

// cgroupCPUs returns the cpuset.cpus.effective of the cgroup v2 of the
// process whose proc directory is dir, and false when there is none to read
// (cgroup v1, no cpuset controller, not readable).
func cgroupCPUs(fsys fs.FS, dir string) ([]int, bool) {
	b, err := fs.ReadFile(fsys, dir+"/cgroup")
	if err != nil {
		return nil, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		p, ok := strings.CutPrefix(line, "0::") // the cgroup v2 line
		if !ok {
			continue
		}
		file := path.Join("sys/fs/cgroup", path.Clean("/"+strings.TrimSpace(p)), "cpuset.cpus.effective")
		cpus, err := readCPUList(fsys, file)
		if err != nil || len(cpus) == 0 {
			return nil, false
		}
		return cpus, true
	}
	return nil, false
}

// readCPUList reads a file holding a CPU list.
func readCPUList(fsys fs.FS, name string) ([]int, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return ParseCPUList(string(b))
}

// statusField returns the value of a "Name:\tvalue" line of a proc status file.
func statusField(status []byte, name string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == name {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
