package pgbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/pgbench/script"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// CustomName is the workload that runs the scripts --script and --builtin
// name; each built-in script is also a workload of its own, BuiltinPrefix +
// its name ("pgbench-tpcb-like").
const (
	CustomName    = "pgbench"
	BuiltinPrefix = "pgbench-"
)

// Specs returns pgbench's workloads: one per built-in script
// (pgbench-tpcb-like, pgbench-simple-update, pgbench-select-only) and
// "pgbench", which runs the script files and built-ins its options name.
func Specs() []workload.Spec {
	var specs []workload.Spec
	for _, name := range script.BuiltinNames() {
		specs = append(specs, workload.Spec{
			Name:    BuiltinPrefix + name,
			Summary: "pgbench's built-in " + name + " script on pgbench's tables (--scale)",
			New:     func(fs *pflag.FlagSet) workload.Workload { return New(fs, name) },
		})
	}
	return append(specs, workload.Spec{
		Name:    CustomName,
		Summary: "your own transactions: pgbench script files (--script FILE[@WEIGHT]) and built-ins (--builtin NAME[@WEIGHT])",
		New:     func(fs *pflag.FlagSet) workload.Workload { return New(fs, "") },
	})
}

// Workload runs pgbench scripts: a built-in one, or those its options name.
type Workload struct {
	opts    Options
	fs      *pflag.FlagSet
	builtin string // the built-in this workload runs; "" for CustomName

	// Set by Validate.
	scripts   []*script.Script
	isBuiltin []bool // per script
	defines   map[string]script.Value

	// Set by Inspect and SetRun, before any worker.
	scale int64
	run   workload.RunInfo
	// measured is the start of the measured phase (Unix ns; 0 until known).
	measured atomic.Int64

	mu      sync.Mutex
	clients map[*randgen.Source]*clientState // by the thread's random source: a reconnect keeps its client
	stats   []*commandStats                  // every worker's, for Scripts
}

// clientState is what a thread keeps across reconnects: its pgbench client.
type clientState struct {
	client  *script.Client
	chooser *script.Chooser
	stats   *commandStats
}

// New returns the workload running built-in script builtin, or, when
// builtin is "", the scripts its --script and --builtin options name, with
// its options registered on fs.
func New(fs *pflag.FlagSet, builtin string) *Workload {
	w := &Workload{fs: fs, builtin: builtin, clients: map[*randgen.Source]*clientState{}}
	w.opts.Init = DefaultInitOptions()
	w.opts.register(fs, builtin == "")
	if builtin != "" {
		// The one script of a built-in workload, as --builtin would give it.
		w.opts.Scripts = []ScriptArg{{Builtin: true, Arg: builtin}}
	}
	return w
}

// Validate reads and parses the scripts and checks every option, so that a
// bad script is refused with its file, line and column before anything
// connects.
func (w *Workload) Validate() error {
	o := &w.opts
	w.opts.Init.Scale = o.Scale
	if o.Scale < 1 {
		return fmt.Errorf("--scale %d: the scale factor must be at least 1", o.Scale)
	}
	if o.MaxTries < 0 {
		return fmt.Errorf("--max-tries %d: give 1 (never retry), more, or 0 (no limit)", o.MaxTries)
	}
	switch o.QueryMode {
	case "", "simple", "extended", "prepared":
	default:
		return fmt.Errorf("--query-mode %q: give simple, extended or prepared", o.QueryMode)
	}
	switch o.VacuumFirst {
	case "", "tables", "all":
	default:
		return fmt.Errorf("--vacuum-first %q: give tables or all (or leave it out)", o.VacuumFirst)
	}
	w.defines = map[string]script.Value{}
	for _, d := range o.Defines {
		name, v, err := script.ParseDefine(d)
		if err != nil {
			return fmt.Errorf("--define %q: %w", d, err)
		}
		w.defines[name] = v
	}
	scripts, err := w.loadScripts()
	if err != nil {
		return err
	}
	w.scripts = scripts
	return script.Check(scripts, func(name string) bool { _, ok := w.defines[name]; return ok })
}

// loadScripts returns the scripts the workload runs, with their weights.
func (w *Workload) loadScripts() ([]*script.Script, error) {
	if len(w.opts.Scripts) == 0 {
		return nil, errors.New("pgbench: name the scripts to run with --script FILE[@WEIGHT] or --builtin NAME[@WEIGHT] (or run pgbench-tpcb-like, pgbench-simple-update, pgbench-select-only)")
	}
	var out []*script.Script
	w.isBuiltin = nil
	for _, a := range w.opts.Scripts {
		flag := "--script"
		if a.Builtin {
			flag = "--builtin"
		}
		name, weight, err := script.ParseWeighted(a.Arg)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", flag, a.Arg, err)
		}
		if weight == 0 {
			return nil, fmt.Errorf("%s %q: a script of weight 0 never runs (pgbench accepts it and never picks it): leave it out, or give it a weight of 1 or more", flag, a.Arg)
		}
		var s *script.Script
		if a.Builtin {
			if s, err = script.Builtin(name); err != nil {
				return nil, fmt.Errorf("%s %q: %w", flag, a.Arg, err)
			}
		} else {
			text, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", flag, a.Arg, err)
			}
			if s, err = script.Parse(name, string(text)); err != nil {
				return nil, err // names the file, line and column
			}
		}
		s.Weight = weight
		w.isBuiltin = append(w.isBuiltin, a.Builtin)
		out = append(out, s)
	}
	return out, nil
}

