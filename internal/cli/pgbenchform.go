package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/compat/pgbenchcli"
	"github.com/fairbench/fairbench/internal/compat/pgbenchout"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/pgbench/script"
)

// fromPgbench translates `fairbench pgbench [pgbench options] [DBNAME]`
// (see pgbenchcli) into fairbench's own form; other command lines are
// returned as they are. The command is kept for pgbench's output layout,
// its one note line for the command (formNotes) and its command line for
// the result. done reports that the command already ended (help, version,
// -b list, --show-script, a refusal) with code.
func (a *App) fromPgbench(args []string) (out []string, code int, done bool) {
	if len(args) == 0 || args[0] != "pgbench" {
		return args, ExitOK, false
	}
	c, err := pgbenchcli.Parse(args[1:], a.Getenv)
	if err != nil {
		fmt.Fprintf(a.Stderr, "pgbench: error: %v\n", err)
		fmt.Fprintln(a.Stderr, "Try \"fairbench pgbench --help\" for more information.")
		return nil, ExitUsage, true
	}
	switch c.Mode {
	case pgbenchcli.ModeHelp:
		fmt.Fprint(a.Stdout, pgbenchHelp)
		return nil, ExitOK, true
	case pgbenchcli.ModeVersion:
		fmt.Fprintf(a.Stdout, "pgbench (fairbench %s; pgbench 15 compatible)\n", a.Version)
		return nil, ExitOK, true
	case pgbenchcli.ModeListBuiltins:
		fmt.Fprintln(a.Stderr, "Available builtin scripts:")
		for _, name := range script.BuiltinNames() {
			fmt.Fprintf(a.Stderr, "%15s: %s\n", name, script.BuiltinDescription(name))
		}
		return nil, ExitOK, true
	case pgbenchcli.ModeShowScript:
		s, err := script.Builtin(c.ShowScript)
		if err != nil {
			fmt.Fprintf(a.Stderr, "pgbench: error: %v\n", err)
			return nil, ExitUsage, true
		}
		fmt.Fprint(a.Stderr, script.ShowScript(s))
		return nil, ExitOK, true
	}
	c.PID = os.Getpid() // -l's files are named after the process, as pgbench's
	tr := pgbenchcli.Translate(c)
	if c.Mode == pgbenchcli.ModeRun {
		// pgbench has no result file; fairbench keeps every run's.
		tr.Args = append(tr.Args, "--output="+pgbenchResultPath(a.Getenv, time.Now()))
	}
	a.argv = append([]string{"pgbench"}, c.Args()...)
	if tr.Note != "" {
		a.formNotes = []string{tr.Note}
	}
	a.pgbench = c
	return tr.Args, ExitOK, false
}

// pgbenchResultPath is where a run in pgbench's form writes its result:
// FAIRBENCH_RESULTS (default fairbench-results, where suites go)/pgbench-
// <UTC time>.json.
func pgbenchResultPath(getenv func(string) string, now time.Time) string {
	dir := getenv("FAIRBENCH_RESULTS")
	if dir == "" {
		dir = resultsParent
	}
	return filepath.Join(dir, "pgbench-"+now.UTC().Format("20060102-150405.000")+".json")
}

