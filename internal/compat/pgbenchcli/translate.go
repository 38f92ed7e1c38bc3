package pgbenchcli

import (
	"strconv"
	"strings"
)

// StylePgbench is the --output-style of a run given in pgbench's form:
// pgbench's progress lines on stderr and its report on stdout.
const StylePgbench = "pgbench"

// DefaultSocketDir is where libpq looks for the server's Unix socket when
// neither -h nor PGHOST names a host (Debian's and most distributions'
// build; pgbench compiled elsewhere may use /tmp).
const DefaultSocketDir = "/var/run/postgresql"

// Translation is a pgbench command line in fairbench's own form.
type Translation struct {
	// Args are fairbench's arguments: "prepare pgbench-tpcb-like …" for -i,
	// "run WORKLOAD …" for a run.
	Args []string
	// Note is the one line that says what fairbench does differently from
	// pgbench for this command line; "" when nothing.
	Note string
}

// Translate returns c (a run or -i) as fairbench's arguments: the pgbench
// workloads with the PostgreSQL target c connects to (a Unix socket in
// DefaultSocketDir when no host is given, as libpq), pgbench's options as
// the workloads' and the run's, and --output-style=pgbench for a run.
func Translate(c *Command) Translation {
	target := []string{"--db-driver=pgsql"}
	host := c.Conn.Host
	if host == "" {
		host = DefaultSocketDir
	}
	target = append(target, "--pgsql-host="+host)
	if c.Conn.Port != "" {
		target = append(target, "--pgsql-port="+c.Conn.Port)
	}
	if c.Conn.User != "" {
		target = append(target, "--pgsql-user="+c.Conn.User)
	}
	if c.Conn.DBName != "" {
		target = append(target, "--pgsql-db="+c.Conn.DBName)
	}
	if !strings.HasPrefix(host, "/") {
		// Over TCP libpq encrypts when the server offers TLS (sslmode
		// prefer), as pgbench then does: so does the run.
		target = append(target, "--pgsql-ssl="+sslOf(c.Conn.SSLMode))
	}
	if c.Mode == ModeInit {
		return Translation{Args: append(append([]string{"prepare", "pgbench-tpcb-like"}, target...), initArgs(c)...), Note: note(c)}
	}
	args := append(append([]string{"run", workloadOf(c)}, target...), runArgs(c)...)
	return Translation{Args: args, Note: note(c)}
}

// sslOf is fairbench's --pgsql-ssl for libpq's sslmode (PGSSLMODE; ""
// is libpq's default, prefer). allow, which tries without TLS first, is
// off: a server that takes plain connections gets one, as with libpq.
func sslOf(mode string) string {
	switch mode {
	case "disable", "allow":
		return "off"
	case "require":
		return "required"
	case "verify-ca", "verify-full":
		return mode
	}
	return "on"
}

// initArgs are -i's options as the workload's.
func initArgs(c *Command) []string {
	a := []string{"--scale=" + strconv.Itoa(max(c.Scale, 1)), "--init-steps=" + c.Steps()}
	if c.FillFactor != 0 {
		a = append(a, "--fillfactor="+strconv.Itoa(c.FillFactor))
	}
	if c.UnloggedTables {
		a = append(a, "--unlogged-tables")
	}
	if c.Partitions > 0 {
		a = append(a, "--partitions="+strconv.Itoa(c.Partitions), "--partition-method="+c.EffectivePartitionMethod())
	}
	if c.Tablespace != "" {
		a = append(a, "--tablespace="+c.Tablespace)
	}
	if c.IndexTablespace != "" {
		a = append(a, "--index-tablespace="+c.IndexTablespace)
	}
	if c.Quiet {
		a = append(a, "--init-quiet")
	}
	return a
}

// workloadOf is the workload that runs c's scripts: a built-in one's own
// when it is the only script, else "pgbench" with --builtin and --script.
func workloadOf(c *Command) string {
	if len(c.Scripts) == 1 && c.Scripts[0].Kind == KindBuiltin && c.Scripts[0].WeightText == "" {
		return "pgbench-" + c.Scripts[0].Name
	}
	return "pgbench"
}

