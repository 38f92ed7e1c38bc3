// Package suite runs a benchmark method as one declarative plan: a data set
// loaded once, checksum and query warm-ups, a matrix of cells (workloads ×
// key distributions × thread counts × rounds, per server profile and data set),
// change-over sleeps and between-cell actions, a result file per cell, and a
// manifest that lets an interrupted suite resume where it stopped. A plan
// with clients: is run by N coordinated clients on as many machines, which
// meet in the target database and start every cell together (clients.go,
// sync.go); MergeDirs merges their suite directories cell by cell.
package suite

import (
	"time"

	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload"
)

// Plan is a suite plan as written in YAML. Parse reads and validates one; the
// zero values of optional fields mean their documented defaults.
type Plan struct {
	// Name names the suite in manifests and results (default: the file's base name).
	Name string `yaml:"name"`
	// Description is free text kept in the manifest.
	Description string `yaml:"description"`
	// Target is where the load goes; empty means the embedded SQLite database.
	Target TargetSpec `yaml:"target"`
	// Server, when set, makes the plan own a local server: it is started with
	// each profile in turn, the matrix runs against it, and it is stopped.
	Server *ServerSpec `yaml:"server"`
	// Data is the data set, or a list of data sets run one after another
	// (a TPC-C sweep over warehouses).
	Data DataSets `yaml:"data"`
	// Matrix is what varies from cell to cell.
	Matrix Matrix `yaml:"matrix"`
	// Run holds the per-cell run settings.
	Run RunSpec `yaml:"run"`
	// Steps are the methodology steps around the cells.
	Steps Steps `yaml:"steps"`
	// Clients, when set, makes the plan one run of N coordinated clients on
	// as many machines: every cell starts at the same moment on all of them
	// (see clients.go).
	Clients *ClientsSpec `yaml:"clients"`

	source   source             // where the plan came from, for messages and the manifest
	registry *workload.Registry // the workloads, set by Validate
	sweep    *cpuSweep          // the server_cpus sweep's sets, chosen by Validate (nil: no sweep)
	// impossible are the values this machine cannot run (impossible.go),
	// found by Validate; the plan runs without them.
	impossible []impossible
	// memory is the machine memory server profiles are sized for (Env.MemoryBytes).
	memory int64
}

// TargetSpec is the connection, with the names of the run command's flags
// without their --mysql-/--pgsql- prefix. Secrets come only from the
// environment (password_env).
type TargetSpec struct {
	Driver       string `yaml:"driver"`        // mysql, pgsql or sqlite (default sqlite)
	Host         string `yaml:"host"`          // host name; a comma list spreads connections
	Port         string `yaml:"port"`          // port; a comma list gives one per host
	Socket       string `yaml:"socket"`        // Unix socket instead of host and port
	User         string `yaml:"user"`          // default sbtest
	PasswordEnv  string `yaml:"password_env"`  // environment variable holding the password
	Password     string `yaml:"password"`      // refused: passwords never go in plan files
	DB           string `yaml:"db"`            // default sbtest
	SSL          string `yaml:"ssl"`           // off, on, required, verify-ca, verify-full
	SSLCA        string `yaml:"ssl_ca"`        // CA file for verify-ca/verify-full
	SSLCert      string `yaml:"ssl_cert"`      // client certificate
	SSLKey       string `yaml:"ssl_key"`       // client key
	PSMode       string `yaml:"ps_mode"`       // auto or disable
	IgnoreErrors string `yaml:"ignore_errors"` // error codes to roll back and retry
	SQLiteDB     string `yaml:"sqlite_db"`     // the embedded database's file
	SSLCipher    string `yaml:"ssl_cipher"`    // MySQL: the TLS 1.2 cipher suites allowed (--mysql-ssl-cipher)
	Compression  string `yaml:"compression"`   // MySQL: protocol compression, on or off (--mysql-compression)
	// Isolation is every connection's transaction isolation level
	// (--isolation-level); SessionVars its session variables, NAME=VALUE
	// each (--session-var).
	Isolation   string   `yaml:"isolation"`
	SessionVars []string `yaml:"session_vars"`

	// ServerAgent is run's --server-agent: "[ROLE=]URL,…" of the fairbench
	// agents on the database's machines, which then describe and observe them.
	ServerAgent string `yaml:"server_agent"`
	// ServerAgentTokenEnv is run's --server-agent-token-env: the environment
	// variable holding the agents' token.
	ServerAgentTokenEnv string `yaml:"server_agent_token_env"`
	// ServerAgentService, ServerPods and ServerPodsNamespace are run's
	// --server-agent-service, --server-pods and --server-pods-namespace: in
	// Kubernetes, the agents are found through their headless Service and
	// kept on the nodes of the database pods the label selector names.
	ServerAgentService  string `yaml:"server_agent_service"`
	ServerPods          string `yaml:"server_pods"`
	ServerPodsNamespace string `yaml:"server_pods_namespace"`
	// ServerMachine describes the server's machines without an agent, as
	// run's --server-machine and --server-* flags do (nil: detected for a
	// local server, unknown for a remote one).
	ServerMachine *servermachine.Spec `yaml:"server_machine"`
}

