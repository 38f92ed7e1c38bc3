// Package pgbenchout prints a run the way pgbench 15 prints one, so that
// scripts that read pgbench's output keep working with `fairbench pgbench`:
// the version banner, the progress lines of -P (with the lag of -R, the
// skipped transactions of -R with -L, the retries of --max-tries, the Unix
// time of --progress-timestamp) and the final report (the run's parameters,
// its counts, failures, retries and skipped transactions, latency, lag,
// connection time and tps, a block per script when several run, and -r's
// per-statement latencies, failures and retries). Labels, order, conditions
// and number formats are pgbench 15's, held against real pgbench 15.20
// transcripts (testdata/pgbench-15, figures masked) by this package's
// tests.
//
// Progress and Summary are plain structs of the figures pgbench prints;
// ProgressFrom and SummaryFrom fill them from a fairbench result where it
// holds the figure (see each field for those it does not hold yet).
package pgbenchout

import (
	"fmt"
	"io"
	"math"
)

// VacuumStart and VacuumEnd frame pgbench's VACUUM before a run (without
// -n), on stderr: "starting vacuum...end.".
const (
	VacuumStart = "starting vacuum..."
	VacuumEnd   = "end."
)

// VacuumAccountsStart is the second VACUUM of -v, before VacuumEnd.
const VacuumAccountsStart = "starting vacuum pgbench_accounts..."

// ScaleIgnoredWarning is pgbench's warning (on stderr, after "pgbench:
// warning: ") when -s is given to a run with a built-in script, whose scale
// is the number of rows of pgbench_branches (%d) instead.
const ScaleIgnoredWarning = "scale option ignored, using count from pgbench_branches table (%d)"

// RandomSeedInfo is pgbench's line (on stderr, after "pgbench: ") when a
// seed is given by --random-seed or PGBENCH_RANDOM_SEED (%d: the seed).
const RandomSeedInfo = "setting random seed to %d"

// AbortedError is pgbench's message (on stderr, after "pgbench: error: ")
// when a client aborted: the report above it is incomplete.
const AbortedError = "Run was aborted; the above results are incomplete."

// WriteVersion prints pgbench's banner: "pgbench (15.20)", or with the
// server's version when it differs, "pgbench (15.20, server 16.1)".
func WriteVersion(w io.Writer, version, serverVersion string) {
	if serverVersion == "" || serverVersion == version {
		fmt.Fprintf(w, "pgbench (%s)\n", version)
		return
	}
	fmt.Fprintf(w, "pgbench (%s, server %s)\n", version, serverVersion)
}

// Progress is one -P progress line's figures, over the interval since the
// previous line.
type Progress struct {
	// Elapsed is the end of the interval in seconds since the run started
	// ("progress: 2.0 s"); Epoch the Unix time of the report, printed
	// instead with --progress-timestamp (Timestamp).
	Elapsed   float64
	Epoch     float64
	Timestamp bool
	// TPS counts the transactions that ended in the interval, per second.
	TPS float64
	// LatencyMs and StddevMs are the average and standard deviation of
	// those transactions' latencies.
	LatencyMs, StddevMs float64
	// Failed counts the transactions that failed in the interval.
	Failed int64
	// Throttled is a -R run: LagMs, the average time the transactions
	// started after their schedule, follows.
	Throttled bool
	LagMs     float64
	// LatencyLimit is a -L run: with Throttled, Skipped (transactions not
	// started because already later than -L) follows.
	LatencyLimit bool
	Skipped      int64
	// Retrying is a run whose --max-tries is not 1: the transactions
	// retried (Retried) and the retries (Retries) follow.
	Retrying         bool
	Retried, Retries int64
}

// WriteProgress prints p as pgbench 15 prints a progress line.
func WriteProgress(w io.Writer, p Progress) {
	at := fmt.Sprintf("%.1f s", p.Elapsed)
	if p.Timestamp {
		at = fmt.Sprintf("%.3f s", p.Epoch)
	}
	fmt.Fprintf(w, "progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %d failed", at, p.TPS, p.LatencyMs, p.StddevMs, p.Failed)
	if p.Throttled {
		fmt.Fprintf(w, ", lag %.3f ms", p.LagMs)
		if p.LatencyLimit {
			fmt.Fprintf(w, ", %d skipped", p.Skipped)
		}
	}
	if p.Retrying {
		fmt.Fprintf(w, ", %d retried, %d retries", p.Retried, p.Retries)
	}
	fmt.Fprintln(w)
}

