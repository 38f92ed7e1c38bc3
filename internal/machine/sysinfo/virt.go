package sysinfo

import (
	"io/fs"
	"strings"
)

// inContainer reports whether the process runs in a container: a marker file of
// Docker or Podman, or a container runtime in PID 1's cgroup path.
func inContainer(fsys fs.FS) bool {
	if exists(fsys, ".dockerenv") || exists(fsys, "run/.containerenv") {
		return true
	}
	cgroup := readText(fsys, "proc/1/cgroup")
	for _, marker := range []string{"docker", "kubepods", "containerd", "libpod", "lxc", "crio"} {
		if strings.Contains(cgroup, marker) {
			return true
		}
	}
	return false
}

// virtualization names the hypervisor the machine runs under (see
// Machine.Virtualization). The DMI strings are the most specific hint, then Xen's
// sysfs node, then the paravirtual clock sources, then the cpuinfo "hypervisor"
// flag, which says only that there is one.
func virtualization(fsys fs.FS, info cpuInfo, container bool) string {
	vendor := readText(fsys, "sys/class/dmi/id/sys_vendor")
	product := readText(fsys, "sys/class/dmi/id/product_name")
	if kind := dmiHypervisor(vendor, product); kind != "" {
		return kind
	}
	if readText(fsys, "sys/hypervisor/type") == "xen" {
		return "xen"
	}
	clocks := readText(fsys, "sys/devices/system/clocksource/clocksource0/available_clocksource")
	switch {
	case strings.Contains(clocks, "kvm-clock"):
		return "kvm"
	case strings.Contains(clocks, "xen"):
		return "xen"
	case strings.Contains(clocks, "hyperv"):
		return "hyperv"
	}
	flags := info.flags()
	if flags["hypervisor"] {
		return "vm"
	}
	if container {
		return "container"
	}
	// Bare metal is claimed only on evidence: x86 flags were read and carry no
	// hypervisor bit, or the cloud's DMI names a metal instance.
	if info.first("flags") != "" || strings.HasSuffix(product, ".metal") {
		return "none"
	}
	return ""
}

// dmiHypervisor classifies the DMI system vendor and product name, or returns "".
func dmiHypervisor(vendor, product string) string {
	v, p := strings.ToLower(vendor), strings.ToLower(product)
	switch {
	case v == "" && p == "":
		return ""
	case strings.HasSuffix(p, ".metal"):
		return ""
	case strings.Contains(v, "vmware") || strings.Contains(p, "vmware"):
		return "vmware"
	case strings.Contains(v, "xen") || strings.Contains(p, "hvm domu"):
		return "xen"
	case strings.Contains(v, "microsoft") && strings.Contains(p, "virtual machine"):
		return "hyperv"
	case strings.Contains(v, "innotek") || strings.Contains(p, "virtualbox"):
		return "virtualbox"
	case strings.Contains(v, "qemu") || strings.Contains(p, "kvm") || strings.Contains(p, "qemu"),
		v == "amazon ec2", strings.Contains(v, "google"), strings.Contains(v, "alibaba"),
		strings.Contains(p, "openstack"), strings.Contains(v, "digitalocean"), strings.Contains(v, "red hat"):
		return "kvm"
	}
	return ""
}
