package sysinfo

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fairbench/fairbench/internal/record/result"
)

// fixture builds a fake root file system for CollectMachine.
type fixture fstest.MapFS

func (f fixture) file(path, content string) fixture {
	f[path] = &fstest.MapFile{Data: []byte(content)}
	return f
}

// topology adds sysfs topology for CPUs whose package and core ids are given.
func (f fixture) topology(pkgs, cores []int) fixture {
	for i := range pkgs {
		dir := fmt.Sprintf("sys/devices/system/cpu/cpu%d/topology/", i)
		f.file(dir+"physical_package_id", fmt.Sprintf("%d\n", pkgs[i]))
		f.file(dir+"core_id", fmt.Sprintf("%d\n", cores[i]))
	}
	return f
}

// cpufreq adds cpufreq files (kHz) for CPUs 0..len(cur)-1.
func (f fixture) cpufreq(maxKHz, minKHz int, curKHz ...int) fixture {
	for i, cur := range curKHz {
		dir := fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq/", i)
		f.file(dir+"cpuinfo_max_freq", fmt.Sprintf("%d\n", maxKHz))
		f.file(dir+"cpuinfo_min_freq", fmt.Sprintf("%d\n", minKHz))
		f.file(dir+"scaling_cur_freq", fmt.Sprintf("%d\n", cur))
	}
	return f
}

// os adds the kernel, distribution, host name and memory files.
func (f fixture) os(memKB int) fixture {
	return f.file("proc/meminfo", fmt.Sprintf("MemTotal:       %d kB\nMemFree:  1000 kB\n", memKB)).
		file("proc/sys/kernel/osrelease", "6.1.0-18-arm64\n").
		file("etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n").
		file("proc/sys/kernel/hostname", "bench1\n")
}

const x86Flags = "fpu vme de pse tsc msr pae mce cx8 apic sep ht syscall nx lm constant_tsc pni pclmulqdq " +
	"ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm " +
	"bmi1 avx2 smep bmi2 erms avx512f avx512dq rdseed adx smap sha_ni avx512bw avx512vl"

// x86Block is one processor paragraph of an x86 /proc/cpuinfo.
func x86Block(n, physical, core, cpuCores, siblings int, mhz, flags string) string {
	return fmt.Sprintf(`processor	: %d
vendor_id	: GenuineIntel
cpu family	: 6
model		: 167
model name	: Intel(R) Xeon(R)   Processor
stepping	: 1
cpu MHz		: %s
physical id	: %d
siblings	: %d
core id		: %d
cpu cores	: %d
flags		: %s
bogomips	: 5200.00

`, n, mhz, physical, siblings, core, cpuCores, flags)
}

// armBlock is one processor paragraph of an arm64 /proc/cpuinfo (which has no
// model name and no MHz).
func armBlock(n int, implementer, part, features string) string {
	return fmt.Sprintf(`processor	: %d
BogoMIPS	: 50.00
Features	: %s
CPU implementer	: %s
CPU architecture: 8
CPU variant	: 0x3
CPU part	: %s
CPU revision	: 1

`, n, features, implementer, part)
}

func armCPUInfo(cpus int, implementer, part, features string) string {
	var b strings.Builder
	for i := 0; i < cpus; i++ {
		b.WriteString(armBlock(i, implementer, part, features))
	}
	return b.String()
}

const n1Features = "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs"

