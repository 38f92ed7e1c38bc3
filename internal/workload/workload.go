// Package workload defines what a benchmark workload is and keeps the registry of
// them. A workload package registers a Spec in init(); the CLI and the runner only
// ever see this package's types.
package workload

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/base/suggest"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Spec describes a workload before its options are known.
type Spec struct {
	// Name is what users type: "oltp_read_write".
	Name string
	// Summary is one line for `fairbench list`.
	Summary string
	// New returns a workload whose options are registered on fs with their
	// defaults; the values are read after fs is parsed, when Validate is called.
	New func(fs *pflag.FlagSet) Workload
}

// Workload is one configured benchmark.
type Workload interface {
	// Validate checks the parsed options and returns an error that says what to change.
	Validate() error
	// Prepare creates and loads the workload's tables.
	Prepare(ctx context.Context, env PrepareEnv) error
	// Cleanup drops exactly what Prepare created.
	Cleanup(ctx context.Context, db driver.Driver, log io.Writer) error
	// Missing says which tables the workload needs that the database lacks
	// (none means it can run), read with one catalog query and summarised
	// however many tables the options ask for.
	Missing(ctx context.Context, conn driver.Conn, d driver.Dialect) (Absent, error)
	// NewWorker returns the per-thread state of one worker bound to conn. It is
	// called again with a fresh conn after a reconnect.
	NewWorker(ctx context.Context, conn driver.Conn, d driver.Dialect, rng *randgen.Source) (Worker, error)
}

// PrepareEnv is what Prepare needs besides its own options.
type PrepareEnv struct {
	// Driver is the target; nil for a workload that exports files instead of
	// loading them (Exporter), which then gets only Dialect.
	Driver driver.Driver
	// Dialect is the target's SQL dialect (Driver's, when there is one).
	Dialect driver.Dialect
	Threads int              // loaders in parallel
	Rand    *randgen.Factory // seeded generators, one stream per loader
	Replace bool             // drop existing tables instead of refusing
	// Log receives human-readable lines ("Creating table 'sbtest1'...").
	Log io.Writer
	// Progress is called from loaders as rows are loaded; safe for concurrent use.
	Progress *Progress
}

// Counts are what one event did, as sysbench counts them: a statement returning
// rows is a read, DML that changed rows is a write, BEGIN/COMMIT and DML that
// changed nothing are other.
type Counts struct {
	Reads, Writes, Others int64
	// Kind is the index of the event's kind in Kinded.Kinds() (TPC-C: which of the
	// five transactions); 0 for workloads with one kind of event.
	Kind int
	// Rollback marks an event that ended in an expected rollback (TPC-C's 1% of
	// New-Order transactions): it counts as an event of its kind and as a
	// rollback, never as an error.
	Rollback bool
	// Retries is how many times the workload re-ran the event after a
	// serialization or deadlock failure before it completed, or before the
	// error it returns ended it (pgbench's --max-tries); 0 for workloads that
	// never retry.
	Retries int64
}

// Waiter is implemented by workers that sleep inside Event on purpose (TPC-C's
// keying and think times with --wait); the runner subtracts the sleep of the
// last event from its latency, so that response times are the database's.
type Waiter interface {
	Waited() time.Duration
}

// Exporter is implemented by workloads whose prepare may write files instead
// of loading the database (tpcc --output-dir): Exports reports whether it
// will, and prepare then opens no connection and creates nothing but the
// files (not the default embedded database).
type Exporter interface {
	Exports() bool
}

// DryRunner is implemented by workloads whose events need no answer from
// the server — no row read decides what they send next — so that a dry run
// (--mysql-dry-run: every statement succeeds and returns no rows) runs them
// as they are: the sysbench OLTP family, as sysbench's dry run runs its
// Lua tests. Other workloads are refused a dry run.
type DryRunner interface {
	DryRuns() bool
}

// CallMarker is implemented by workers whose Event may sleep on purpose
// (Waiter), so that the runner's stall detector never takes a sleep for a
// server that stopped answering. MarkCalls is called once on each worker
// (again after a reconnect) with the thread's call mark: when the thread's
// current wait for the server began, in Unix nanoseconds. When it returns
// true the worker stores the time into mark when its sleep ends and its
// first statement is about to be sent, and the runner does not store the
// start of each event there; when it returns false (no sleep: TPC-C
// without --wait) the runner does.
type CallMarker interface {
	MarkCalls(mark *atomic.Int64) bool
}

// Kinded is implemented by workloads whose events are of several kinds; the
// runner then keeps counts and latencies per kind, named by Kinds().
type Kinded interface {
	Kinds() []string
}

// Summarizer is implemented by workloads with headline figures of their own
// (TPC-C: tpmC, tpmTotal, efficiency), computed from the measured phase.
type Summarizer interface {
	Figures(p *result.Phase) []result.Figure
}

// Scripted is implemented by workloads that run scripts (pgbench's built-in
// scripts and script files): the result records each script's text and
// hash, so that results of different scripts are never compared as one.
type Scripted interface {
	// Scripts returns the scripts with their weights and, when the workload
	// timed every command (StatementTimer), each command's figures over the
	// measured phase; called once every worker has stopped.
	Scripts() []result.Script
}