// Prepare creates and loads pgbench's tables as pgbench -i does, with the
// steps of --init-steps.
func (w *Workload) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	opts := w.opts.Init
	opts.Scale = w.opts.Scale
	if err := opts.Validate(env.Driver.Kind()); err != nil {
		return err
	}
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	_, err := Init(ctx, env.Driver, opts, log, env.Progress)
	return err
}

// Cleanup drops pgbench's four tables.
func (w *Workload) Cleanup(ctx context.Context, db driver.Driver, log io.Writer) error {
	conn, err := db.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("cleanup pgbench: connect: %w", err)
	}
	defer conn.Close()
	if log != nil {
		fmt.Fprintf(log, "Dropping %s...\n", strings.Join(Tables(), ", "))
	}
	return Drop(ctx, conn, db.Dialect())
}

// Missing returns pgbench's tables that the database lacks, when a built-in
// script runs (scripts of one's own run on whatever tables they use).
func (w *Workload) Missing(ctx context.Context, conn driver.Conn, d driver.Dialect) (workload.Absent, error) {
	missing := workload.Absent{Needed: "pgbench's tables"}
	if !w.needsTables() {
		return missing, nil
	}
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return missing, err
	}
	for _, t := range Tables() {
		if !present[t] {
			missing.Add(t)
		}
	}
	return missing, nil
}

// needsTables reports whether the scripts are pgbench's own, which need its
// tables (before Validate: whether the workload is a built-in one).
func (w *Workload) needsTables() bool {
	return w.builtin != "" || slices.Contains(w.isBuiltin, true)
}

// Inspect reads the data set's scale as pgbench does for its built-in
// scripts (the rows of pgbench_branches): the run uses it for :scale, and a
// different --scale given is said. Custom scripts get --scale as given.
func (w *Workload) Inspect(ctx context.Context, conn driver.Conn, d driver.Dialect) (workload.DataReport, error) {
	w.scale = int64(w.opts.Scale)
	if !w.needsTables() {
		// pgbench vacuums its tables before a run of one's own scripts
		// too, and goes on when they are not there: they need not be.
		_ = w.vacuumFirst(ctx, conn, d)
		return workload.DataReport{}, nil
	}
	scale, err := Check(ctx, conn, d)
	if err != nil {
		return workload.DataReport{}, err
	}
	if err := w.vacuumFirst(ctx, conn, d); err != nil {
		return workload.DataReport{}, err
	}
	w.scale = int64(scale)
	check := result.DataCheck{Option: "scale", Found: strconv.Itoa(scale), Source: "rows of " + Branches}
	rep := workload.DataReport{Options: map[string]string{"scale": strconv.Itoa(scale)}}
	if w.fs != nil && w.fs.Changed("scale") {
		check.Asked = strconv.Itoa(w.opts.Scale)
		if scale != w.opts.Scale {
			check.Differs = true
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("--scale %d ignored, as pgbench ignores it: %s holds %d rows, so the run used scale %d", w.opts.Scale, Branches, scale, scale))
		}
	}
	rep.Checks = []result.DataCheck{check}
	return rep, nil
}

// vacuumFirst tidies the tables as pgbench does before a run without -n
// (--vacuum-first): it runs once, before any worker connects.
func (w *Workload) vacuumFirst(ctx context.Context, conn driver.Conn, d driver.Dialect) error {
	if w.opts.VacuumFirst == "" {
		return nil
	}
	stmts := []string{d.VacuumAnalyze(Branches), d.VacuumAnalyze(Tellers)}
	stmts = append(stmts, d.Truncate(History)...)
	if w.opts.VacuumFirst == "all" {
		stmts = append(stmts, d.VacuumAnalyze(Accounts))
	}
	for _, q := range stmts {
		if _, err := conn.Query(ctx, q); err != nil {
			return fmt.Errorf("--vacuum-first: %s: %w", q, err)
		}
	}
	return nil
}

// Tables names pgbench's tables (workload.Dataset).
func (w *Workload) Tables() []string { return Tables() }

// DataBytes estimates the loaded size: pgbench_accounts' rows (~121 bytes
// with their tuple header, ~160 with the primary key's entry) dominate.
func (w *Workload) DataBytes() int64 { return int64(w.opts.Scale) * 100000 * 160 }

