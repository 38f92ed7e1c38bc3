package pgbenchcli

import (
	"strconv"
	"strings"
)

// Args renders the command as pgbench arguments that Parse reads back to
// the same Command (given the same environment): the options that differ
// from pgbench's defaults, short where pgbench has a short option, -S and
// -N for those scripts without a weight, the database name last. It never
// holds the password; it is what a result records as the command line.
func (c *Command) Args() []string {
	var a []string
	add := func(s ...string) { a = append(a, s...) }
	flag := func(on bool, f string) {
		if on {
			add(f)
		}
	}
	str := func(v, f string) {
		if v != "" {
			if strings.HasPrefix(f, "--") {
				add(f + "=" + v)
			} else {
				add(f, v)
			}
		}
	}
	num := func(v int, f string) {
		if v != 0 {
			str(strconv.Itoa(v), f)
		}
	}
	float := func(v float64, f string) {
		if v != 0 {
			str(strconv.FormatFloat(v, 'g', -1, 64), f)
		}
	}
	switch c.Mode {
	case ModeHelp:
		return []string{"--help"}
	case ModeVersion:
		return []string{"--version"}
	case ModeListBuiltins:
		return []string{"-b", "list"}
	case ModeShowScript:
		return []string{"--show-script=" + c.ShowScript}
	case ModeInit:
		add("-i")
		str(c.InitSteps, "-I")
		num(c.Scale, "-s")
		num(c.FillFactor, "-F")
		flag(c.NoVacuum, "-n")
		flag(c.Quiet, "-q")
		flag(c.ForeignKeys, "--foreign-keys")
		flag(c.UnloggedTables, "--unlogged-tables")
		num(c.Partitions, "--partitions")
		str(c.PartitionMethod, "--partition-method")
		str(c.Tablespace, "--tablespace")
		str(c.IndexTablespace, "--index-tablespace")
	default:
		for _, s := range c.Scripts {
			switch {
			case s.Implicit:
			case s.Kind == KindBuiltin && s.WeightText == "" && s.Name == "select-only":
				add("-S")
			case s.Kind == KindBuiltin && s.WeightText == "" && s.Name == "simple-update":
				add("-N")
			default:
				spec := s.Name
				if s.WeightText != "" {
					spec += "@" + s.WeightText
				}
				f := "-b"
				if s.Kind == KindFile {
					f = "-f"
				}
				add(f, spec)
			}
		}
		for _, d := range c.Defines {
			add("-D", d.Name+"="+d.Value)
		}
		if c.Clients != 1 {
			num(c.Clients, "-c")
		}
		if c.Jobs != 1 {
			num(c.Jobs, "-j")
		}
		num(c.Duration, "-T")
		if c.Duration == 0 && c.Transactions != DefaultTransactions {
			num(c.Transactions, "-t")
		}
		num(c.Progress, "-P")
		flag(c.ProgressTimestamp, "--progress-timestamp")
		if c.QueryMode != "simple" {
			str(c.QueryMode, "-M")
		}
		float(c.Rate, "-R")
		float(c.LatencyLimitMs, "-L")
		if c.MaxTries != 1 {
			add("--max-tries=" + strconv.Itoa(c.MaxTries))
		}
		flag(c.FailuresDetailed, "--failures-detailed")
		flag(c.VerboseErrors, "--verbose-errors")
		flag(c.PerCommand, "-r")
		num(c.Scale, "-s")
		flag(c.NoVacuum, "-n")
		flag(c.VacuumAll, "-v")
		flag(c.Connect, "-C")
		flag(c.Log, "-l")
		str(c.LogPrefix, "--log-prefix")
		num(c.AggregateInterval, "--aggregate-interval")
		float(c.SamplingRate, "--sampling-rate")
		str(c.RandomSeed, "--random-seed")
	}
	for range c.Debug {
		add("-d")
	}
	str(c.Host, "-h")
	str(c.Port, "-p")
	str(c.User, "-U")
	if c.DBName != "" {
		if strings.HasPrefix(c.DBName, "-") {
			add("--") // a name that reads as an option
		}
		add(c.DBName)
	}
	return a
}

// Differences says, one line per option given, where fairbench does not do
// what pgbench would: options it reads and records but does not act on.
// The CLI prints them as one note ("what it does differently") before the
// run; empty when there is nothing to say.
func (c *Command) Differences() []string {
	var d []string
	note := func(on bool, s string) {
		if on {
			d = append(d, s)
		}
	}
	if c.Mode == ModeRun {
		note(c.Log, "-l: each file's lines come in blocks of each client's (pgbench's are in the order its thread ran them)")
		note(c.Connect && c.EffectiveJobs() > 1 && c.EffectiveJobs() < c.Clients, "-j: the connection each event opens waits for its replies alone (fairbench's --jobs shares a poll among kept connections only), as if -j were -c")
	}
	note(c.Debug > 0 && c.Mode == ModeRun, "-d: every statement is printed on stderr with its arguments and client number (fairbench's --db-debug), not in pgbench's debugging lines; the figures include the printing")
	note(c.Debug > 0 && c.Mode != ModeRun, "-d: pgbench's debugging output is not printed")
	return d
}