func TestCollectMachine(t *testing.T) {
	goVersion := runtime.Version()
	tests := []struct {
		name   string
		goarch string
		fsys   fixture
		want   result.Machine
	}{
		{
			name:   "x86 KVM guest in a container, like the build machine",
			goarch: "amd64",
			fsys: fixture{}.
				file("proc/cpuinfo", x86Block(0, 0, 0, 2, 2, "2600.000", x86Flags)+x86Block(1, 0, 1, 2, 2, "2600.000", x86Flags)).
				topology([]int{0, 0}, []int{0, 1}).
				file("sys/devices/system/cpu/online", "0-1\n").
				file("sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc kvm-clock \n").
				file(".dockerenv", "").
				os(24684084),
			want: result.Machine{
				Arch: "amd64", CPUModel: "Intel(R) Xeon(R) Processor", Vendor: "Intel",
				LogicalCPUs: 2, Cores: 2, Sockets: 1, ThreadsPerCore: 1,
				MHz: 2600, BogoMIPS: 5200,
				Features:    []string{"sse4_2", "popcnt", "avx", "avx2", "avx512f", "aes", "sha_ni"},
				MemoryBytes: 24684084 * 1024, Kernel: "6.1.0-18-arm64", OS: "Debian GNU/Linux 12 (bookworm)",
				Hostname: "bench1", Virtualization: "kvm", Container: true, GoVersion: goVersion,
			},
		},
		{
			name:   "x86 two sockets with hyper-threading, cpuinfo only, bare metal",
			goarch: "amd64",
			fsys: fixture{}.file("proc/cpuinfo",
				x86Block(0, 0, 0, 2, 4, "2000.000", "sse4_2 avx")+x86Block(1, 0, 1, 2, 4, "3000.000", "sse4_2 avx")+
					x86Block(2, 1, 0, 2, 4, "2000.000", "sse4_2 avx")+x86Block(3, 1, 1, 2, 4, "3000.000", "sse4_2 avx")+
					x86Block(4, 0, 0, 2, 4, "2000.000", "sse4_2 avx")+x86Block(5, 0, 1, 2, 4, "3000.000", "sse4_2 avx")+
					x86Block(6, 1, 0, 2, 4, "2000.000", "sse4_2 avx")+x86Block(7, 1, 1, 2, 4, "3000.000", "sse4_2 avx")),
			want: result.Machine{
				Arch: "amd64", CPUModel: "Intel(R) Xeon(R) Processor", Vendor: "Intel",
				LogicalCPUs: 8, Cores: 4, Sockets: 2, ThreadsPerCore: 2, MHz: 2500, BogoMIPS: 5200,
				Features: []string{"sse4_2", "avx"}, Virtualization: "none", GoVersion: goVersion,
			},
		},
		{
			name:   "arm64 Neoverse-N1 without model name or MHz, cpufreq present",
			goarch: "arm64",
			fsys: fixture{}.
				file("proc/cpuinfo", armCPUInfo(4, "0x41", "0xd0c", n1Features)).
				topology([]int{0, 0, 0, 0}, []int{0, 1, 2, 3}).
				cpufreq(3000000, 1000000, 2800000, 3000000, 1000000, 1000000).
				os(131072000),
			want: result.Machine{
				Arch: "arm64", CPUModel: "ARM Neoverse-N1", Vendor: "ARM",
				Implementer: "0x41", Part: "0xd0c", Core: "Neoverse-N1",
				LogicalCPUs: 4, Cores: 4, Sockets: 1, ThreadsPerCore: 1,
				MaxMHz: 3000, MinMHz: 1000, CurMHz: 1950, BogoMIPS: 50,
				Features:    []string{"asimd", "lse", "crc32", "aes", "sha2"},
				MemoryBytes: 131072000 * 1024, Kernel: "6.1.0-18-arm64", OS: "Debian GNU/Linux 12 (bookworm)",
				Hostname: "bench1", GoVersion: goVersion,
			},
		},
		{
			name:   "Kunpeng 920, two sockets",
			goarch: "arm64",
			fsys: fixture{}.
				file("proc/cpuinfo", armCPUInfo(4, "0x48", "0xd01", "fp asimd atomics crc32 sha2")).
				topology([]int{0, 0, 1, 1}, []int{0, 1, 0, 1}).
				cpufreq(2600000, 200000, 2600000, 2600000, 2600000, 2600000).
				file("sys/class/dmi/id/sys_vendor", "Huawei\n").
				file("sys/class/dmi/id/product_name", "TaiShan 200 (Model 2280)\n"),
			want: result.Machine{
				Arch: "arm64", CPUModel: "HiSilicon Kunpeng 920 (TSV110)", Vendor: "HiSilicon",
				Implementer: "0x48", Part: "0xd01", Core: "TSV110",
				SystemVendor: "Huawei", Product: "TaiShan 200 (Model 2280)",
				LogicalCPUs: 4, Cores: 4, Sockets: 2, ThreadsPerCore: 1,
				MaxMHz: 2600, MinMHz: 200, CurMHz: 2600, BogoMIPS: 50,
				Features: []string{"asimd", "lse", "crc32", "sha2"}, GoVersion: goVersion,
			},
		},
		{
			name:   "AmpereOne",
			goarch: "arm64",
			fsys: fixture{}.
				file("proc/cpuinfo", armCPUInfo(2, "0xc0", "0xac3", "fp asimd atomics")).
				topology([]int{0, 0}, []int{0, 1}).
				cpufreq(3000000, 1000000, 3000000, 3000000),
			want: result.Machine{
				Arch: "arm64", CPUModel: "Ampere AmpereOne", Vendor: "Ampere",
				Implementer: "0xc0", Part: "0xac3", Core: "AmpereOne",
				LogicalCPUs: 2, Cores: 2, Sockets: 1, ThreadsPerCore: 1,
				MaxMHz: 3000, MinMHz: 1000, CurMHz: 3000, BogoMIPS: 50,
				Features: []string{"asimd", "lse"}, GoVersion: goVersion,
			},
		},
		{
			name:   "Graviton2 named from the EC2 DMI product",
			goarch: "arm64",
			fsys: fixture{}.
				file("proc/cpuinfo", armCPUInfo(2, "0x41", "0xd0c", n1Features)).
				file("sys/class/dmi/id/sys_vendor", "Amazon EC2\n").
				file("sys/class/dmi/id/product_name", "m6g.large\n"),
			want: result.Machine{
				Arch: "arm64", CPUModel: "AWS Graviton2 (ARM Neoverse-N1)", Vendor: "ARM",
				Implementer: "0x41", Part: "0xd0c", Core: "Neoverse-N1",
				SystemVendor: "Amazon EC2", Product: "m6g.large",
				LogicalCPUs: 2, BogoMIPS: 50,
				Features: []string{"asimd", "lse", "crc32", "aes", "sha2"}, Virtualization: "kvm", GoVersion: goVersion,
			},
		},
		{
			name:   "big.LITTLE lists both cores",
			goarch: "arm64",
			fsys: fixture{}.file("proc/cpuinfo",
				armBlock(0, "0x41", "0xd05", "asimd")+armBlock(1, "0x41", "0xd05", "asimd")+armBlock(2, "0x41", "0xd0b", "asimd")),
			want: result.Machine{
				Arch: "arm64", CPUModel: "ARM Cortex-A55 + Cortex-A76", Vendor: "ARM",
				Implementer: "0x41", Part: "0xd05", Core: "Cortex-A55 + Cortex-A76",
				LogicalCPUs: 3, BogoMIPS: 50, Features: []string{"asimd"}, GoVersion: goVersion,
			},
		},
		{
			name:   "MIDR from sysfs when cpuinfo hides the codes",
			goarch: "arm64",
			fsys: fixture{}.
				file("proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n").
				file("sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000410fd4f0\n"),
			want: result.Machine{
				Arch: "arm64", CPUModel: "ARM Neoverse-V2", Vendor: "ARM",
				Implementer: "0x41", Part: "0xd4f", Core: "Neoverse-V2",
				LogicalCPUs: 2, BogoMIPS: 50, GoVersion: goVersion,
			},
		},
		{
			name:   "unknown ARM part",
			goarch: "arm64",
			fsys:   fixture{}.file("proc/cpuinfo", armCPUInfo(1, "0x41", "0xfff", "")),
			want: result.Machine{
				Arch: "arm64", CPUModel: "ARM part 0xfff", Vendor: "ARM",
				Implementer: "0x41", Part: "0xfff", Core: "part 0xfff",
				LogicalCPUs: 1, BogoMIPS: 50, GoVersion: goVersion,
			},
		},
		{
			name:   "nothing readable",
			goarch: "riscv64",
			fsys:   fixture{},
			want:   result.Machine{Arch: "riscv64", GoVersion: goVersion},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collectMachine(fstest.MapFS(tt.fsys), tt.goarch)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("collectMachine:\n got  %+v\n want %+v", got, tt.want)
			}
		})
	}
}

