package result

// The values of Observed.Bound.
const (
	BoundCPU     = "cpu"     // the machine's CPUs were the limit
	BoundIO      = "io"      // the storage was the limit (iowait, or a server reading from disk)
	BoundCommit  = "commit"  // the server waited on a log flush at (nearly) every commit (schema 1.6)
	BoundNeither = "neither" // neither: the client, the network or locking may limit
	BoundUnknown = "unknown" // too little could be read to say
)

// OtherProcessesLimitPct is the share of an observed machine's CPUs (per
// cent of all of them) that processes other than the client and the
// database server may use during a measured phase for the machine to count
// as quiet (schema 1.6). Above it the run warns that its figures may be
// low, and compare and report mark the cells measured so.
const OtherProcessesLimitPct = 10

// Observed is what the server, the machine and the client did during a measured
// phase, and a verdict on what limited the run. Every part is best effort: what
// could not be read is absent and Note says why.
//
// The machine figures are those of the machine fairbench ran on; they describe the
// server's machine too only when the server runs on the same machine.
type Observed struct {
	// Seconds is the length of the observed phase (wall clock).
	Seconds float64 `json:"seconds"`
	// Bound is BoundCPU, BoundIO, BoundNeither or BoundUnknown.
	Bound string `json:"bound"`
	// Verdict says in one line what limited the run and on which figures that rests:
	// "CPU-bound: machine CPUs 96% busy, iowait 1%; client used 18% of the machine".
	Verdict string `json:"verdict"`
	// Server holds the server's counter deltas; absent for SQLite and when the
	// server could not be read.
	Server *ObservedServer `json:"server,omitempty"`
	// Machine is the CPU use of the client machine; absent where /proc/stat cannot be read.
	Machine *ObservedMachine `json:"machine,omitempty"`
	// Client is fairbench's own CPU use (for SQLite that includes the database engine).
	Client *ObservedClient `json:"client,omitempty"`
	// ServerMachines is what each machine of Result.ServerMachines did during
	// the phase (schema 1.4), in the same order, from its agent or, for a
	// local server, from this machine; absent when no server machine was
	// observed (a remote server without an agent).
	ServerMachines []ObservedServerMachine `json:"server_machines,omitempty"`
	// Note says what could not be read, when something could not.
	Note string `json:"note,omitempty"`
}

// OtherProcesses returns the largest share of an observed machine's CPUs
// that other processes used during the phase (ObservedMachine.
// OtherProcessesPct: the client's machine, then each server machine) and
// whose machine it was, as a possessive: "the machine's" (the client's,
// which is the server's when no other server machine was observed), "the
// client machine's", "the server machine's", "the tikv machine's". ok is
// false when no machine has the figure.
func (o *Observed) OtherProcesses() (pct float64, whose string, ok bool) {
	if o == nil {
		return 0, "", false
	}
	remote := false
	for _, m := range o.ServerMachines {
		remote = remote || m.Source != "local"
	}
	if m := o.Machine; m != nil && m.OtherProcessesPct != nil {
		pct, whose, ok = *m.OtherProcessesPct, "the machine's", true
		if remote {
			whose = "the client machine's"
		}
	}
	for _, m := range o.ServerMachines {
		if m.CPU == nil || m.CPU.OtherProcessesPct == nil || m.Source == "local" || ok && *m.CPU.OtherProcessesPct <= pct {
			continue
		}
		pct, ok = *m.CPU.OtherProcessesPct, true
		whose = "the server machine's"
		if len(o.ServerMachines) > 1 {
			whose = "the " + m.Role + " machine's"
		}
	}
	return pct, whose, ok
}

// SharedCPUsNote begins the note of a run whose client shared the CPUs of a
// server on its machine (Result.Notes): "the client shared the server's
// CPUs and used 20% of the machine: …".
const SharedCPUsNote = "the client shared the server's CPUs"

// Noisy reports whether other processes used more than
// OtherProcessesLimitPct of an observed machine's CPUs during the phase.
func (o *Observed) Noisy() bool {
	pct, _, ok := o.OtherProcesses()
	return ok && pct > OtherProcessesLimitPct
}