// Kinds names the scripts when there are several: each is a kind, with its
// own count and latency (pgbench's per-script figures).
func (w *Workload) Kinds() []string {
	if len(w.scripts) < 2 {
		return nil
	}
	names := make([]string, len(w.scripts))
	for i, s := range w.scripts {
		names[i] = s.Name
	}
	return names
}

// SetRun learns the run's threads, seed and error classification before any
// worker starts (workload.Threaded).
func (w *Workload) SetRun(info workload.RunInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.run = info
	if w.scale == 0 {
		w.scale = int64(w.opts.Scale)
	}
}

// MeasureFrom is the start of the measured phase: commands that start
// before it are not timed (workload.StatementTimer).
func (w *Workload) MeasureFrom(t time.Time) { w.measured.Store(t.UnixNano()) }

// measuredFrom is the start of the measured phase, zero until MeasureFrom.
func (w *Workload) measuredFrom() time.Time {
	if ns := w.measured.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// Scripts returns the scripts with their weights and, with
// --report-per-command, every command's figures over the measured phase,
// every worker's added (workload.Scripted).
func (w *Workload) Scripts() []result.Script {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]result.Script, len(w.scripts))
	for i, s := range w.scripts {
		out[i] = result.Script{Name: s.Name, Builtin: w.isBuiltin[i], Weight: s.Weight, SHA256: s.Hash, Text: s.Text}
		if !w.opts.PerCommand {
			continue
		}
		sts := make([]result.Statement, len(s.Commands))
		for j, cmd := range s.Commands {
			st := result.Statement{Line: cmd.Line, Text: cmd.Text}
			var sum time.Duration
			for _, cs := range w.stats {
				c := &cs.cmds[i][j]
				st.Count += c.count
				st.Failures += c.failures
				st.Retries += c.retries
				sum += c.total
			}
			if st.Count > 0 {
				st.AvgMs = float64(sum) / float64(st.Count) / float64(time.Millisecond)
			}
			sts[j] = st
		}
		out[i].Statements = sts
	}
	return out
}

// RetriesFailures says that the workload retries serialization failures and
// deadlocks itself (--max-tries): one that still ends a transaction is a
// failed transaction, counted, as pgbench counts them (workload.Retrier).
func (w *Workload) RetriesFailures() bool { return true }

// UnusedOptions names the options no pgbench workload reads (the sysbench
// distribution options: scripts draw with their own random functions).
func (w *Workload) UnusedOptions() map[string]string {
	const why = "pgbench scripts draw their own random numbers with random(), random_zipfian() …"
	return map[string]string{
		"rand-type": why, "rand-zipfian-exp": why, "rand-pareto-h": why,
		"rand-spec-iter": why, "rand-spec-pct": why, "rand-spec-res": why,
	}
}

// NewWorker returns thread's worker on conn: its pgbench client (kept from
// an earlier connection of the thread after a reconnect) and the statements
// of its scripts, prepared on conn in the prepared query mode.
func (w *Workload) NewWorker(ctx context.Context, conn driver.Conn, d driver.Dialect, rng *randgen.Source) (workload.Worker, error) {
	st := w.clientFor(rng)
	wk := &worker{wl: w, conn: conn, d: d, state: st, describe: w.run.Describe, maxTries: w.opts.MaxTries}
	wk.exec = wk
	if st.stats.timing {
		wk.exec = timedWorker{wk}
	}
	if err := wk.prepare(ctx); err != nil {
		wk.Close()
		return nil, err
	}
	return wk, nil
}

// clientFor returns the client of the thread whose random source is rng,
// making it on the thread's first connection: client ids are given in the
// order the threads first connect, each client seeded as pgbench seeds
// client id under the run's seed.
func (w *Workload) clientFor(rng *randgen.Source) *clientState {
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.clients[rng]; ok {
		return st
	}
	threads := max(w.run.Threads, len(w.clients)+1)
	cfg := script.ClientConfig{ID: len(w.clients), Clients: threads, Seed: w.run.Seed, Scale: w.scale, Defines: w.defines, Scripts: w.scripts}
	st := &clientState{
		client:  script.NewClient(cfg),
		chooser: script.NewChooser(cfg, cfg.ID),
		stats:   newCommandStats(w.scripts, w.opts.PerCommand),
	}
	w.clients[rng] = st
	w.stats = append(w.stats, st.stats)
	return st
}

// interfaces the workload implements beyond workload.Workload.
var (
	_ workload.Scripted       = (*Workload)(nil)
	_ workload.StatementTimer = (*Workload)(nil)
	_ workload.Threaded       = (*Workload)(nil)
	_ workload.Inspector      = (*Workload)(nil)
	_ workload.Kinded         = (*Workload)(nil)
	_ workload.Dataset        = (*Workload)(nil)
	_ workload.OptionScope    = (*Workload)(nil)
	_ workload.Retrier        = (*Workload)(nil)
)