// ServerSpec is a local server the plan starts and stops (fairbench server).
type ServerSpec struct {
	Flavor   string            `yaml:"flavor"`   // mariadb, mysql or postgres
	Dir      string            `yaml:"dir"`      // private directory (default fairbench-data/suite-<flavor>)
	Port     int               `yaml:"port"`     // 0 picks a free port
	Profiles []string          `yaml:"profiles"` // cpu-bound, io-bound, custom; one after another
	Settings map[string]string `yaml:"settings"` // server settings on top of the profile's
	// CPUs pins every thread of the server to a CPU list ("0-21"); empty: unpinned.
	CPUs string `yaml:"cpus"`
	// CPUsShare pins the server to this share of the CPUs this process may
	// use (0.78: 22 of 28), chosen from the machine's topology with SMT and
	// Placement, so that a plan splits any machine alike (seed 001's
	// "22 server + 6 client"). Not with CPUs or matrix.server_cpus.
	CPUsShare float64 `yaml:"cpus_share"`
	// SMT and Placement choose the cpus_share set: all (default) or
	// one-per-core, packed (default) or spread (cpuset.Select).
	SMT       string `yaml:"smt"`
	Placement string `yaml:"placement"`

	cpus cpuset.Set // CPUs or CPUsShare, resolved by validation
	// shareNote says when CPUsShare was lowered to leave client_cpus: rest a
	// CPU (a small machine); the dry run prints it.
	shareNote string
	// impossible are the profiles this machine cannot run (validateProfiles).
	impossible []string
}

// CPUSet is the CPU set the server is pinned to (server.cpus, validated);
// empty when unpinned.
func (s *ServerSpec) CPUSet() cpuset.Set {
	if s == nil {
		return cpuset.Set{}
	}
	return s.cpus
}

// Data is one data set: the sysbench tables, the TPC-C warehouses or
// pgbench's scale factor, and any other workload option by its flag name.
type Data struct {
	Tables     int `yaml:"tables"`
	TableSize  int `yaml:"table_size"`
	Warehouses int `yaml:"warehouses"`
	Scale      int `yaml:"scale"`
	// Options are further workload options by flag name ("secondary": "on").
	Options map[string]string `yaml:"options"`
	// PrepareThreads loads tables in parallel (default: this machine's CPUs).
	PrepareThreads int `yaml:"prepare_threads"`
}

// DataSets is one or more data sets; YAML may give a mapping or a list.
type DataSets []Data

// Matrix is what varies between cells.
type Matrix struct {
	Workloads []string `yaml:"workloads"`
	// RandTypes are the key distributions (default [uniform]).
	RandTypes []string `yaml:"rand_types"`
	// Threads are the thread counts, or auto: 1, 2, 4, … up to
	// ThreadsMaxFactor × TargetCPUs.
	Threads ThreadList `yaml:"threads"`
	// ThreadsMaxFactor bounds threads: auto (default 4).
	ThreadsMaxFactor int `yaml:"threads_max_factor"`
	// TargetCPUs is the server's logical CPUs for threads: auto (default: this
	// machine's, right for a local server).
	TargetCPUs int `yaml:"target_cpus"`
	// Rounds repeats the matrix (default 1).
	Rounds int `yaml:"rounds"`
	// ServerCPUs sweeps the CPUs of the server the plan starts: for each
	// value the server is restarted pinned to a set chosen from the
	// machine's topology (SMT, Placement; cpuset.Select) and the warm-ups run
	// again. A value counts logical CPUs with smt all, cores with
	// one-per-core.
	ServerCPUs []int `yaml:"server_cpus"`
	// SMT is all (default), one-per-core, or both (every value with each).
	SMT string `yaml:"smt"`
	// Placement is packed (default: a socket/NUMA node filled before the
	// next) or spread (alternating).
	Placement string `yaml:"placement"`
}

// ThreadList is a list of thread counts or "auto".
type ThreadList struct {
	Auto   bool
	Counts []int
}

// Percentiles are a plan's run.percentiles: a list ([50, 95, 99.9]) or one
// string as the run command's --percentile takes it ("50,95,99.9"), read by
// the same parser (runner.ParsePercentiles), in increasing order.
type Percentiles []float64

