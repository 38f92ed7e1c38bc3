package result

import (
	"github.com/fairbench/fairbench/internal/db/driver"
)

// SuiteCell says which suite and cell a run belongs to.
type SuiteCell struct {
	// Plan is the plan's name; PlanHash the SHA-256 of the plan file as run.
	Plan     string `json:"plan"`
	PlanHash string `json:"plan_hash"`
	// Cell is the cell's identifier in the manifest ("oltp_read_write/uniform/t16/r1").
	Cell string `json:"cell"`
	// Index is the cell's position in the expanded matrix, from 1.
	Index int `json:"index"`
	// Round is the repetition, from 1.
	Round int `json:"round"`
	// Profile names the server profile the cell ran under, when the plan owns the server.
	Profile string `json:"profile,omitempty"`
	// ServerCPUs is the CPU set the managed server was restarted on for this
	// cell, when the plan sweeps server_cpus (schema 1.5); nil otherwise.
	ServerCPUs *ServerCPUs `json:"server_cpus,omitempty"`
}

// ServerCPUs is one value of a plan's server_cpus sweep and the CPU set
// chosen for it from the machine's topology (cpuset.Select).
type ServerCPUs struct {
	// Count is the sweep's value: logical CPUs with smt "all", cores with
	// smt "one-per-core".
	Count int `json:"count"`
	// SMT is "all" (siblings taken together) or "one-per-core" (one thread
	// of each core, its siblings left idle).
	SMT string `json:"smt"`
	// Placement is "packed" or "spread" over sockets and NUMA nodes.
	Placement string `json:"placement"`
	// CPUList is the chosen set in the kernel's list syntax ("0-3,8").
	CPUList string `json:"cpu_list"`
	// CPUs is the number of logical CPUs in the set; Cores the number of
	// physical cores it touches.
	CPUs  int `json:"cpus"`
	Cores int `json:"cores"`
}

// ManagedServer is a database server that fairbench started with a generated
// configuration (fairbench server start, or a plan that owns its server).
type ManagedServer struct {
	Flavor  string `json:"flavor"`  // mariadb, mysql or postgres
	Profile string `json:"profile"` // cpu-bound, io-bound or custom
	// DataBytes is the data set size the profile was sized for.
	DataBytes int64 `json:"data_bytes,omitempty"`
	// Settings are the generated settings by the server's own names.
	Settings map[string]string `json:"settings"`
	// Config is the configuration file as written (my.cnf or postgresql.conf lines).
	Config string `json:"config"`
	// CPUList is the CPUs fairbench pinned every thread of the server to, in
	// the kernel's list syntax ("0-3,8"); empty when it was not pinned.
	CPUList string `json:"cpu_list,omitempty"`
}

// TargetOf describes where a driver configuration sends its load, without
// credentials, with tls, what the server said of a connection's encryption
// (sysinfo.DetectTLS; nil for SQLite).
func TargetOf(cfg driver.Config, tls *TLS) Target {
	psMode := "disable"
	if cfg.Prepared {
		psMode = "prepared"
	}
	t := Target{
		Driver: cfg.Kind, Hosts: cfg.Hosts, Ports: cfg.Ports, Socket: cfg.Socket,
		Database: cfg.Database, Path: cfg.Path, SSL: string(cfg.SSL), TLS: tls, PSMode: psMode,
		SSLCipher: cfg.SSLCipher, Compression: cfg.Compression, DryRun: cfg.DryRun,
	}
	if cfg.Kind != driver.KindSQLite {
		t.Transport = t.TransportOf()
	}
	return t
}
