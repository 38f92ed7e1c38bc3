package result

import (
	"maps"
	"slices"
	"strings"
)

// The descriptions of the machines and the database server a result came from
// (package sysinfo and the machine observers fill them in).

// Machine describes the client machine (the one running fairbench). Every field is
// best effort: a value that could not be read stays at its zero value.
type Machine struct {
	Arch     string `json:"arch"`      // GOARCH-style: amd64, arm64
	CPUModel string `json:"cpu_model"` // "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", "ARM Neoverse-N1"
	// Vendor is the CPU vendor: Intel, AMD, Hygon… on x86; the implementer's name
	// (ARM, HiSilicon, Ampere, Apple…) on arm64.
	Vendor string `json:"vendor,omitempty"`
	// Implementer and Part are the arm64 MIDR codes as /proc/cpuinfo prints them
	// ("0x41", "0xd0c"); Core is the core they name ("Neoverse-N1"). When the CPUs
	// are not all alike, Core lists the distinct cores joined by " + ".
	Implementer string `json:"implementer,omitempty"`
	Part        string `json:"part,omitempty"`
	Core        string `json:"core,omitempty"`
	// SystemVendor and Product are the DMI system vendor and product name: on a
	// cloud instance the provider and often the instance type ("Amazon EC2",
	// "m6g.large"), on a server its maker and model.
	SystemVendor string `json:"system_vendor,omitempty"`
	Product      string `json:"product,omitempty"`

	LogicalCPUs    int `json:"logical_cpus"`               // hardware threads the kernel sees
	Cores          int `json:"cores,omitempty"`            // physical cores over all sockets
	Sockets        int `json:"sockets,omitempty"`          // physical packages
	ThreadsPerCore int `json:"threads_per_core,omitempty"` // LogicalCPUs / Cores

	MHz      float64 `json:"mhz,omitempty"`      // average "cpu MHz" of /proc/cpuinfo at collection time
	MaxMHz   float64 `json:"max_mhz,omitempty"`  // cpufreq cpuinfo_max_freq (highest over CPUs)
	MinMHz   float64 `json:"min_mhz,omitempty"`  // cpufreq cpuinfo_min_freq (lowest over CPUs)
	CurMHz   float64 `json:"cur_mhz,omitempty"`  // cpufreq scaling_cur_freq, averaged over CPUs
	BogoMIPS float64 `json:"bogomips,omitempty"` // of the first CPU
	// GivenGHz is the CPU frequency a user gave for the machine (`fairbench
	// import --machine-ghz`); when set it is the machine's frequency for
	// compare, cost and report, before the model name's and cpufreq's. 0 when
	// none was given (schema 1.3).
	GivenGHz float64 `json:"given_ghz,omitempty"`
	// Source says where the fingerprint came from when fairbench did not read
	// it from the machine it ran on: SourceImport when a user gave it to
	// `fairbench import` with flags; empty otherwise (schema 1.3).
	Source string `json:"source,omitempty"`
	// Features lists the notable CPU features present, in a fixed order, out of
	// sse4_2, popcnt, avx, avx2, avx512f, aes, sha_ni (x86) and asimd, lse, crc32,
	// aes, sha2, sve, sve2 (arm64).
	Features []string `json:"features,omitempty"`

	MemoryBytes int64  `json:"memory_bytes,omitempty"` // MemTotal of /proc/meminfo
	Kernel      string `json:"kernel,omitempty"`       // kernel release ("6.1.0-18-amd64")
	OS          string `json:"os,omitempty"`           // PRETTY_NAME of /etc/os-release
	Hostname    string `json:"hostname,omitempty"`
	// Virtualization says what the machine runs under: "kvm", "xen", "vmware",
	// "hyperv", "virtualbox", "vm" (a hypervisor of unknown kind), "container"
	// (a container on no detected hypervisor), "none" (bare metal) or "" (unknown).
	Virtualization string `json:"virtualization,omitempty"`
	// Container is true when fairbench itself runs inside a container.
	Container bool   `json:"container,omitempty"`
	GoVersion string `json:"go_version,omitempty"` // runtime.Version() of the fairbench binary

	// CPUList is the list of CPUs the process this fingerprint is about may
	// use, in the kernel's list form ("0-21", "0,2,4-7"): the database
	// server's affinity (Cpus_allowed_list, narrowed by its cgroup's
	// cpuset.cpus.effective) in a server machine; empty when unknown or when
	// it is every online CPU of the machine (schema 1.4).
	CPUList string `json:"cpu_list,omitempty"`
	// InstanceType, Region and Zone place the machine in a cloud: from
	// Kubernetes node labels, cloud instance metadata or the user (schema
	// 1.4); empty when unknown.
	InstanceType string `json:"instance_type,omitempty"`
	Region       string `json:"region,omitempty"`
	Zone         string `json:"zone,omitempty"`
	// Node is the Kubernetes node the machine is, when an agent runs there
	// as a DaemonSet (from the downward API's spec.nodeName; schema 1.4).
	Node string `json:"node,omitempty"`
}