// ObservedServer is what the database server counted during the phase. Derived
// figures are absent when the counters they need are; a zero is a real zero.
type ObservedServer struct {
	// Source names where the counters came from: "SHOW GLOBAL STATUS",
	// "pg_stat_database, pg_stat_bgwriter, pg_current_wal_lsn()".
	Source string `json:"source"`
	// Counters are the deltas over the phase by the server's own names
	// ("Innodb_buffer_pool_reads", "blks_read"); PostgreSQL's "wal_bytes" is the
	// difference of pg_current_wal_lsn(), and its *_time counters are milliseconds.
	Counters map[string]int64 `json:"counters,omitempty"`
	// Gauges are values sampled about once a second during the phase and once at its
	// end ("Threads_running"; PostgreSQL "active_backends"…), without the probe's
	// own connection.
	Gauges map[string]Gauge `json:"gauges,omitempty"`

	// BufferPoolHitPct is the share of page reads served from the server's cache:
	// 100 × (1 − Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests), or
	// 100 × blks_hit / (blks_hit + blks_read).
	BufferPoolHitPct *float64 `json:"buffer_pool_hit_pct,omitempty"`
	// DiskReadsPerSec is page reads that missed the cache per second
	// (Innodb_buffer_pool_reads, blks_read). On PostgreSQL they may have been
	// served by the operating system's page cache.
	DiskReadsPerSec *float64 `json:"disk_reads_per_s,omitempty"`
	// BytesWrittenPerSec is data-file bytes written per second (Innodb_data_written;
	// PostgreSQL buffers written by checkpointer, background writer and backends × block size).
	BytesWrittenPerSec *float64 `json:"bytes_written_per_s,omitempty"`
	// LogBytesPerSec is redo/WAL bytes written per second (Innodb_os_log_written, WAL LSN difference).
	LogBytesPerSec *float64 `json:"log_bytes_per_s,omitempty"`
	// RowsReadPerSec is rows read per second (Innodb_rows_read, MariaDB's Rows_read,
	// PostgreSQL tup_returned).
	RowsReadPerSec *float64 `json:"rows_read_per_s,omitempty"`
	// RowsChangedPerSec is rows inserted, updated and deleted per second
	// (Innodb_rows_*, else Handler_write/update/delete; PostgreSQL tup_inserted/updated/deleted).
	RowsChangedPerSec *float64 `json:"rows_changed_per_s,omitempty"`
	// LogFlushesPerSec is redo/WAL flushes to storage (fsync, fdatasync)
	// per second (schema 1.6): Innodb_os_log_fsyncs, else
	// Innodb_data_fsyncs (MariaDB 10.8 and later count the log's there and
	// have no Innodb_os_log_fsyncs); PostgreSQL 14+ pg_stat_wal wal_sync.
	LogFlushesPerSec *float64 `json:"log_flushes_per_s,omitempty"`
	// LogFlushesPerTxn is those flushes per transaction of the run
	// (schema 1.6): over totals.counts.events (each event is a
	// transaction, or a statement in autocommit), times the coordinated
	// clients' count (client.of) for one client of several. About 1 when
	// every commit waits for a flush of its own; absent without
	// LogFlushesPerSec or events.
	LogFlushesPerTxn *float64 `json:"log_flushes_per_txn,omitempty"`
	// LogFlushTimePct is the share of the phase the server spent in those
	// flushes (schema 1.6): PostgreSQL's wal_sync_time, counted only with
	// track_wal_io_timing on; absent otherwise (MySQL family servers do
	// not count it).
	LogFlushTimePct *float64 `json:"log_flush_time_pct,omitempty"`
}

// Gauge summarises the samples of a value that goes up and down.
type Gauge struct {
	Mean    float64 `json:"mean"`
	Max     float64 `json:"max"`
	Samples int     `json:"samples"`
}

// ObservedMachine is the CPU use of the client machine over the phase, from the
// /proc/stat deltas, each as a percentage of all its CPUs (they add up to 100).
type ObservedMachine struct {
	Source string `json:"source"` // "/proc/stat"
	CPUs   int    `json:"cpus"`   // online CPUs
	// BusyPct is everything but idle and iowait: user+nice+system+irq+softirq+steal.
	BusyPct    float64 `json:"busy_pct"`
	UserPct    float64 `json:"user_pct"`
	NicePct    float64 `json:"nice_pct"`
	SystemPct  float64 `json:"system_pct"`
	IOWaitPct  float64 `json:"iowait_pct"`
	IRQPct     float64 `json:"irq_pct"`
	SoftIRQPct float64 `json:"softirq_pct"`
	StealPct   float64 `json:"steal_pct"` // taken by the hypervisor for other guests
	IdlePct    float64 `json:"idle_pct"`
	// OtherProcessesPct is the share of the CPUs counted that processes
	// other than the client (fairbench) and the database server used
	// (schema 1.6): user + nice + system less the client's and the
	// server's own CPU time, never below 0 (interrupts and steal are not
	// processes). Absent when one of them could not be read, and in older
	// results.
	OtherProcessesPct *float64 `json:"other_processes_pct,omitempty"`
}