// Failures are the transactions that failed (after their last try), by
// cause. fairbench's result counts errors by SQLSTATE: serialization
// failures are 40001, deadlocks 40P01.
type Failures struct {
	Serialization int64
	Deadlock      int64
}

// Total is every failure.
func (f Failures) Total() int64 { return f.Serialization + f.Deadlock }

// Statement is one command of a script as -r reports it.
type Statement struct {
	// LatencyMs is the command's average latency; Failures the
	// transactions that failed on it; Retries the retries it caused
	// (printed when --max-tries is not 1): a result's scripts' statements
	// with --report-per-command.
	LatencyMs float64
	Failures  int64
	Retries   int64
	// Text is the command's first line as written in the script
	// ("\set aid random(1, 100000 * :scale)", "BEGIN;").
	Text string
}

// Script is one script's part of the report: its block when several
// scripts run, its statements under -r.
type Script struct {
	// Desc is how pgbench names it: "<builtin: TPC-B (sort of)>" or the file.
	Desc   string
	Weight int
	// Processed counts its transactions that ended successfully, TPS them
	// per second of the run.
	Processed int64
	TPS       float64
	Failures  Failures
	// Retried and Retries are its transactions retried and its retries
	// (not in fairbench's result yet).
	Retried, Retries int64
	// Skipped counts its transactions skipped under -R with -L (not in
	// fairbench's result yet).
	Skipped int64
	// LatencyAvgMs and LatencyStddevMs are over its successful transactions.
	LatencyAvgMs, LatencyStddevMs float64
	Statements                    []Statement
}

// Summary is pgbench's final report: the run's parameters, then its figures.
type Summary struct {
	// Scripts are the scripts run, in the order given; one prints as the
	// transaction type, several as "multiple scripts" and a block each.
	Scripts []Script
	Scale   int
	// PartitionMethod and Partitions describe pgbench_accounts when it is
	// partitioned ("range" or "hash"); "" when it is not.
	PartitionMethod string
	Partitions      int
	// QueryMode is -M: simple, extended or prepared.
	QueryMode string
	Clients   int
	Threads   int
	// MaxTries is --max-tries; 0 (unlimited) prints no line.
	MaxTries int
	// Duration is -T in seconds; 0 for a run of TransactionsPerClient (-t).
	Duration              int
	TransactionsPerClient int
	// Processed counts the transactions that ended successfully.
	Processed int64
	Failures  Failures
	// FailuresDetailed is --failures-detailed: the failures by cause.
	FailuresDetailed bool
	// Retried and Retries are the transactions retried and the retries
	// (printed when MaxTries is not 1).
	Retried, Retries int64
	// Throttled is a -R run: the lag line follows the latency.
	Throttled bool
	// Skipped counts the transactions skipped under -R with -L (not in
	// fairbench's result yet).
	Skipped int64
	// LatencyLimitMs is -L; LatencyLate counts the transactions above it
	// (not in fairbench's result yet).
	LatencyLimitMs float64
	LatencyLate    int64
	// LatencyMeasured is true when pgbench measured every transaction (a
	// run with -R, -P or -L): the average and standard deviation of the
	// latencies print. Otherwise pgbench prints only an average computed
	// from the run's length: elapsed × clients / transactions.
	LatencyMeasured               bool
	LatencyAvgMs, LatencyStddevMs float64
	// LagAvgMs and LagMaxMs are the average and largest time transactions
	// started after their -R schedule.
	LagAvgMs, LagMaxMs float64
	// Connect is -C: ConnectionMs is then the average connection time and
	// tps includes it; otherwise ConnectionMs is the initial connection time.
	Connect      bool
	ConnectionMs float64
	TPS          float64
	// PerCommand is -r: the statements of each script follow.
	PerCommand bool
}