func TestARMTableCoversKnownCores(t *testing.T) {
	tests := []struct {
		implementer, part uint64
		vendor, core      string
	}{
		{0x41, 0xd03, "ARM", "Cortex-A53"},
		{0x41, 0xd07, "ARM", "Cortex-A57"},
		{0x41, 0xd08, "ARM", "Cortex-A72"},
		{0x41, 0xd09, "ARM", "Cortex-A73"},
		{0x41, 0xd0a, "ARM", "Cortex-A75"},
		{0x41, 0xd0b, "ARM", "Cortex-A76"},
		{0x41, 0xd0d, "ARM", "Cortex-A77"},
		{0x41, 0xd41, "ARM", "Cortex-A78"},
		{0x41, 0xd0c, "ARM", "Neoverse-N1"},
		{0x41, 0xd40, "ARM", "Neoverse-V1"},
		{0x41, 0xd49, "ARM", "Neoverse-N2"},
		{0x41, 0xd4f, "ARM", "Neoverse-V2"},
		{0x41, 0xd4a, "ARM", "Neoverse-E1"},
		{0x48, 0xd01, "HiSilicon", "TSV110"},
		{0xc0, 0xac3, "Ampere", "AmpereOne"},
		{0x50, 0x000, "APM", "X-Gene"},
		{0x43, 0x0af, "Cavium", "ThunderX2"},
		{0x61, 0x023, "Apple", "M1 Firestorm"},
		{0x46, 0x001, "Fujitsu", "A64FX"},
		{0x51, 0xc00, "Qualcomm", "Falkor"},
	}
	for _, tt := range tests {
		t.Run(tt.core, func(t *testing.T) {
			if got := armImplementer(tt.implementer); got != tt.vendor {
				t.Errorf("armImplementer(%#x) = %q, want %q", tt.implementer, got, tt.vendor)
			}
			if got, _ := armCore(tt.implementer, tt.part); got != tt.core {
				t.Errorf("armCore(%#x, %#x) = %q, want %q", tt.implementer, tt.part, got, tt.core)
			}
		})
	}
}

