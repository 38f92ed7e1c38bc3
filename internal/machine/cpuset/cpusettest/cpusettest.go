// Package cpusettest generates the sysfs CPU topology of machines larger than
// the development VM (two sockets with SMT, an 80-core ARM server, a 4-NUMA-node
// EPYC), so that CPU-set selection and the plans built on it are tested against
// them without committing thousands of files. The trees are what
// cpuset.ReadTopology reads: an fs.FS rooted at "/".
package cpusettest

import (
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
)

// Machine describes a machine's CPUs compactly; Tree turns it into sysfs files.
type Machine struct {
	// CPUs is the number of logical CPUs, ids 0 to CPUs-1.
	CPUs int
	// Where gives CPU i's socket, core_id, SMT thread index and NUMA node.
	Where func(i int) (pkg, core, thread, node int)
	// CoreCPUsOnly writes core_cpus_list instead of thread_siblings_list (newer kernels).
	CoreCPUsOnly bool
	// Offline CPUs are left out of the online list.
	Offline []int
}

// The machines of the tests.
var (
	// Intel2S is two Intel sockets × 16 cores × 2 threads: cpuN and cpuN+32
	// are siblings, socket 0 has cores 0-15 (CPUs 0-15, 32-47), one NUMA node
	// per socket.
	Intel2S = Machine{CPUs: 64, Where: func(i int) (int, int, int, int) {
		return (i % 32) / 16, i % 16, i / 32, (i % 32) / 16
	}}
	// ARM80 is an 80-core ARM server without SMT, one socket, one node
	// (core_cpus_list only).
	ARM80 = Machine{CPUs: 80, CoreCPUsOnly: true, Where: func(i int) (int, int, int, int) {
		return 0, i, 0, 0
	}}
	// EPYC is one socket, 64 cores, 128 threads, siblings N and N+64, four
	// NUMA nodes (NPS4) of 16 cores each.
	EPYC = Machine{CPUs: 128, Where: func(i int) (int, int, int, int) {
		return 0, i % 64, i / 64, (i % 64) / 16
	}}
	// HT28 is seed 001's x86 box: 14 cores × 2 threads ("28 ht-cores"),
	// siblings N and N+14, one socket and node.
	HT28 = Machine{CPUs: 28, Where: func(i int) (int, int, int, int) {
		return 0, i % 14, i / 14, 0
	}}
)

// list writes ids as a kernel CPU list of single ids ("0,32").
func list(ids []int) string {
	ids = slices.Sorted(slices.Values(ids))
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ",")
}

// Tree generates the sysfs tree of m.
func (m Machine) Tree() fstest.MapFS {
	fsys := fstest.MapFS{}
	put := func(name, text string) { fsys[name] = &fstest.MapFile{Data: []byte(text + "\n")} }
	siblings := map[[2]int][]int{}
	nodes := map[int][]int{}
	var online []int
	for i := 0; i < m.CPUs; i++ {
		pkg, core, _, node := m.Where(i)
		siblings[[2]int{pkg, core}] = append(siblings[[2]int{pkg, core}], i)
		nodes[node] = append(nodes[node], i)
		if !slices.Contains(m.Offline, i) {
			online = append(online, i)
		}
	}
	put("sys/devices/system/cpu/online", list(online))
	for i := 0; i < m.CPUs; i++ {
		pkg, core, _, _ := m.Where(i)
		dir := "sys/devices/system/cpu/cpu" + strconv.Itoa(i) + "/topology/"
		put(dir+"core_id", strconv.Itoa(core))
		put(dir+"physical_package_id", strconv.Itoa(pkg))
		sib := list(siblings[[2]int{pkg, core}])
		if m.CoreCPUsOnly {
			put(dir+"core_cpus_list", sib)
		} else {
			put(dir+"thread_siblings_list", sib)
		}
	}
	for node, ids := range nodes {
		put("sys/devices/system/node/node"+strconv.Itoa(node)+"/cpulist", list(ids))
	}
	return fsys
}