// StatementTimer is implemented by Scripted workloads that time every command
// of their scripts (pgbench -r). MeasureFrom is called before any event runs
// with the start of the measured phase: commands that start before it (the
// warm-up) are not counted.
type StatementTimer interface {
	MeasureFrom(t time.Time)
}

// Retrier is implemented by workloads that retry serialization failures and
// deadlocks themselves (pgbench's --max-tries): an event that still fails
// with one (driver.ErrorInfo.Retryable) after its tries is counted as a
// failed event — an ignored error of its code — and the thread goes on, as
// pgbench counts failed transactions, whatever --*-ignore-errors says.
type Retrier interface {
	RetriesFailures() bool
}

// RunInfo is what a Threaded workload learns of a run before its workers
// start.
type RunInfo struct {
	// Threads is how many threads (workers) run it.
	Threads int
	// Seed is the run's resolved random seed (--rand-seed).
	Seed uint64
	// Describe classifies the errors of the run's connections (the
	// driver's: which are serialization failures or deadlocks).
	Describe func(error) driver.ErrorInfo
}

// Threaded is implemented by workloads whose workers need to know the run
// they are part of (pgbench: each client's :client_id, its random seed,
// :default_seed, and which errors it retries). The runner calls SetRun
// once, before it creates any worker.
type Threaded interface {
	SetRun(RunInfo)
}

// Checker is implemented by workloads that can verify the consistency of their
// data (TPC-C's clause 3.3.2 conditions).
type Checker interface {
	Check(ctx context.Context, db driver.Driver, opts CheckOptions) ([]CheckResult, error)
}

// CheckOptions tune a consistency check.
type CheckOptions struct {
	// All includes the conditions that hold only right after loading.
	All bool
	// Threads bounds the queries run in parallel.
	Threads int
	// Log receives one line per condition as it finishes.
	Log io.Writer
}

// CheckResult is the outcome of one consistency condition.
type CheckResult struct {
	ID      int    // the condition's number (TPC-C: 1..12)
	Name    string // what it checks, e.g. "W_YTD = sum(D_YTD)"
	Skipped string // why it did not run (empty when it ran)
	Passed  bool
	// Violations counts the offending rows; Examples names the first few
	// ("warehouse 3 district 7: d_ytd 30000.00, sum(h_amount) 29990.00").
	Violations int64
	Examples   []string
	Duration   time.Duration
}

// Worker runs events on one connection. It is used by one goroutine only.
type Worker interface {
	// Event runs one event and adds what it did to c. When it returns an error, the
	// runner decides whether to ignore it (then calls Rollback), reconnect or stop.
	Event(ctx context.Context, c *Counts) error
	// Rollback ends an open transaction after an ignored error.
	Rollback(ctx context.Context) error
	// Close releases the worker's statements (not the connection).
	Close() error
}

// Progress counts rows loaded across loaders and knows the total to expect
// (progress.Counter: loaders call Add and SetTotal, the caller shows the line).
type Progress = progress.Counter

// NewProgress starts counting towards total rows.
func NewProgress(total int64) *Progress { return progress.NewCounter(total) }

// Registry holds the known workloads by name.
type Registry struct {
	specs map[string]Spec
}

// NewRegistry returns a registry holding specs; a duplicate name is a programming error.
func NewRegistry(specs ...Spec) *Registry {
	r := &Registry{specs: make(map[string]Spec, len(specs))}
	for _, s := range specs {
		if _, dup := r.specs[s.Name]; dup {
			panic("workload registered twice: " + s.Name)
		}
		r.specs[s.Name] = s
	}
	return r
}

// Lookup returns the spec called name, or an error listing the known names
// (and the nearest, when one is near).
func (r *Registry) Lookup(name string) (Spec, error) {
	s, ok := r.specs[name]
	if !ok {
		names := r.Names()
		list := strings.Join(names, ", ")
		if near := suggest.Nearest(name, names); near != "" {
			return Spec{}, fmt.Errorf("unknown workload %q; did you mean %q? The workloads are %s ('fairbench list' describes them)", name, near, list)
		}
		return Spec{}, fmt.Errorf("unknown workload %q: the workloads are %s ('fairbench list' describes them)", name, list)
	}
	return s, nil
}

// Names returns the registered names in order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.specs))
	for n := range r.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Dataset is implemented by workloads that can describe their data set: the
// tables they read and write, and an estimate of its size once loaded (what a
// checksum warm-up reads and a server profile sizes its buffer pool for).
type Dataset interface {
	// Tables names the workload's tables, as Prepare creates them.
	Tables() []string
	// DataBytes estimates the loaded size in bytes, indexes included.
	DataBytes() int64
}

// Reusable is implemented by workloads that can tell whether the data already
// in the database is what their options would load, so that a suite loads once
// and reuses it afterwards.
type Reusable interface {
	// Matches reports whether the loaded data fits the options; when it does
	// not, why says how it differs ("sbtest1 has 5000 rows, not 10000").
	Matches(ctx context.Context, conn driver.Conn, d driver.Dialect) (ok bool, why string, err error)
}