// pgbenchHelp is `fairbench pgbench --help`.
const pgbenchHelp = `fairbench pgbench is a drop-in for pgbench 15: it takes pgbench's command line
and prints pgbench's progress lines and report; fairbench's result of a run
goes to $FAIRBENCH_RESULTS (default fairbench-results)/pgbench-TIME.json, and
its path is the last line on stderr.

Usage:
  fairbench pgbench [OPTION]... [DBNAME]

Initialization options:
  -i, --initialize         invokes initialization mode
  -I, --init-steps=[dtgGvpf]+ (default "dtgvp")
  -F, --fillfactor=NUM     set fill factor
  -n, --no-vacuum          do not run VACUUM during initialization
  -q, --quiet              quiet logging (one message each 5 seconds)
  -s, --scale=NUM          scaling factor
  --foreign-keys           create foreign key constraints between tables
  --index-tablespace=TABLESPACE
  --partition-method=(range|hash)
  --partitions=NUM
  --tablespace=TABLESPACE
  --unlogged-tables

Benchmarking options:
  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)
  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)
  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches
  -S, --select-only        perform SELECT-only transactions
  -c, --client=NUM         number of concurrent database clients (default: 1)
  -D, --define=VARNAME=VALUE
  -j, --jobs=NUM           number of threads (default: 1)
  -l, --log                write transaction times to log file
  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late
  -M, --protocol=simple|extended|prepared
  -n, --no-vacuum          do not run VACUUM before tests
  -P, --progress=NUM       show thread progress report every NUM seconds
  -r, --report-per-command report latencies, failures, and retries per command
  -R, --rate=NUM           target rate in transactions per second
  -s, --scale=NUM          report this scale factor in output
  -t, --transactions=NUM   number of transactions each client runs (default: 10)
  -T, --time=NUM           duration of benchmark test in seconds
  -v, --vacuum-all         vacuum all four standard tables before tests
  --aggregate-interval=NUM aggregate data over NUM seconds
  --failures-detailed      report the failures grouped by basic types
  --log-prefix=PREFIX      prefix for transaction time log file
                           (default: "pgbench_log")
  --max-tries=NUM          max number of tries to run transaction (default: 1)
  --progress-timestamp     use Unix epoch timestamps for progress
  --random-seed=SEED       set random seed ("time", "rand", integer)
  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%)

Connection options:
  -h, --host=HOSTNAME      database server host or socket directory
  -p, --port=PORT          database server port number
  -U, --username=USERNAME  connect as specified database user
  PGHOST, PGPORT, PGUSER, PGDATABASE and PGPASSWORD are read as libpq reads them.

The same workloads run on MariaDB, TiDB and SQLite with 'fairbench run
pgbench-tpcb-like' (and pgbench-simple-update, pgbench-select-only, pgbench
--script FILE); 'fairbench help run' lists their options.
`

// pgbenchPrinter prints a run the way pgbench does: the banner and the
// progress lines as they come, the report at the end.
type pgbenchPrinter struct {
	stdout, stderr io.Writer
	cmd            *pgbenchcli.Command // nil for --output-style=pgbench outside the drop-in
	rate           float64             // --rate: the progress lines show the lag
	started        bool
}

// pgbenchPrinter returns the printer of --output-style=pgbench, nil for
// other styles; the style is refused to workloads other than pgbench's and
// with --format json (whose document takes stdout).
func (inv *invocation) pgbenchPrinter() (*pgbenchPrinter, error) {
	if inv.run.outputStyle != pgbenchcli.StylePgbench {
		return nil, nil
	}
	if !strings.HasPrefix(inv.spec.Name, "pgbench") {
		return nil, fmt.Errorf("--output-style pgbench prints pgbench's report, which only pgbench's workloads have: use it with pgbench, pgbench-tpcb-like, pgbench-simple-update or pgbench-select-only")
	}
	if inv.run.format == "json" {
		return nil, fmt.Errorf("--output-style pgbench prints pgbench's report on standard output, where --format json would print the result: write the result with --output FILE instead")
	}
	if k, ok := inv.wl.(workload.Kinded); ok && len(k.Kinds()) > 1 && inv.run.rate > 0 && inv.run.latencyLimitMs > 0 {
		// pgbench reports each script's skipped transactions; fairbench skips
		// a late transaction before it picks its script.
		return nil, fmt.Errorf("--rate (-R) with --latency-limit (-L) and several scripts: fairbench skips a late transaction before it picks its script, so it cannot report each script's skipped transactions as pgbench does; run one script, or leave out the latency limit")
	}
	return &pgbenchPrinter{stdout: inv.app.Stdout, stderr: inv.app.Stderr, cmd: inv.app.pgbench, rate: inv.run.rate}, nil
}

// maxTries is the run's --max-tries (1 when it has none).
func maxTries(opts map[string]string) int {
	if n, err := strconv.Atoi(opts["max-tries"]); err == nil {
		return n
	}
	return 1
}

// begin prints the banner, pgbench's warning when -s was given to a run
// whose scale comes from pgbench_branches (scale: what it holds), and when
// the run vacuumed first (vacuum: --vacuum-first), pgbench's lines for it.
func (p *pgbenchPrinter) begin(server result.Server, scale, vacuum string) {
	if p.started {
		return
	}
	p.started = true
	pgbenchout.WriteVersion(p.stdout, "fairbench", server.Version)
	if n, err := strconv.Atoi(scale); err == nil && p.cmd != nil && p.cmd.ScaleIgnored() {
		fmt.Fprintf(p.stderr, "pgbench: warning: "+pgbenchout.ScaleIgnoredWarning+"\n", n)
	}
	switch vacuum {
	case "tables":
		fmt.Fprintln(p.stderr, pgbenchout.VacuumStart+pgbenchout.VacuumEnd)
	case "all":
		fmt.Fprintln(p.stderr, pgbenchout.VacuumStart+pgbenchout.VacuumEnd)
		fmt.Fprintln(p.stderr, pgbenchout.VacuumAccountsStart+pgbenchout.VacuumEnd)
	}
}

