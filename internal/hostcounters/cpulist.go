package hostcounters

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers a list may hold (the kernel's NR_CPUS is at
// most 8192), so that "0-4000000000" cannot allocate without end.
const maxCPU = 1 << 16

// ParseCPUList parses a kernel CPU list ("0-3,8", "0,2,4-7", "" = none) into
// sorted, distinct CPU numbers. The kernel's stride form "0-7:2" is accepted.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		rng, strideText, hasStride := strings.Cut(part, ":")
		lo, hi, isRange := strings.Cut(rng, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b, stride := a, 1
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("CPU list %q: range %q goes backwards", s, part)
			}
		}
		if hasStride {
			if !isRange {
				return nil, fmt.Errorf("CPU list %q: a stride (%q) needs a range", s, part)
			}
			if stride, err = strconv.Atoi(strideText); err != nil || stride < 1 {
				return nil, fmt.Errorf("CPU list %q: stride %q is not a positive number", s, strideText)
			}
		}
		for c := a; c <= b; c += stride {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// cpuNumber parses one CPU number.
func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	if n >= maxCPU {
		return 0, fmt.Errorf("CPU %d is beyond the largest a kernel supports", n)
	}
	return n, nil
}

// FormatCPUList writes sorted, distinct CPU numbers in the kernel's list form
// with ranges ("0-3,8").
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

// ProcessCPUList returns the CPUs process pid may run on: Cpus_allowed_list of
// /proc/PID/status, narrowed by cpuset.cpus.effective of its cgroup v2 (the
// nearest of its cgroup and their parents that has the file; containers limit
// CPUs there). The note says when the cgroup could not be read and the list
// rests on the affinity alone.
func ProcessCPUList(fsys fs.FS, pid int) (list []int, note string, err error) {
	dir := "proc/" + strconv.Itoa(pid)
	b, err := fs.ReadFile(fsys, dir+"/status")
	if err != nil {
		return nil, "", fmt.Errorf("the CPUs of process %d: %w", pid, err)
	}
	allowedText := statusValue(b, "Cpus_allowed_list")
	if allowedText == "" {
		return nil, "", fmt.Errorf("the CPUs of process %d: /proc/%d/status has no Cpus_allowed_list", pid, pid)
	}
	allowed, err := ParseCPUList(allowedText)
	if err != nil {
		return nil, "", fmt.Errorf("the CPUs of process %d: %w", pid, err)
	}
	effective, note := cgroupCPUs(fsys, dir)
	if effective == nil {
		return allowed, note, nil
	}
	var both []int
	for _, c := range allowed {
		if _, ok := slices.BinarySearch(effective, c); ok {
			both = append(both, c)
		}
	}
	return both, "", nil
}

// cgroupCPUs reads cpuset.cpus.effective for the cgroup v2 of the process
// whose /proc directory is dir; nil and a note when it cannot.
func cgroupCPUs(fsys fs.FS, dir string) ([]int, string) {
	b, err := fs.ReadFile(fsys, dir+"/cgroup")
	if err != nil {
		return nil, "its cgroup could not be read: " + err.Error()
	}
	group := ""
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			group, found = p, true
			break
		}
	}
	if !found {
		return nil, "it is in no cgroup v2 (cgroup v1 cpusets are not read)"
	}
	for g := path.Clean("/" + group); ; g = path.Dir(g) {
		b, err := fs.ReadFile(fsys, strings.TrimSuffix(path.Join("sys/fs/cgroup", g), "/")+"/cpuset.cpus.effective")
		if err == nil {
			cpus, err := ParseCPUList(string(b))
			if err != nil || cpus == nil {
				return nil, "its cgroup's cpuset.cpus.effective is unreadable"
			}
			return cpus, ""
		}
		if g == "/" {
			return nil, "no cpuset.cpus.effective was found for its cgroup"
		}
	}
}