func TestCountList(t *testing.T) {
	tests := map[string]int{"0-1": 2, "0": 1, "0-3,8-11": 8, "0,2,4": 3, "": 0, "x": 0}
	for list, want := range tests {
		if got := countList(list); got != want {
			t.Errorf("countList(%q) = %d, want %d", list, got, want)
		}
	}
}

func TestDMIHypervisor(t *testing.T) {
	tests := []struct{ vendor, product, want string }{
		{"QEMU", "Standard PC (Q35 + ICH9, 2009)", "kvm"},
		{"Amazon EC2", "m6g.large", "kvm"},
		{"Amazon EC2", "m6g.metal", ""},
		{"Xen", "HVM domU", "xen"},
		{"VMware, Inc.", "VMware Virtual Platform", "vmware"},
		{"Microsoft Corporation", "Virtual Machine", "hyperv"},
		{"innotek GmbH", "VirtualBox", "virtualbox"},
		{"Dell Inc.", "PowerEdge R750", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := dmiHypervisor(tt.vendor, tt.product); got != tt.want {
			t.Errorf("dmiHypervisor(%q, %q) = %q, want %q", tt.vendor, tt.product, got, tt.want)
		}
	}
}

func TestMetalInstanceIsBareMetal(t *testing.T) {
	fsys := fixture{}.
		file("proc/cpuinfo", armCPUInfo(1, "0x41", "0xd0c", "")).
		file("sys/class/dmi/id/sys_vendor", "Amazon EC2").
		file("sys/class/dmi/id/product_name", "m6g.metal")
	if got := collectMachine(fstest.MapFS(fsys), "arm64").Virtualization; got != "none" {
		t.Errorf("Virtualization = %q, want none", got)
	}
}

func TestLocalMachine(t *testing.T) {
	m := LocalMachine()
	if m.Arch != runtime.GOARCH {
		t.Errorf("Arch = %q, want %q", m.Arch, runtime.GOARCH)
	}
	if m.LogicalCPUs < 1 {
		t.Errorf("LogicalCPUs = %d, want at least 1", m.LogicalCPUs)
	}
	if m.GoVersion != runtime.Version() {
		t.Errorf("GoVersion = %q, want %q", m.GoVersion, runtime.Version())
	}
	if runtime.GOOS == "linux" && (m.Kernel == "" || m.MemoryBytes <= 0) {
		t.Errorf("on Linux Kernel and MemoryBytes must be read: %+v", m)
	}
	t.Logf("%+v", m)
}

func TestMemTotal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemFree: 1 kB\nMemTotal:       24684092 kB\n", 24684092 * 1024},
		{"nothing", 0},
		{"MemTotal:\n", 0},
	} {
		if got := MemTotal(tc.in); got != tc.want {
			t.Errorf("MemTotal(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