// runArgs are a run's options as the workloads' and the run's.
func runArgs(c *Command) []string {
	var a []string
	if workloadOf(c) == "pgbench" {
		for _, s := range c.Scripts {
			arg := s.Name
			if s.WeightText != "" {
				arg += "@" + s.WeightText
			}
			if s.Kind == KindBuiltin {
				a = append(a, "--builtin="+arg)
			} else {
				a = append(a, "--script="+arg)
			}
		}
	}
	a = append(a, "--threads="+strconv.Itoa(c.Clients))
	if c.Duration > 0 {
		a = append(a, "--time="+strconv.Itoa(c.Duration))
	} else {
		a = append(a, "--time=0", "--events-per-thread="+strconv.Itoa(c.Transactions))
	}
	if c.Progress > 0 {
		// Interval histograms give each progress line its latency and stddev.
		a = append(a, "--report-interval="+strconv.Itoa(c.Progress), "--interval-histograms")
	}
	mode := c.QueryMode
	if mode == "" {
		mode = "simple"
	}
	if mode == "simple" {
		a = append(a, "--db-ps-mode=disable")
	} else {
		a = append(a, "--db-ps-mode=auto")
	}
	a = append(a, "--query-mode="+mode)
	for _, d := range c.Defines {
		a = append(a, "--define="+d.Name+"="+d.Value)
	}
	if c.Rate > 0 {
		a = append(a, "--rate="+strconv.FormatFloat(c.Rate, 'f', -1, 64))
	}
	if c.LatencyLimitMs > 0 {
		a = append(a, "--latency-limit="+strconv.FormatFloat(c.LatencyLimitMs, 'f', -1, 64))
	}
	if c.PerCommand {
		a = append(a, "--report-per-command")
	}
	if c.MaxTries != 1 {
		a = append(a, "--max-tries="+strconv.Itoa(c.MaxTries))
	}
	if c.Connect {
		a = append(a, "--connect-per-event")
	} else if j := c.EffectiveJobs(); j > 1 && j < c.Clients {
		// The clients of a thread share its poll, as pgbench's do.
		a = append(a, "--jobs="+strconv.Itoa(j))
	}
	if c.Debug > 0 {
		a = append(a, "--db-debug")
	}
	a = append(a, logArgs(c)...)
	if c.Scale > 0 {
		a = append(a, "--scale="+strconv.Itoa(c.Scale))
	}
	if kind, seed := c.Seed(); kind == SeedValue {
		a = append(a, "--rand-seed="+strconv.FormatUint(seed, 10))
	}
	switch {
	case c.NoVacuum:
	case c.VacuumAll:
		a = append(a, "--vacuum-first=all")
	default:
		a = append(a, "--vacuum-first=tables")
	}
	return append(a, "--output-style="+StylePgbench)
}

// DefaultLogPrefix is the name pgbench's -l files begin with when
// --log-prefix is not given.
const DefaultLogPrefix = "pgbench_log"

// logArgs are -l's files as fairbench's --event-log: PREFIX.PID (c.PID),
// and PREFIX.PID.N for pgbench's thread N, the clients split among -j files
// as pgbench splits them among its threads; --aggregate-interval and
// --sampling-rate as they are.
func logArgs(c *Command) []string {
	if !c.Log {
		return nil
	}
	prefix := c.LogPrefix
	if prefix == "" {
		prefix = DefaultLogPrefix
	}
	a := []string{"--event-log=" + prefix + "." + strconv.Itoa(c.PID)}
	if j := c.EffectiveJobs(); j > 1 {
		a = append(a, "--event-log-files="+strconv.Itoa(j))
	}
	if c.AggregateInterval > 0 {
		a = append(a, "--event-log-aggregate="+strconv.Itoa(c.AggregateInterval))
	}
	if c.SamplingRate > 0 && c.SamplingRate < 1 {
		a = append(a, "--event-log-sample="+strconv.FormatFloat(c.SamplingRate, 'g', -1, 64))
	}
	return a
}

// note joins what fairbench does differently for c into one line.
func note(c *Command) string {
	d := c.Differences()
	if len(d) == 0 {
		return ""
	}
	return "fairbench pgbench differs from pgbench here: " + strings.Join(d, "; ")
}
