package cpuset

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/procfs"
)

// Paths read from the fs.FS rooted at "/".
const (
	onlinePath = "sys/devices/system/cpu/online"
	cgroupRoot = "sys/fs/cgroup"
)

// Online returns the CPUs the kernel has online (sys/devices/system/cpu/online).
func Online(fsys fs.FS) (Set, error) {
	return readList(fsys, onlinePath)
}

// readList reads and parses a file holding a CPU list.
func readList(fsys fs.FS, name string) (Set, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Set{}, fmt.Errorf("read /%s: %w", name, err)
	}
	s, err := Parse(string(data))
	if err != nil {
		return Set{}, fmt.Errorf("/%s: %w", name, err)
	}
	return s, nil
}

// Effective returns the CPUs process pid may run on: Cpus_allowed_list of
// /proc/PID/status (its affinity), narrowed by the cpuset of its cgroup —
// cgroup v2's cpuset.cpus.effective (of its cgroup or the nearest ancestor
// that has one), or cgroup v1's cpuset.effective_cpus — where those files
// exist. A process without a readable cgroup cpuset gets its affinity alone.
func Effective(fsys fs.FS, pid int) (Set, error) {
	proc := procfs.Dir(pid)
	status, err := fs.ReadFile(fsys, proc+"/status")
	if err != nil {
		return Set{}, fmt.Errorf("read the CPUs process %d may use: %w", pid, err)
	}
	allowed, ok := procfs.StatusField(status, "Cpus_allowed_list")
	if !ok {
		return Set{}, fmt.Errorf("/%s/status has no Cpus_allowed_list", proc)
	}
	set, err := Parse(allowed)
	if err != nil {
		return Set{}, fmt.Errorf("/%s/status: %w", proc, err)
	}
	cg, err := cgroupCPUs(fsys, proc)
	if err != nil {
		return Set{}, err
	}
	if cg != nil {
		set = set.Intersect(*cg)
	}
	return set, nil
}

// cgroupCPUs returns the cpuset of the cgroup of the process in proc, or nil
// when there is none to read (no cgroup file, no cpuset controller).
func cgroupCPUs(fsys fs.FS, proc string) (*Set, error) {
	data, err := fs.ReadFile(fsys, proc+"/cgroup")
	if err != nil {
		return nil, nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var candidates []string
		switch {
		case parts[0] == "0" && parts[1] == "":
			// cgroup v2: the unified tree at sys/fs/cgroup (or sys/fs/cgroup/unified on hybrid systems).
			for _, root := range []string{cgroupRoot, cgroupRoot + "/unified"} {
				candidates = append(candidates, ancestors(root, parts[2], "cpuset.cpus.effective")...)
			}
		case hasController(parts[1], "cpuset"):
			candidates = ancestors(cgroupRoot+"/cpuset", parts[2], "cpuset.effective_cpus")
		}
		for _, name := range candidates {
			s, err := readList(fsys, name)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			return &s, nil
		}
	}
	return nil, nil
}

// hasController reports whether a cgroup v1 controller list names c.
func hasController(list, c string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == c {
			return true
		}
	}
	return false
}

// ancestors returns root/cg/file, then the same file in each parent cgroup up
// to root/file: a cgroup without the cpuset controller follows its nearest
// ancestor that has it.
func ancestors(root, cg, file string) []string {
	cg = path.Clean("/" + cg)
	var out []string
	for {
		out = append(out, path.Join(root, cg, file))
		if cg == "/" {
			return out
		}
		cg = path.Dir(cg)
	}
}

// ProcessList is the CPU list a machine fingerprint records for process pid
// (sysinfo's cpu_list): the online CPUs it may use (Usable) in list form, or
// "" when that is every online CPU — an empty list stands for the whole
// machine. When the online CPUs cannot be read it is Effective's list.
func ProcessList(fsys fs.FS, pid int) (string, error) {
	eff, err := Effective(fsys, pid)
	if err != nil {
		return "", err
	}
	online, err := Online(fsys)
	if err != nil || online.IsEmpty() {
		return eff.String(), nil
	}
	usable := online.Intersect(eff)
	if usable.Equal(online) {
		return "", nil
	}
	return usable.String(), nil
}