// interval prints one progress line, as pgbench does at every -P period:
// not for the warm-up, nor for the sliver of a period a run ends with.
func (p *pgbenchPrinter) interval(iv result.Interval, start float64, maxTries int, every time.Duration) {
	if iv.Warmup || iv.Seconds < every.Seconds()/2 {
		return
	}
	pr := pgbenchout.Progress{Retrying: maxTries != 1, Throttled: p.rate > 0, LatencyLimit: p.rate > 0 && p.cmd != nil && p.cmd.LatencyLimitMs > 0}
	if p.cmd != nil && p.cmd.ProgressTimestamp {
		pr.Timestamp, pr.Epoch = true, start
	}
	pgbenchout.WriteProgress(p.stderr, pgbenchout.ProgressFrom(iv, pr))
}

// summary prints pgbench's report of res; connect is how long opening
// every client's connection took (pgbench's initial connection time),
// maxLag the longest an event started after its --rate schedule.
func (p *pgbenchPrinter) summary(res *result.Result, connect, maxLag time.Duration) {
	opt := func(name string) int {
		n, _ := strconv.Atoi(res.Options[name])
		return n
	}
	s := pgbenchout.Summary{
		Scale: opt("scale"), QueryMode: res.Options["query-mode"], Clients: res.Threads, Threads: res.Threads,
		MaxTries: opt("max-tries"), Duration: int(res.Totals.Seconds + 0.5), Throttled: res.Rate > 0,
		PerCommand:   len(res.Scripts) > 0 && len(res.Scripts[0].Statements) > 0,
		ConnectionMs: float64(connect) / float64(time.Millisecond),
	}
	if c := res.Totals.Counts; c.Connects > 0 {
		// -C: pgbench's average over the transactions.
		s.Connect = true
		s.ConnectionMs = c.ConnectMs / float64(c.Events+c.Skipped+c.ErrorCount())
	}
	if s.QueryMode == "" {
		s.QueryMode = "prepared"
		if res.Target.PSMode == "disable" {
			s.QueryMode = "simple"
		}
	}
	if c := p.cmd; c != nil {
		s.Threads = c.EffectiveJobs()
		s.Duration, s.TransactionsPerClient = c.Duration, c.Transactions
		s.FailuresDetailed = c.FailuresDetailed
		s.LatencyMeasured = c.Progress > 0 || c.Rate > 0 || c.LatencyLimitMs > 0
		s.LatencyLimitMs = c.LatencyLimitMs
	}
	for _, sc := range res.Scripts {
		desc := sc.Name
		if sc.Builtin {
			desc = script.BuiltinDescription(sc.Name)
		}
		out := pgbenchout.Script{Desc: desc, Weight: sc.Weight}
		lines := strings.Split(sc.Text, "\n")
		for _, st := range sc.Statements {
			text := st.Text
			if st.Line >= 1 && st.Line <= len(lines) {
				text = strings.TrimSpace(lines[st.Line-1]) // pgbench prints the command's first line as written
			}
			out.Statements = append(out.Statements, pgbenchout.Statement{LatencyMs: st.AvgMs, Failures: st.Failures, Retries: st.Retries, Text: text})
		}
		s.Scripts = append(s.Scripts, out)
	}
	s.LagMaxMs = float64(maxLag) / float64(time.Millisecond)
	pgbenchout.WriteSummary(p.stdout, pgbenchout.SummaryFrom(res, s))
}

// pgbenchInit is `fairbench pgbench -i`: the workload's prepare, which
// prints pgbench -i's lines (on stderr, as pgbench), and nothing of
// fairbench's own.
func (inv *invocation) pgbenchInit(ctx context.Context, s *session) error {
	err := inv.wl.Prepare(ctx, workload.PrepareEnv{
		Driver: s.drv, Dialect: s.dialect, Threads: 1, Log: inv.app.Stderr, Progress: workload.NewProgress(0),
	})
	switch {
	case err != nil && isInterrupted(ctx, err):
		return withCode(ExitInterrupted, fmt.Errorf("pgbench -i interrupted: the tables are incomplete; run it again"))
	case err != nil:
		return withCode(ExitTarget, fmt.Errorf("pgbench -i on %s: %w", describeTarget(s.cfg), err))
	}
	return nil
}