// RunSpec holds the settings of every cell, with the run command's meanings.
type RunSpec struct {
	Time           Seconds     `yaml:"time"`            // measured seconds per cell (required)
	WarmupTime     Seconds     `yaml:"warmup_time"`     // --warmup-time per cell
	ReportInterval Seconds     `yaml:"report_interval"` // interval series resolution (default 1s)
	Percentiles    Percentiles `yaml:"percentiles"`     // default 50, 90, 95, 99, 99.9
	RandSeed       uint64      `yaml:"rand_seed"`       // 0 takes one from the clock per cell
	RandZipfianExp float64     `yaml:"rand_zipfian_exp"`
	Rate           float64     `yaml:"rate"` // events/s over all threads; 0 = closed loop
	// ConnectRate opens a cell's connections at most this many per second
	// (run --connect-rate); 0: as fast as 16 at a time allow.
	ConnectRate float64 `yaml:"connect_rate"`
	// ConnectPerEvent opens a new connection for every event of a cell
	// (run --connect-per-event, pgbench's -C): a pooler's or a server's
	// connection cost measured.
	ConnectPerEvent bool `yaml:"connect_per_event"`
	// Jobs shares this many OS threads among a cell's connections (run
	// --jobs, pgbench's -j); 0: an OS thread per connection.
	Jobs int `yaml:"jobs"`
	// ReconnectTimeout fails a cell whose lost connections cannot be re-opened
	// within it (default 30s): a server that died fails the cell.
	ReconnectTimeout Seconds `yaml:"reconnect_timeout"`
	// ForcedShutdown is run --forced-shutdown for every cell (seconds, a
	// share of time such as 5%, or off): the events in flight when a cell's
	// time ends finish and count, and a cell still running them after it
	// fails, forced. Empty (the key left out): they are abandoned.
	ForcedShutdown string `yaml:"forced_shutdown"`
	// ClientCPUs pins every thread of fairbench to a CPU list, or to rest:
	// the usable CPUs the plan's server.cpus does not take (run
	// --client-cpus, which overrides it); empty: unpinned.
	ClientCPUs string `yaml:"client_cpus"`
	// AllowCPUOverlap lets client_cpus share CPUs with the server (run
	// --allow-cpu-overlap).
	AllowCPUOverlap bool `yaml:"allow_cpu_overlap"`

	clientCPUs clientcpus.Spec // ClientCPUs, parsed by validation
	drain      runner.Drain    // ForcedShutdown, parsed by validation
	// clientResolved is the client's CPU list ClientCPUs gives on this
	// machine ("rest" resolved), when validation could tell (a plan that
	// starts its own server); empty otherwise.
	clientResolved cpuset.Set
}

// ClientCPUs is the client's CPUs as the plan asks them (run.client_cpus,
// validated); the zero Spec for an unpinned client.
func (p *Plan) ClientCPUs() clientcpus.Spec { return p.Run.clientCPUs }

// Steps are the methodology around the cells.
type Steps struct {
	// Prepare is reuse (default: load unless matching data is there), replace
	// (always load afresh) or skip (the data must be there).
	Prepare string `yaml:"prepare"`
	// ChecksumWarmup reads every table once so the buffer pool holds it.
	ChecksumWarmup bool `yaml:"checksum_warmup"`
	// QueryWarmup runs a workload before the first cell, unmeasured.
	QueryWarmup *QueryWarmup `yaml:"query_warmup"`
	// ChangeoverSleep is slept between test cases (or cells; see Changeover)
	// so that flushing settles.
	ChangeoverSleep Seconds `yaml:"changeover_sleep"`
	// Changeover is test_case (default: sleep when the workload changes) or cell.
	Changeover string `yaml:"changeover"`
	// BetweenCells are actions run before every cell but the first.
	BetweenCells []Action `yaml:"between_cells"`
	// Cleanup drops the data at the end.
	Cleanup bool `yaml:"cleanup"`
	// OnFailure is continue (default) or stop when a cell fails.
	OnFailure string `yaml:"on_failure"`
}

// QueryWarmup is an unmeasured run before the cells.
type QueryWarmup struct {
	Workload string  `yaml:"workload"`
	Threads  int     `yaml:"threads"`
	Time     Seconds `yaml:"time"`
}

// Action is one between-cell action; exactly one field is set.
type Action struct {
	PurgeBinaryLogs bool   `yaml:"purge_binary_logs"` // MySQL family: PURGE BINARY LOGS BEFORE NOW()
	DropCaches      bool   `yaml:"drop_caches"`       // sync and drop the OS page cache (root only; skipped otherwise)
	SQL             string `yaml:"sql"`               // any statement
}

// ClientsSpec names the coordinated clients that run one plan together.
type ClientsSpec struct {
	// Count is the number of clients running this same plan, each with its own
	// --client-id from 0 to Count-1.
	Count int `yaml:"count"`
	// Wait bounds how long a client waits for the others at each meeting point
	// (default 10m).
	Wait Seconds `yaml:"wait"`
}

// Seconds is a duration written as seconds (300) or a Go duration ("5m").
type Seconds time.Duration

// D returns the duration.
func (s Seconds) D() time.Duration { return time.Duration(s) }

// Step values.
const (
	PrepareReuse   = "reuse"
	PrepareReplace = "replace"
	PrepareSkip    = "skip"

	ChangeoverTestCase = "test_case"
	ChangeoverCell     = "cell"

	OnFailureContinue = "continue"
	OnFailureStop     = "stop"
)

// source is the plan file as read.
type source struct {
	file  string         // path as given
	text  []byte         // the file's bytes
	hash  string         // hex SHA-256 of text
	lines map[string]int // YAML path ("matrix.threads") → line
}

// File returns the path the plan was read from.
func (p *Plan) File() string { return p.source.file }

// Hash returns the hex SHA-256 of the plan file.
func (p *Plan) Hash() string { return p.source.hash }

// Text returns the plan file's contents.
func (p *Plan) Text() []byte { return p.source.text }