// TransactionType is the report's "transaction type": the one script's
// description, or "multiple scripts".
func (s Summary) TransactionType() string {
	if len(s.Scripts) == 1 {
		return s.Scripts[0].Desc
	}
	return "multiple scripts"
}

// pct is 100·n/of with C's result for 0/0 (x86's default NaN, printed by
// glibc as "-nan").
func pct(n, of int64) float64 {
	if of == 0 {
		if n == 0 {
			return math.Copysign(math.NaN(), -1)
		}
		return math.Inf(int(n))
	}
	return 100 * float64(n) / float64(of)
}

// cfloat formats v with a C printf float verb, spelling NaN and infinities
// as glibc does.
func cfloat(verb string, v float64) string {
	switch {
	case math.IsNaN(v) && math.Signbit(v):
		return "-nan"
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return fmt.Sprintf(verb, v)
}

// WriteSummary prints s as pgbench 15 prints its report after a run, to
// stdout.
func WriteSummary(w io.Writer, s Summary) {
	failures := s.Failures.Total()
	total := s.Processed + s.Skipped + failures
	fmt.Fprintf(w, "transaction type: %s\n", s.TransactionType())
	fmt.Fprintf(w, "scaling factor: %d\n", s.Scale)
	if s.PartitionMethod != "" {
		fmt.Fprintf(w, "partition method: %s\npartitions: %d\n", s.PartitionMethod, s.Partitions)
	}
	fmt.Fprintf(w, "query mode: %s\n", s.QueryMode)
	fmt.Fprintf(w, "number of clients: %d\n", s.Clients)
	fmt.Fprintf(w, "number of threads: %d\n", s.Threads)
	if s.MaxTries != 0 {
		fmt.Fprintf(w, "maximum number of tries: %d\n", s.MaxTries)
	}
	if s.Duration <= 0 {
		fmt.Fprintf(w, "number of transactions per client: %d\n", s.TransactionsPerClient)
		fmt.Fprintf(w, "number of transactions actually processed: %d/%d\n", s.Processed, s.TransactionsPerClient*s.Clients)
	} else {
		fmt.Fprintf(w, "duration: %d s\n", s.Duration)
		fmt.Fprintf(w, "number of transactions actually processed: %d\n", s.Processed)
	}
	if total <= 0 {
		return // pgbench prints nothing more of a run without transactions
	}
	fmt.Fprintf(w, "number of failed transactions: %d (%s%%)\n", failures, cfloat("%.3f", pct(failures, total)))
	if s.FailuresDetailed {
		fmt.Fprintf(w, "number of serialization failures: %d (%s%%)\n", s.Failures.Serialization, cfloat("%.3f", pct(s.Failures.Serialization, total)))
		fmt.Fprintf(w, "number of deadlock failures: %d (%s%%)\n", s.Failures.Deadlock, cfloat("%.3f", pct(s.Failures.Deadlock, total)))
	}
	if s.MaxTries != 1 {
		fmt.Fprintf(w, "number of transactions retried: %d (%s%%)\n", s.Retried, cfloat("%.3f", pct(s.Retried, total)))
		fmt.Fprintf(w, "total number of retries: %d\n", s.Retries)
	}
	if s.Throttled && s.LatencyLimitMs > 0 {
		fmt.Fprintf(w, "number of transactions skipped: %d (%s%%)\n", s.Skipped, cfloat("%.3f", pct(s.Skipped, total)))
	}
	if s.LatencyLimitMs > 0 {
		late := 0.0
		if s.Processed > 0 {
			late = pct(s.LatencyLate, s.Processed)
		}
		fmt.Fprintf(w, "number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n", s.LatencyLimitMs, s.LatencyLate, s.Processed, late)
	}
	if s.LatencyMeasured {
		simpleStats(w, "latency", s.Processed, s.LatencyAvgMs, s.LatencyStddevMs)
	} else {
		suffix := ""
		if failures > 0 {
			suffix = " (including failures)"
		}
		fmt.Fprintf(w, "latency average = %s ms%s\n", cfloat("%.3f", s.LatencyAvgMs), suffix)
	}
	if s.Throttled {
		fmt.Fprintf(w, "rate limit schedule lag: avg %s (max %.3f) ms\n", cfloat("%.3f", s.LagAvgMs), s.LagMaxMs)
	}
	if s.Connect {
		fmt.Fprintf(w, "average connection time = %s ms\n", cfloat("%.3f", s.ConnectionMs))
		fmt.Fprintf(w, "tps = %s (including reconnection times)\n", cfloat("%f", s.TPS))
	} else {
		fmt.Fprintf(w, "initial connection time = %.3f ms\n", s.ConnectionMs)
		fmt.Fprintf(w, "tps = %s (without initial connection time)\n", cfloat("%f", s.TPS))
	}
	perScript := len(s.Scripts) > 1
	if !perScript && !s.PerCommand {
		return
	}
	var totalWeight int64
	for _, sc := range s.Scripts {
		totalWeight += int64(sc.Weight)
	}
	for i, sc := range s.Scripts {
		if perScript {
			scFailures := sc.Failures.Total()
			scTotal := sc.Processed + sc.Skipped + scFailures
			fmt.Fprintf(w, "SQL script %d: %s\n", i+1, sc.Desc)
			fmt.Fprintf(w, " - weight: %d (targets %s%% of total)\n", sc.Weight, cfloat("%.1f", pct(int64(sc.Weight), totalWeight)))
			fmt.Fprintf(w, " - %d transactions (%s%% of total, tps = %f)\n", sc.Processed, cfloat("%.1f", pct(sc.Processed, s.Processed)), sc.TPS)
			fmt.Fprintf(w, " - number of failed transactions: %d (%s%%)\n", scFailures, cfloat("%.3f", pct(scFailures, scTotal)))
			if s.FailuresDetailed {
				fmt.Fprintf(w, " - number of serialization failures: %d (%s%%)\n", sc.Failures.Serialization, cfloat("%.3f", pct(sc.Failures.Serialization, scTotal)))
				fmt.Fprintf(w, " - number of deadlock failures: %d (%s%%)\n", sc.Failures.Deadlock, cfloat("%.3f", pct(sc.Failures.Deadlock, scTotal)))
			}
			if s.MaxTries != 1 {
				fmt.Fprintf(w, " - number of transactions retried: %d (%s%%)\n", sc.Retried, cfloat("%.3f", pct(sc.Retried, scTotal)))
				fmt.Fprintf(w, " - total number of retries: %d\n", sc.Retries)
			}
			if s.Throttled && s.LatencyLimitMs > 0 {
				fmt.Fprintf(w, " - number of transactions skipped: %d (%s%%)\n", sc.Skipped, cfloat("%.3f", pct(sc.Skipped, scTotal)))
			}
			simpleStats(w, " - latency", sc.Processed, sc.LatencyAvgMs, sc.LatencyStddevMs)
		}
		if s.PerCommand {
			prefix, columns := "", " and failures"
			if perScript {
				prefix = " - "
			}
			if s.MaxTries != 1 {
				columns = ", failures and retries"
			}
			fmt.Fprintf(w, "%sstatement latencies in milliseconds%s:\n", prefix, columns)
			for _, st := range sc.Statements {
				if s.MaxTries == 1 {
					fmt.Fprintf(w, "   %11.3f  %10d  %s\n", st.LatencyMs, st.Failures, st.Text)
				} else {
					fmt.Fprintf(w, "   %11.3f  %10d  %10d  %s\n", st.LatencyMs, st.Failures, st.Retries, st.Text)
				}
			}
		}
	}
}

// simpleStats prints an average and a standard deviation, as pgbench's
// printSimpleStats: nothing when no transaction was measured.
func simpleStats(w io.Writer, prefix string, count int64, avg, stddev float64) {
	if count <= 0 {
		return
	}
	fmt.Fprintf(w, "%s average = %.3f ms\n", prefix, avg)
	fmt.Fprintf(w, "%s stddev = %.3f ms\n", prefix, stddev)
}
