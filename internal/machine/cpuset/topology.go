package cpuset

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// sysfs directories read by ReadTopology.
const (
	cpuDir  = "sys/devices/system/cpu"
	nodeDir = "sys/devices/system/node"
)

// CPU is one online logical CPU and where it sits.
type CPU struct {
	ID      int // the kernel's CPU number
	Core    int // core_id (unique within a package only)
	Package int // physical_package_id (the socket)
	Node    int // NUMA node, -1 when the machine reports none
	// Siblings are the logical CPUs of the same core (SMT threads), this one included.
	Siblings Set
}

// Topology is the online CPUs of a machine, ordered by id.
type Topology struct {
	CPUs []CPU
}

// ReadTopology reads the online CPUs' core, package, SMT siblings
// (thread_siblings_list, or core_cpus_list on newer kernels) and NUMA node
// (sys/devices/system/node/nodeN/cpulist) from sysfs in fsys. A CPU without
// topology files counts as its own core in package 0; one in no node has Node -1.
func ReadTopology(fsys fs.FS) (Topology, error) {
	online, err := Online(fsys)
	if err != nil {
		return Topology{}, err
	}
	if online.IsEmpty() {
		return Topology{}, fmt.Errorf("/%s lists no CPUs", onlinePath)
	}
	nodes, err := readNodes(fsys)
	if err != nil {
		return Topology{}, err
	}
	var t Topology
	for _, id := range online.ids {
		dir := cpuDir + "/cpu" + strconv.Itoa(id) + "/topology/"
		c := CPU{ID: id, Core: id, Node: -1, Siblings: Of(id)}
		if v, ok := readInt(fsys, dir+"core_id"); ok {
			c.Core = v
		}
		if v, ok := readInt(fsys, dir+"physical_package_id"); ok && v >= 0 {
			c.Package = v
		}
		for _, name := range []string{"thread_siblings_list", "core_cpus_list"} {
			if s, err := readList(fsys, dir+name); err == nil && s.Contains(id) {
				// Offline siblings take no work: keep the online ones.
				c.Siblings = s.Intersect(online)
				break
			}
		}
		for node, cpus := range nodes {
			if cpus.Contains(id) {
				c.Node = node
			}
		}
		t.CPUs = append(t.CPUs, c)
	}
	return t, nil
}

// readNodes reads the CPU list of each NUMA node.
func readNodes(fsys fs.FS) (map[int]Set, error) {
	entries, err := fs.ReadDir(fsys, nodeDir)
	if err != nil {
		return nil, nil // no NUMA information: not an error
	}
	nodes := map[int]Set{}
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "node")
		id, err := strconv.Atoi(n)
		if !ok || err != nil {
			continue
		}
		s, err := readList(fsys, nodeDir+"/"+e.Name()+"/cpulist")
		if err != nil {
			return nil, err
		}
		nodes[id] = s
	}
	return nodes, nil
}

// readInt reads a file holding one integer.
func readInt(fsys fs.FS, name string) (int, bool) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(data)))
	return v, err == nil
}

// All is the set of the topology's CPUs.
func (t Topology) All() Set {
	ids := make([]int, len(t.CPUs))
	for i, c := range t.CPUs {
		ids[i] = c.ID
	}
	return Of(ids...)
}

// Within returns the topology of the CPUs in allowed only (the CPUs a process
// may use); siblings outside allowed are dropped.
func (t Topology) Within(allowed Set) Topology {
	var out Topology
	for _, c := range t.CPUs {
		if allowed.Contains(c.ID) {
			c.Siblings = c.Siblings.Intersect(allowed)
			out.CPUs = append(out.CPUs, c)
		}
	}
	return out
}

// Cores returns the cores, each as its set of logical CPUs, ordered by their
// lowest CPU id.
func (t Topology) Cores() []Set {
	return t.coresOf(t.CPUs)
}

// CoresIn is the number of cores of t that hold a CPU of s (the physical
// cores a set touches).
func (t Topology) CoresIn(s Set) int {
	n := 0
	for _, core := range t.Cores() {
		if core.Overlaps(s) {
			n++
		}
	}
	return n
}

// coresOf groups cpus into cores by their sibling lists.
func (t Topology) coresOf(cpus []CPU) []Set {
	seen := map[string]bool{}
	var cores []Set
	for _, c := range cpus {
		key := c.Siblings.String()
		if !seen[key] {
			seen[key] = true
			cores = append(cores, c.Siblings)
		}
	}
	slices.SortFunc(cores, func(a, b Set) int { return a.ids[0] - b.ids[0] })
	return cores
}

// Packages is the number of sockets.
func (t Topology) Packages() int {
	seen := map[int]bool{}
	for _, c := range t.CPUs {
		seen[c.Package] = true
	}
	return len(seen)
}

// Nodes is the number of NUMA nodes (0 when the machine reports none).
func (t Topology) Nodes() int {
	seen := map[int]bool{}
	for _, c := range t.CPUs {
		if c.Node >= 0 {
			seen[c.Node] = true
		}
	}
	return len(seen)
}

// HasSMT reports whether any core has more than one logical CPU.
func (t Topology) HasSMT() bool {
	for _, c := range t.CPUs {
		if c.Siblings.Len() > 1 {
			return true
		}
	}
	return false
}

// String summarises the topology: "2 CPUs, 2 cores, 1 socket, 1 NUMA node".
func (t Topology) String() string {
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return strconv.Itoa(n) + " " + what + "s"
	}
	s := plural(len(t.CPUs), "CPU") + ", " + plural(len(t.Cores()), "core") + ", " + plural(t.Packages(), "socket")
	if n := t.Nodes(); n > 0 {
		s += ", " + plural(n, "NUMA node")
	}
	return s
}

// domains splits the CPUs into the units placement fills or alternates
// across: (socket, NUMA node) pairs, ordered by their lowest CPU id.
func (t Topology) domains() [][]CPU {
	index := map[[2]int]int{}
	var out [][]CPU
	for _, c := range t.CPUs { // ordered by id, so domains come by lowest id
		k := [2]int{c.Package, c.Node}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}
