// Package result defines the versioned result file that every run writes and every
// later command (compare, report, suite, merge) reads. The JSON document is the
// source of truth; the human output is rendered from the same figures.
package result

import (
	"fmt"
	"time"
)

// SchemaVersion is the version of the document layout; readers refuse newer majors.
const SchemaVersion = "1.8"

// Status says how a run ended.
type Status string

// The ways a run ends.
const (
	StatusComplete    Status = "complete"    // ran its full --time / --events
	StatusInterrupted Status = "interrupted" // stopped by Ctrl-C or a signal; figures cover what ran
	StatusFailed      Status = "failed"      // stopped by an error; Error says which
)

// Result is one run of one workload at one thread count.
type Result struct {
	Schema      string            `json:"schema"`       // SchemaVersion
	Tool        Tool              `json:"tool"`         // who wrote it
	CommandLine []string          `json:"command_line"` // argv with secrets redacted
	Workload    string            `json:"workload"`     // "oltp_read_write"
	Options     map[string]string `json:"options"`      // every resolved option, secrets redacted
	Seed        uint64            `json:"seed"`         // the --rand-seed actually used
	Target      Target            `json:"target"`       // where the load went
	Machine     Machine           `json:"machine"`      // the client machine
	Server      Server            `json:"server"`       // the database server
	// ServerMachines are the machines the database server ran on (schema
	// 1.4), one per database host: the machine under test, which compare,
	// cost and report judge. Empty when it is not known (a remote server
	// with no agent, file or flags describing it; results of schema ≤ 1.3).
	ServerMachines []ServerMachine `json:"server_machines,omitempty"`
	Status         Status          `json:"status"`
	Error          string          `json:"error,omitempty"` // why a failed run failed
	// Warnings say in words where what ran differs from what was asked, or
	// where something that shapes the figures is unknown (schema 1.3): an
	// open-loop --rate the run did not reach, TLS asked for and not used, an
	// imported log that names neither its version nor its --rand-type, and the
	// like. Each was also printed when the result was written; empty when there
	// is nothing to say.
	Warnings []string `json:"warnings,omitempty"`
	// Notes say what a reader should know of how the run was set up that
	// does not make its figures differ from what was asked (schema 1.5):
	// a client that shared the CPUs of a server on its machine, with its
	// share. Each was also printed; empty when there is nothing to say.
	Notes []string `json:"notes,omitempty"`
	// Outages are the spans during which threads of the run had no
	// connection to the server (schema 1.3), in time order; empty when no
	// connection was lost. JudgeOutages says what they make of the run: a
	// thread without a connection at the end of the measured phase, or one
	// unreachable for more than OutageLimit of it, fails the run; a shorter
	// outage all threads survived leaves it complete with a warning.
	Outages []Outage `json:"outages,omitempty"`

	Start time.Time `json:"start"` // start of the measured phase (after warm-up)
	End   time.Time `json:"end"`   // end of the measured phase

	Threads int     `json:"threads"`
	Rate    float64 `json:"rate,omitempty"` // --rate, events/s over all threads; 0 = closed loop

	Warmup    *Phase     `json:"warmup,omitempty"` // the warm-up phase, when there was one
	Totals    Phase      `json:"totals"`           // the measured phase
	Intervals []Interval `json:"intervals"`        // the series, warm-up included and marked
	// Checkpoints are the summaries of --report-checkpoints (schema 1.5), in
	// time order: each is the measured phase from its start to the
	// checkpoint, cumulative (sysbench's reset its counters at each). Empty
	// without --report-checkpoints; Totals always covers the whole phase.
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`
	// Shutdown says how the measured phase ended with --forced-shutdown
	// (schema 1.5): the events in flight at --time were waited for and
	// counted; nil without the option.
	Shutdown *Shutdown `json:"shutdown,omitempty"`

	// Kinds names the kinds of events of a multi-kind workload (TPC-C's
	// transactions), in the order of Phase.Kinds and Interval.KindEvents.
	Kinds []string `json:"kinds,omitempty"`
	// Figures are the workload's headline figures over the measured phase
	// (TPC-C: tpmC, tpmTotal, efficiency).
	Figures []Figure `json:"figures,omitempty"`
	// Scripts are the scripts a scripted workload ran (pgbench's; schema
	// 1.7), with their text and hash and, with per-command timing, each
	// command's figures.
	Scripts []Script `json:"scripts,omitempty"`

	// Observed is what the server and the machines did during the measured phase
	// (schema 1.1): server counter deltas, machine CPU use, the client's own CPU.
	Observed *Observed `json:"observed,omitempty"`
	// Suite places the run in a suite (schema 1.1): the plan and the cell.
	Suite *SuiteCell `json:"suite,omitempty"`
	// ManagedServer is the configuration of the server, when fairbench started it
	// (schema 1.1).
	ManagedServer *ManagedServer `json:"managed_server,omitempty"`
	// Client places the run among coordinated clients (run --client-id, --clients,
	// --start-at; schema 1.1); nil for a run on its own and for a merged result.
	Client *ClientInfo `json:"client,omitempty"`
	// MergedFrom lists the client results a merged result was made of (fairbench
	// merge; schema 1.1), in client id order; empty for a run's own result.
	MergedFrom []MergedPart `json:"merged_from,omitempty"`

	// Data compares the options that describe the data set with what the
	// database held when the run started (schema 1.3), one entry per option
	// the workload checked.
	Data []DataCheck `json:"data,omitempty"`
}

// Shutdown is the end of a measured phase that waited for the events in
// flight at --time (--forced-shutdown, schema 1.5).
type Shutdown struct {
	// LimitSeconds is how long past --time they could run before the
	// shutdown was forced; nil with --forced-shutdown=off (no limit).
	LimitSeconds *float64 `json:"limit_seconds,omitempty"`
	// GraceSeconds is how long past --time the measured phase ran: to the
	// end of the last of them, or to the limit when the shutdown was forced.
	// Totals.Seconds includes it.
	GraceSeconds float64 `json:"grace_seconds"`
	// Forced is set when some were still running at the limit: they were
	// cancelled, uncounted (Unfinished of them), and the run failed.
	Forced     bool `json:"forced,omitempty"`
	Unfinished int  `json:"unfinished,omitempty"`
}

// DataCheck is one option of the data set as asked and as found in the
// database before the run (schema 1.3).
type DataCheck struct {
	// Option names the option as in Options: "warehouses", "table-size".
	Option string `json:"option"`
	// Asked is the value the command line gave; empty when the option was
	// not given and the value was taken from the data (Found).
	Asked string `json:"asked,omitempty"`
	// Found is what the database held: "2", or "5000..10000" when its
	// tables differ.
	Found string `json:"found"`
	// Source says where Found was read: "tpcc_meta", "MAX(id) of sbtest1..sbtest4".
	Source string `json:"source"`
	// Differs is set when Found is not what Asked describes (beyond the
	// workload's tolerance); a warning then says so.
	Differs bool `json:"differs,omitempty"`
}

// ClientInfo says which of several coordinated clients wrote a result.
type ClientInfo struct {
	// ID is the client's id, from 0 to Of-1 (--client-id).
	ID int `json:"id"`
	// Of is the number of clients of the coordinated run (--clients).
	Of int `json:"of"`
	// StartAt is the moment all clients were told to start (--start-at).
	StartAt time.Time `json:"start_at"`
	// Clock is whose clock StartAt was read on (--start-clock): "server" (the
	// database server's) or "local" (the client machine's); empty in results
	// written before it was recorded.
	Clock string `json:"clock,omitempty"`
	// ClockOffsetMs is the server's clock minus the client's, as measured
	// before the wait, and ClockErrorMs its bound (half the shortest round
	// trip); both only with Clock "server".
	ClockOffsetMs float64 `json:"clock_offset_ms,omitempty"`
	ClockErrorMs  float64 `json:"clock_error_ms,omitempty"`
}

// MergedPart is one client result of a merged result, as it was before the merge.
type MergedPart struct {
	File     string    `json:"file"`      // the file as named to merge
	ClientID int       `json:"client_id"` // its ClientInfo.ID
	Status   Status    `json:"status"`
	Error    string    `json:"error,omitempty"`
	Seed     uint64    `json:"seed"`
	Threads  int       `json:"threads"`
	Rate     float64   `json:"rate,omitempty"`
	Start    time.Time `json:"start"` // its measured phase
	End      time.Time `json:"end"`
	Seconds  float64   `json:"seconds"`
	Events   int64     `json:"events"`
	Target   Target    `json:"target"`
	Machine  Machine   `json:"machine"` // the client machine it ran on
	// Observed is what this client saw the server, its machine and itself do
	// (1.2): kept per client because the machines differ and every client read
	// the same server's counters over about the same window.
	Observed *Observed `json:"observed,omitempty"`
}

// Figure is one named headline figure.
type Figure struct {
	Name  string  `json:"name"`  // "tpmC"
	Value float64 `json:"value"` // 12345.6
	Unit  string  `json:"unit"`  // "transactions/min", "%"
}

// KindPhase is what the events of one kind did during a phase.
type KindPhase struct {
	Name      string `json:"name"`
	Events    int64  `json:"events"`    // completed, rollbacks included
	Rollbacks int64  `json:"rollbacks"` // expected rollbacks (TPC-C's 1% New-Order)
	// Retries and Retried are the kind's as Counters holds them (schema 1.7).
	Retries int64            `json:"retries,omitempty"`
	Retried int64            `json:"retried,omitempty"`
	Errors  map[string]int64 `json:"errors,omitempty"`
	TPS     float64          `json:"tps"`
	Latency Latency          `json:"latency"`
}

// Tool names the program and version that wrote a result.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Go      string `json:"go,omitempty"`
}

// Target is the database a run talked to, without credentials.
type Target struct {
	Driver string   `json:"driver"` // mysql, pgsql, sqlite
	Hosts  []string `json:"hosts,omitempty"`
	Ports  []int    `json:"ports,omitempty"`
	Socket string   `json:"socket,omitempty"`
	// Transport is how the connections reached the server (schema 1.5):
	// "socket" (a Unix socket) or "tcp"; empty for SQLite and in older
	// results (TransportOf derives it).
	Transport string `json:"transport,omitempty"`
	Database  string `json:"database,omitempty"`
	Path      string `json:"path,omitempty"` // SQLite file
	SSL       string `json:"ssl,omitempty"`
	// TLS is what the server said of one connection of the run, whatever SSL
	// (the mode asked for: --mysql-ssl, --pgsql-ssl) was (schema 1.3):
	// whether TLS was used, with which version and cipher. Nil for SQLite and
	// in older results.
	TLS *TLS `json:"tls,omitempty"`
	// Session is what the server reported of a connection's session after
	// the set-up asked for with --isolation-level and --session-var (schema
	// 1.5): the isolation level and each variable's value, read back. Nil
	// when neither was asked for.
	Session *Session `json:"session,omitempty"`
	// SSLCipher is the TLS 1.2 cipher list asked for (--mysql-ssl-cipher,
	// schema 1.5); the suite used is TLS.Cipher.
	SSLCipher string `json:"ssl_cipher,omitempty"`
	// Compression is true when MySQL protocol compression was asked for
	// (--mysql-compression=on, schema 1.5).
	Compression bool `json:"compression,omitempty"`
	// DryRun is true for a dry run (--mysql-dry-run, schema 1.5): no server
	// was contacted and every call succeeded with no rows, so the figures
	// measure the client alone. Such results are compared only with each
	// other (analysis refuses to put them beside runs against a server).
	DryRun bool `json:"dry_run,omitempty"`
	// PSMode is "prepared" (server-side prepared statements) or "disable".
	PSMode string `json:"ps_mode"`
}

// The transports of Target.Transport.
const (
	TransportSocket = "socket"
	TransportTCP    = "tcp"
)

// TransportOf is how the connections reached the server: Transport, or for
// a result that does not record it, "socket" when it names a socket and
// "tcp" when it names hosts; "" for SQLite, for a dry run (nothing was
// reached) and when it says neither.
func (t Target) TransportOf() string {
	switch {
	case t.DryRun:
		return ""
	case t.Transport != "":
		return t.Transport
	case t.Socket != "":
		return TransportSocket
	case len(t.Hosts) > 0:
		return TransportTCP
	}
	return ""
}

// Counters are what events did, summed over threads.
type Counters struct {
	Events     int64 `json:"events"`
	Queries    int64 `json:"queries"` // reads + writes + others
	Reads      int64 `json:"reads"`
	Writes     int64 `json:"writes"`
	Others     int64 `json:"others"`
	Reconnects int64 `json:"reconnects"`
	// Retries counts the re-runs of transactions after serialization or
	// deadlock failures (pgbench's --max-tries; schema 1.7), Retried the
	// transactions retried at least once, whether they then completed or
	// failed. Zero for workloads that never retry.
	Retries int64 `json:"retries,omitempty"`
	Retried int64 `json:"retried,omitempty"`
	// Late counts the events above --latency-limit (pgbench's -L; schema
	// 1.7), Skipped the events of the --rate schedule skipped because they
	// were already later than it when their turn came (not counted as
	// events). Zero without --latency-limit.
	Late    int64 `json:"late,omitempty"`
	Skipped int64 `json:"skipped,omitempty"`
	// Connects counts the connections the events opened for themselves
	// (--connect-per-event, pgbench's -C; schema 1.8) and ConnectMs the
	// milliseconds spent opening and closing them, part of the events'
	// latencies. Zero without --connect-per-event.
	Connects  int64   `json:"connects,omitempty"`
	ConnectMs float64 `json:"connect_ms,omitempty"`
	// Errors counts ignored errors by code ("1213": 4).
	Errors map[string]int64 `json:"errors,omitempty"`
}

// ErrorCount returns the sum of Errors.
func (c Counters) ErrorCount() int64 {
	var n int64
	for _, v := range c.Errors {
		n += v
	}
	return n
}

// Latency summarises one latency histogram in milliseconds. Percentiles are keyed by
// the percentile as the user wrote it ("95", "99.9").
type Latency struct {
	MinMs       float64            `json:"min_ms"` // exact
	AvgMs       float64            `json:"avg_ms"`
	MaxMs       float64            `json:"max_ms"` // exact
	SumMs       float64            `json:"sum_ms"`
	Percentiles map[string]float64 `json:"percentiles_ms"`
	// Histogram is the lossless histogram (see Histogram) so that later commands can
	// merge runs and compute any percentile.
	Histogram *Histogram `json:"histogram,omitempty"`
}

// Histogram is an HdrHistogram in its standard V2 compressed encoding, base64, with
// values in microseconds.
type Histogram struct {
	Unit     string `json:"unit"`     // "us"
	Encoding string `json:"encoding"` // "hdr-v2-deflate-base64"
	Data     string `json:"data"`
}

// Phase is a whole phase (warm-up or measured): counters, rates and latencies.
type Phase struct {
	Seconds float64  `json:"seconds"`
	Counts  Counters `json:"counts"`
	TPS     float64  `json:"tps"`
	QPS     float64  `json:"qps"`
	// Latency is measured from each event's intended start: with --rate it includes
	// the time an event waited behind earlier ones; without --rate it equals Service.
	Latency Latency `json:"latency"`
	// Service is the time from the moment an event actually started to its end.
	Service Latency `json:"service"`
	// Fairness is the per-thread spread (sysbench's "Threads fairness").
	Fairness Fairness `json:"fairness"`
	// Kinds breaks the phase down by kind of event (Result.Kinds); empty for
	// single-kind workloads.
	Kinds []KindPhase `json:"kinds,omitempty"`
}

// Checkpoint is a summary of the measured phase so far (schema 1.5), at one
// moment of --report-checkpoints.
type Checkpoint struct {
	// At is the checkpoint as listed, in seconds since the start of the
	// measured phase; Phase.Seconds is the span the summary covers (At, or
	// the whole phase when the threads ended at that moment, as at --time).
	At float64 `json:"at_s"`
	Phase
}

// Fairness is the mean and standard deviation of events and of busy time per thread.
type Fairness struct {
	EventsAvg     float64 `json:"events_avg"`
	EventsStddev  float64 `json:"events_stddev"`
	ExecSecAvg    float64 `json:"exec_seconds_avg"`
	ExecSecStddev float64 `json:"exec_seconds_stddev"`
}

// Interval is one reporting interval of the series.
type Interval struct {
	// At is the end of the interval in seconds since the start of the run (warm-up
	// included), as sysbench prints "[ 10s ]".
	At      float64  `json:"at_s"`
	Seconds float64  `json:"seconds"` // length of this interval
	Warmup  bool     `json:"warmup,omitempty"`
	Threads int      `json:"threads"`
	Counts  Counters `json:"counts"`
	TPS     float64  `json:"tps"`
	QPS     float64  `json:"qps"`
	// LatencyMs holds the interval's percentiles from the intended start, keyed as in Latency.
	LatencyMs map[string]float64 `json:"latency_ms"`
	MaxMs     float64            `json:"max_ms"`
	// LagMs is the mean time the interval's events waited past their
	// intended start under --rate (latency less service time; schema 1.7,
	// pgbench's "lag"); 0 in closed-loop runs.
	LagMs float64 `json:"lag_ms,omitempty"`
	// KindEvents counts the interval's events per kind (Result.Kinds order).
	KindEvents []int64 `json:"kind_events,omitempty"`
	// Histogram is the interval's latency histogram (schema 1.2), encoded as
	// Latency.Histogram; kept by runs of coordinated clients (run --clients)
	// and on request (run --interval-histograms), so that merged intervals
	// have exact percentiles. Nil otherwise and for intervals without events.
	Histogram *Histogram `json:"histogram,omitempty"`
	// OpenLoop is the --rate schedule's state at the interval's end (schema
	// 1.5), what sysbench prints as "queue length: 0, concurrency: 1"; nil
	// in closed-loop runs.
	OpenLoop *OpenLoop `json:"open_loop,omitempty"`
	// Stall marks an interval that overlaps a stall among the run's Outages
	// (schema 1.6; MarkStalls): the interval line ends with "stall".
	Stall bool `json:"stall,omitempty"`
}

// OpenLoop is the state of an open-loop (--rate) run at one moment.
type OpenLoop struct {
	// QueueLength counts the events whose intended start had passed and that
	// had not started: the backlog of the schedule.
	QueueLength int64 `json:"queue_length"`
	// Concurrency counts the events in flight: threads inside an event.
	Concurrency int `json:"concurrency"`
}

// String renders the check for the human output: "warehouses 2 (tpcc_meta;
// not given)", "table-size asked 10000, found 5000 (MAX(id) of sbtest1)".
func (c DataCheck) String() string {
	if c.Asked == "" {
		return fmt.Sprintf("%s %s (%s; not given)", c.Option, c.Found, c.Source)
	}
	if c.Asked == c.Found {
		return fmt.Sprintf("%s %s (%s)", c.Option, c.Found, c.Source)
	}
	return fmt.Sprintf("%s asked %s, found %s (%s)", c.Option, c.Asked, c.Found, c.Source)
}