// Inspector is implemented by workloads that can tell, cheaply, what data the
// database holds against their options. run, check and a suite's cells call
// it once before a measured run (before any worker connects), so that a run
// on data other than the options describe is refused or said, and the result
// records what ran.
type Inspector interface {
	// Inspect reads the data once. An error means the data cannot serve the
	// options (the CLI exits 3 and names the fix); warnings mean it can, but
	// not as asked. Inspect may adopt values the data decides for options
	// that were not given (TPC-C's warehouse count from tpcc_meta).
	Inspect(ctx context.Context, conn driver.Conn, d driver.Dialect) (DataReport, error)
}

// DataReport is what Inspect found.
type DataReport struct {
	// Options are the values the run uses where the data decided them, by
	// option name; they replace the flags' values in the result's options.
	Options map[string]string
	// Checks compare each option of the data set as asked with what the
	// database holds.
	Checks []result.DataCheck
	// Warnings say, one sentence each, where the data differs from what was
	// asked without being refused.
	Warnings []string
}

// Record writes r into res: the options the data decided replace the flags'
// values, the checks and warnings are added.
func (r DataReport) Record(res *result.Result) {
	if len(r.Options) > 0 && res.Options == nil {
		res.Options = make(map[string]string, len(r.Options))
	}
	for k, v := range r.Options {
		res.Options[k] = v
	}
	res.Data = append(res.Data, r.Checks...)
	res.Warnings = append(res.Warnings, r.Warnings...)
}

// OptionScope is implemented by workloads that ignore options their commands
// accept (TPC-C draws its keys as the specification says, so the --rand-*
// distribution options do nothing to it). Such an option given explicitly is
// refused (RefuseUnused) rather than recorded as if it had mattered.
type OptionScope interface {
	// UnusedOptions maps the flag name (without "--") of each option the
	// workload ignores in every command to why it does not apply.
	UnusedOptions() map[string]string
}

// RefuseUnused returns an error naming the first option (in name order) that
// was given (changed reports it) although workload name, wl, ignores it;
// nil when wl uses every option given or does not say.
func RefuseUnused(name string, wl Workload, changed func(option string) bool) error {
	sc, ok := wl.(OptionScope)
	if !ok {
		return nil
	}
	unused := sc.UnusedOptions()
	names := make([]string, 0, len(unused))
	for n := range unused {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if changed(n) {
			return fmt.Errorf("--%s does not apply to %s: %s; leave it out", n, name, unused[n])
		}
	}
	return nil
}

// OptionNotes is implemented by workloads that accept options their events
// never read, as sysbench's scripts do (every OLTP script takes the family's
// statement options, so scripts pass one option set to all of them). Such an
// option given explicitly is neither refused nor silently kept: IgnoredGiven
// names it, and the run records that it was ignored.
type OptionNotes interface {
	// IgnoredOptions maps the flag name (without "--") of each option the
	// workload accepts and ignores to why it does not apply.
	IgnoredOptions() map[string]string
}

// IgnoredGiven returns a sentence for each option (in name order) that was
// given (changed reports it) although workload name, wl, accepts and ignores
// it; none when wl reads every option given or does not say.
func IgnoredGiven(name string, wl Workload, changed func(option string) bool) []string {
	sc, ok := wl.(OptionNotes)
	if !ok {
		return nil
	}
	ignored := sc.IgnoredOptions()
	names := make([]string, 0, len(ignored))
	for n := range ignored {
		names = append(names, n)
	}
	sort.Strings(names)
	var notes []string
	for _, n := range names {
		if changed(n) {
			notes = append(notes, fmt.Sprintf("--%s was given but has no effect on %s (%s): ignored, as sysbench ignores it", n, name, ignored[n]))
		}
	}
	return notes
}

// Unused reports whether wl ignores option (a flag name) and why.
func Unused(wl Workload, option string) (why string, ok bool) {
	if sc, is := wl.(OptionScope); is {
		why, ok = sc.UnusedOptions()[option]
	}
	return why, ok
}

// InspectData connects once to db and asks wl what data it holds (see
// Inspector); a workload that cannot tell returns an empty report.
func InspectData(ctx context.Context, db driver.Driver, wl Workload) (DataReport, error) {
	in, ok := wl.(Inspector)
	if !ok {
		return DataReport{}, nil
	}
	conn, err := db.Connect(ctx, 0)
	if err != nil {
		return DataReport{}, fmt.Errorf("connect to read the data set: %w", err)
	}
	defer conn.Close()
	return in.Inspect(ctx, conn, db.Dialect())
}

// Print writes one line per warning ("Warning: …"), each after prefix; with
// checks, first one line per check ("Data set: warehouses 2 (tpcc_meta; not
// given)").
func (r DataReport) Print(w io.Writer, prefix string, checks bool) {
	for _, c := range r.Checks {
		if !checks {
			break
		}
		fmt.Fprintf(w, "%sData set: %s\n", prefix, c)
	}
	for _, msg := range r.Warnings {
		fmt.Fprintf(w, "%sWarning: %s\n", prefix, msg)
	}
}