// ObservedClient is fairbench's own CPU use over the phase, from getrusage(RUSAGE_SELF).
type ObservedClient struct {
	UserSeconds   float64 `json:"user_seconds"`
	SystemSeconds float64 `json:"system_seconds"`
	// MachinePct is the client's share of the machine: (user + system) seconds over
	// (phase seconds × CPUs), in percent.
	MachinePct float64 `json:"machine_pct"`
	// MaxRSSBytes is the largest resident set the process has had (since it
	// started, not only during the phase).
	MaxRSSBytes int64 `json:"max_rss_bytes,omitempty"`
}

// ObservedServerMachine is what one database server machine did over the
// measured phase (schema 1.4), from the deltas of two counter snapshots.
// Parts that could not be read are nil and Note says why.
type ObservedServerMachine struct {
	// Role and Source repeat the ServerMachine's, so that the entry reads on
	// its own; Source here is where the counters came from: "agent" or
	// "local".
	Role   string `json:"role"`
	Source string `json:"source"`
	// Seconds is the time between the two snapshots by the machine's own
	// monotonic clock.
	Seconds float64 `json:"seconds"`
	// CPU is the machine's CPU use, each share a percentage of the CPUs
	// counted (the server's CPU list when it has one, else all of them).
	CPU *ObservedMachine `json:"cpu,omitempty"`
	// BusiestCPU is the CPU with the highest busy share and BusiestCPUPct
	// that share: one saturated CPU limits a server the average hides.
	BusiestCPU    int     `json:"busiest_cpu"`
	BusiestCPUPct float64 `json:"busiest_cpu_pct"`
	// Disk sums the machine's whole disks (partitions and virtual devices
	// such as loop and ram left out).
	Disk *ObservedDisk `json:"disk,omitempty"`
	// Net sums the machine's network interfaces but loopback.
	Net *ObservedNet `json:"net,omitempty"`
	// Process is the database server process's own use, when its PID was known.
	Process *ObservedProcess `json:"process,omitempty"`
	// Note says what could not be read, when something could not.
	Note string `json:"note,omitempty"`
}

// ObservedDisk is disk activity per second over the phase, from /proc/diskstats.
type ObservedDisk struct {
	Devices       []string `json:"devices"` // the devices summed: "nvme0n1", "sda"
	ReadIOPS      float64  `json:"read_iops"`
	WriteIOPS     float64  `json:"write_iops"`
	ReadMBPerSec  float64  `json:"read_mb_per_s"`
	WriteMBPerSec float64  `json:"write_mb_per_s"`
	// AwaitMs is the mean time an IO took (ms reading + ms writing over
	// reads + writes); 0 without IO.
	AwaitMs float64 `json:"await_ms"`
	// UtilPct is the busiest device's share of time doing IO.
	UtilPct float64 `json:"util_pct"`
}

// ObservedNet is network traffic per second over the phase, from /proc/net/dev.
type ObservedNet struct {
	Interfaces    []string `json:"interfaces"`
	RxMBPerSec    float64  `json:"rx_mb_per_s"`
	TxMBPerSec    float64  `json:"tx_mb_per_s"`
	RxPacketsPerS float64  `json:"rx_packets_per_s"`
	TxPacketsPerS float64  `json:"tx_packets_per_s"`
}

// ObservedProcess is the database server process's use over the phase, from
// /proc/PID (stat, io, status).
type ObservedProcess struct {
	PID  int    `json:"pid"`
	Name string `json:"name,omitempty"`
	// CPUPct is user + system time over the phase, its workers' included,
	// in percent of one CPU (200 = two CPUs busy), as top prints it.
	CPUPct        float64 `json:"cpu_pct"`
	UserSeconds   float64 `json:"user_seconds"`
	SystemSeconds float64 `json:"system_seconds"`
	// WorkerSeconds is the CPU time of its workers over the phase (schema
	// 1.6): its descendants of the same name (PostgreSQL's backends), and
	// those that exited; Workers counts those alive at the end. Absent for
	// a server of one process.
	WorkerSeconds float64 `json:"worker_seconds,omitempty"`
	Workers       int     `json:"workers,omitempty"`
	// RSSBytes is VmRSS at the end of the phase.
	RSSBytes int64 `json:"rss_bytes,omitempty"`
	// ReadMBPerSec and WriteMBPerSec are the storage bytes the process
	// caused to be read and written (/proc/PID/io read_bytes,
	// write_bytes); absent when io could not be read.
	ReadMBPerSec  *float64 `json:"read_mb_per_s,omitempty"`
	WriteMBPerSec *float64 `json:"write_mb_per_s,omitempty"`
}