// SourceImport is Machine.Source for a machine a user described to `fairbench
// import` (--arch, --cpu-model, --machine-vcpus, --machine-ghz, --memory-gib).
const SourceImport = "import"

// The values of ServerMachine.Source (schema 1.4): where the description of
// a database server's machine came from.
const (
	// ServerSourceLocal: the server runs on the machine fairbench ran on
	// (Unix socket, loopback address, a managed server); fairbench read it.
	ServerSourceLocal = "local"
	// ServerSourceAgent: `fairbench agent` on the database host served it.
	ServerSourceAgent = "agent"
	// ServerSourceFile: the user gave `fairbench sysinfo --format json`
	// output of the database host (--server-machine [ROLE=]FILE).
	ServerSourceFile = "file"
	// ServerSourceFlags: the user described it with --server-arch,
	// --server-cpu-model, --server-vcpus, --server-ghz, --server-memory.
	ServerSourceFlags = "flags"
	// ServerSourceKubernetes: an agent found through Kubernetes, with the
	// node's labels (instance type, arch, region, zone).
	ServerSourceKubernetes = "kubernetes"
)

// RoleServer is ServerMachine.Role for the one machine of a single server.
const RoleServer = "server"

// ServerMachine is one machine a database server ran on (schema 1.4): the
// fingerprint (the same fields as Machine, inline), the part of the database
// it ran and where the description came from.
type ServerMachine struct {
	Machine
	// Role is RoleServer for a single server; for a cluster the part the
	// machine ran ("tidb", "tikv", "pd").
	Role string `json:"role"`
	// Source is one of the ServerSource* values.
	Source string `json:"source"`
	// Agent is the agent's URL (without credentials) when Source is
	// ServerSourceAgent or ServerSourceKubernetes; File the file's path with
	// ServerSourceFile.
	Agent string `json:"agent,omitempty"`
	File  string `json:"file,omitempty"`
	// PID and Process name the database server's process when known (a
	// managed server, the process holding the socket or port, or an agent's
	// --pid / --process).
	PID     int    `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
	// Note says what could not be read or found, when something could not.
	Note string `json:"note,omitempty"`
}

// Server describes the database server.
type Server struct {
	Flavor  string `json:"flavor"`  // MariaDB, MySQL, Percona, TiDB, PostgreSQL, CockroachDB, YugabyteDB, SQLite
	Version string `json:"version"` // as the server reports it: "10.11.6-MariaDB-0+deb12u1", "15.5 (Debian 15.5-0+deb12u1)"
	// VersionComment is MySQL's @@version_comment or PostgreSQL's full version().
	VersionComment string `json:"version_comment,omitempty"`
	// Variables holds the key settings that shape performance, by the server's own
	// names. PostgreSQL values are as SHOW prints them ("128MB"); memory settings
	// also get a "<name>_bytes" entry with the size in bytes.
	Variables map[string]string `json:"variables,omitempty"`
	// Note says what could not be read, when something could not.
	Note string `json:"note,omitempty"`
}

// TLS is what a connection to the server really used (schema 1.3), as the
// server reports it for the session: whether it was encrypted and, when it
// was, the protocol version and cipher.
type TLS struct {
	Used    bool   `json:"used"`
	Version string `json:"version,omitempty"` // "TLSv1.3"
	Cipher  string `json:"cipher,omitempty"`  // "TLS_AES_256_GCM_SHA384"
	// Note says why the server could not tell (Used is then false but unknown).
	Note string `json:"note,omitempty"`
}

// Session is what the server reports of a connection's session after the
// set-up every connection gets (schema 1.5): the transaction isolation level
// in the server's own words, and the value of each session variable set
// (--isolation-level, --session-var), read back from the session.
type Session struct {
	// Isolation is the session's isolation level as the server names it
	// ("READ-COMMITTED" on MySQL, "read committed" on PostgreSQL).
	Isolation string `json:"isolation,omitempty"`
	// Variables are the session variables set, by name, with the value the
	// server reports (which may be normalised: "ON" for 1, a full sql_mode).
	Variables map[string]string `json:"variables,omitempty"`
	// Notes say what could not be read back, and why.
	Notes []string `json:"notes,omitempty"`
}

// String is the session for a run's header: "isolation READ-COMMITTED;
// sql_mode=…".
func (s *Session) String() string {
	if s == nil {
		return ""
	}
	var parts []string
	if s.Isolation != "" {
		parts = append(parts, "isolation "+s.Isolation)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Variables)) {
		parts = append(parts, name+"="+s.Variables[name])
	}
	return strings.Join(parts, "; ")
}
