package sysinfo

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// LocalMachine fingerprints the machine fairbench runs on.
func LocalMachine() result.Machine {
	m := CollectMachine(os.DirFS("/"))
	if m.Hostname == "" {
		if h, err := os.Hostname(); err == nil {
			m.Hostname = h
		}
	}
	if m.LogicalCPUs == 0 {
		m.LogicalCPUs = runtime.NumCPU()
	}
	return m
}

// CollectMachine fingerprints the machine whose root file system is fsys (procfs at
// proc/, sysfs at sys/, etc/os-release). Files that are missing or unreadable leave
// their fields empty; it never fails.
func CollectMachine(fsys fs.FS) result.Machine {
	return collectMachine(fsys, runtime.GOARCH)
}

// collectMachine is CollectMachine with the architecture given, so that tests can
// read an arm64 fixture on any machine.
func collectMachine(fsys fs.FS, goarch string) result.Machine {
	m := result.Machine{Arch: goarch, GoVersion: runtime.Version()}
	info := parseCPUInfo(readText(fsys, "proc/cpuinfo"))
	dmiVendor := readText(fsys, "sys/class/dmi/id/sys_vendor")
	m.SystemVendor = dmiVendor
	m.Product = readText(fsys, "sys/class/dmi/id/product_name")

	identifyCPU(&m, fsys, info)
	countCPUs(&m, fsys, info)
	readFrequencies(&m, fsys, info)
	m.Features = notableFeatures(info.flags())

	m.MemoryBytes = MemTotal(readText(fsys, "proc/meminfo"))
	m.Kernel = readText(fsys, "proc/sys/kernel/osrelease")
	m.OS = prettyName(readText(fsys, "etc/os-release"))
	m.Hostname = readText(fsys, "proc/sys/kernel/hostname")
	if m.Hostname == "" {
		m.Hostname = readText(fsys, "etc/hostname")
	}
	m.Container = inContainer(fsys)
	m.Virtualization = virtualization(fsys, info, m.Container)
	return m
}

// identifyCPU fills Vendor, CPUModel and, on ARM, Implementer, Part and Core.
func identifyCPU(m *result.Machine, fsys fs.FS, info cpuInfo) {
	model := strings.Join(strings.Fields(info.first("model name")), " ")
	if vendorID := info.first("vendor_id"); vendorID != "" {
		m.Vendor = x86Vendor(vendorID)
		m.CPUModel = model
		return
	}
	if !identifyARM(m, fsys, info) {
		m.CPUModel = model
		if m.CPUModel == "" {
			m.CPUModel = info.first("cpu model") // MIPS, some others
		}
		return
	}
	// 32-bit ARM kernels print "ARMv7 Processor rev 4 (v7l)", which says less than the core.
	if model != "" && !strings.HasPrefix(model, "ARMv") {
		m.CPUModel = model
	}
}

// identifyARM reads the MIDR codes from cpuinfo (or, when cpuinfo hides them,
// from sysfs' midr_el1), resolves them and builds CPUModel. It reports whether
// the CPU is an ARM one.
func identifyARM(m *result.Machine, fsys fs.FS, info cpuInfo) bool {
	type midr struct{ implementer, part uint64 }
	var ids []midr
	for _, b := range info.cpus {
		impl, ok1 := parseHex(b["cpu implementer"])
		part, ok2 := parseHex(b["cpu part"])
		if ok1 && ok2 {
			ids = append(ids, midr{impl, part})
		}
	}
	if len(ids) == 0 {
		reg, ok := parseHex(readText(fsys, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1"))
		if !ok {
			return false
		}
		ids = append(ids, midr{(reg >> 24) & 0xff, (reg >> 4) & 0xfff})
	}
	first := ids[0]
	m.Implementer = formatHex(first.implementer, 2)
	m.Part = formatHex(first.part, 3)
	m.Vendor = armImplementer(first.implementer)
	if m.Vendor == "" {
		m.Vendor = "implementer " + m.Implementer
	}

	var cores []string
	seen := map[midr]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		core, _ := armCore(id.implementer, id.part)
		if core == "" {
			core = "part " + formatHex(id.part, 3)
		}
		cores = append(cores, core)
	}
	m.Core = strings.Join(cores, " + ")

	_, chip := armCore(first.implementer, first.part)
	described := m.Vendor + " " + m.Core
	switch {
	case m.SystemVendor == "Amazon EC2" && first.implementer == 0x41 && gravitonGeneration(m.Core) != "":
		m.CPUModel = gravitonGeneration(m.Core) + " (" + described + ")"
	case chip != "" && len(cores) == 1:
		m.CPUModel = m.Vendor + " " + chip + " (" + m.Core + ")"
	default:
		m.CPUModel = described
	}
	return true
}

// formatHex prints n as cpuinfo does: "0x" and at least digits lower-case hex digits.
func formatHex(n uint64, digits int) string {
	return fmt.Sprintf("0x%0*x", digits, n)
}
