// Package pgbenchcli reads pgbench 15's command line — `pgbench [OPTION]...
// [DBNAME]`, as `fairbench pgbench` takes it — into a typed Command: the
// mode (initialize, run, or one of the commands that print and exit), every
// option pgbench 15 accepts, the scripts chosen with their weights, the -D
// variables in order, and the connection resolved with the PG* environment
// variables as pgbench and libpq resolve it.
//
// It reads the line as pgbench does (glibc's getopt_long: clustered short
// options, long options by unambiguous prefix, words anywhere) and refuses
// what pgbench refuses before it connects, with pgbench's message: each
// option's value as pgbench reads it, then pgbench's checks of the whole
// line (init-only and run-only options, -t with -T, the logging options,
// --progress-timestamp, unlimited tries), then the checks libpq makes of the
// port before connecting. It does not read -f's script files (the caller
// parses them) nor reach a server.
//
// Command.Args renders a Command back into a command line that reads to the
// same Command; Command.Differences says, one line per option, where
// fairbench does not do what pgbench would.
package pgbenchcli

import (
	"errors"
	"fmt"
	"math"
	"os/user"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/workload/pgbench/script"
)

// ExitUsage is fairbench's exit status for a command line it refuses
// (pgbench itself exits with 1).
const ExitUsage = 2

// Error is a command line pgbench would refuse: Msg is pgbench's message
// (without its "pgbench: error: " prefix), Detail and Hint the lines pgbench
// prints after it, if any.
type Error struct {
	Msg    string
	Detail string
	Hint   string
}

// Error returns the message, with the detail after it when there is one.
func (e *Error) Error() string {
	if e.Detail != "" {
		return e.Msg + " (" + e.Detail + ")"
	}
	return e.Msg
}

// ExitCode is ExitUsage: the command line is bad input.
func (e *Error) ExitCode() int { return ExitUsage }

// errorf builds an Error with pgbench's message.
func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Mode is what the command line asks pgbench to do.
type Mode string

// The modes. Help, Version, ListBuiltins and ShowScript print and exit
// before anything else is checked.
const (
	ModeRun          Mode = "run"           // run the benchmark
	ModeInit         Mode = "init"          // -i: create and fill the tables
	ModeHelp         Mode = "help"          // --help or -? as the first argument
	ModeVersion      Mode = "version"       // --version or -V as the first argument
	ModeListBuiltins Mode = "list-builtins" // -b list: the built-in scripts
	ModeShowScript   Mode = "show-script"   // --show-script=NAME: one built-in script's code
)

// ScriptKind says where a script comes from.
type ScriptKind string

// The kinds of script.
const (
	KindBuiltin ScriptKind = "builtin" // -b NAME, -S, -N, the default
	KindFile    ScriptKind = "file"    // -f FILE
)

// MaxScripts is how many scripts pgbench accepts.
const MaxScripts = 128

// DefaultInitSteps are -i's steps when -I is not given.
const DefaultInitSteps = "dtgvp"

// AllInitSteps are the step letters -I accepts.
const AllInitSteps = "dtgGvpf"

// DefaultTransactions is -t when neither -t nor -T is given.
const DefaultTransactions = 10

// Script is one script chosen to run.
type Script struct {
	Kind ScriptKind
	// Name is the built-in script's full name ("select-only", also for
	// "-b sel" or -S) or the file as given to -f.
	Name string
	// WeightText is what followed the last "@", as written; "" when there
	// was no "@" (weight 1).
	WeightText string
	// Weight is the weight pgbench read.
	Weight int
	// Implicit marks the tpcb-like script a run gets when it names none.
	Implicit bool
}

// Define is one -D NAME=VALUE.
type Define struct{ Name, Value string }

// Conn is where the command line connects, resolved as pgbench and libpq
// resolve it: the options, else the PG* environment variables, else libpq's
// defaults (left empty here: a Unix socket, port 5432).
type Conn struct {
	// Host is -h, else PGHOST; "" for libpq's default socket. It may list
	// hosts separated by commas, as libpq allows.
	Host string
	// Port is -p, else PGPORT; "" for 5432. Each port of a list is 1..65535.
	Port string
	// User is -U, else PGUSER, else the operating system's user name.
	User string
	// DBName is the DBNAME argument, else PGDATABASE, else PGUSER, else the
	// operating system's user name (not -U: pgbench's own rule).
	DBName string
	// Password is PGPASSWORD. It is never rendered (Args, Differences).
	Password string
	// SSLMode is PGSSLMODE; "" for libpq's default, prefer (TLS over TCP
	// when the server offers it).
	SSLMode string
}

// Command is pgbench 15's command line, read.
type Command struct {
	Mode Mode
	// ShowScript is --show-script's built-in script (full name).
	ShowScript string

	// Initialization (-i) options.

	// InitSteps is -I as given; "" when not given (DefaultInitSteps). Steps
	// applies -n and --foreign-keys to it.
	InitSteps string
	// FillFactor is -F (10..100); 0 when not given (pgbench's 100).
	FillFactor int
	// Quiet is -q: a progress line every 5 seconds instead of every 100,000 rows.
	Quiet          bool
	ForeignKeys    bool // --foreign-keys
	UnloggedTables bool // --unlogged-tables
	// Partitions is --partitions; 0 leaves pgbench_accounts unpartitioned.
	Partitions int
	// PartitionMethod is --partition-method, lower case ("range", "hash");
	// "" when not given (range when Partitions > 0).
	PartitionMethod string
	Tablespace      string // --tablespace
	IndexTablespace string // --index-tablespace

	// Options of both modes.

	// Scale is -s; 0 when not given. In a run it is :scale of file scripts
	// (1 when not given): a run with a built-in script reads the scale from
	// the rows of pgbench_branches instead, and pgbench warns
	// (pgbenchout.ScaleIgnoredWarning) when -s was given (ScaleIgnored). A
	// -D scale=N wins over both.
	Scale int
	// NoVacuum is -n: no VACUUM in the init steps, none before a run.
	NoVacuum bool
	// Debug counts -d (--debug).
	Debug int

	// Benchmarking options.

	Clients int // -c, 1 by default
	// Jobs is -j as given, 1 by default; EffectiveJobs is what pgbench uses.
	Jobs int
	// Duration is -T in seconds; 0 when the run counts transactions.
	Duration int
	// Transactions is -t per client: DefaultTransactions when neither -t
	// nor -T is given, 0 with -T.
	Transactions int
	// Progress is -P in seconds; 0 for no progress lines.
	Progress          int
	ProgressTimestamp bool // --progress-timestamp
	// QueryMode is -M: "simple" (default), "extended" or "prepared".
	QueryMode string
	// Scripts are -b, -f, -S and -N in order, or the implicit tpcb-like.
	Scripts []Script
	// Defines are -D in order (a later one of the same name wins).
	Defines []Define
	// Rate is -R in transactions per second; 0 for no rate limit.
	Rate float64
	// LatencyLimitMs is -L in milliseconds; 0 for none.
	LatencyLimitMs float64
	// PerCommand is -r: latencies, failures and retries per statement.
	PerCommand bool
	// VacuumAll is -v: also VACUUM pgbench_accounts before the run.
	VacuumAll bool
	// Connect is -C: a new connection for every transaction.
	Connect bool
	// Log is -l: per-transaction log files; LogPrefix, AggregateInterval
	// and SamplingRate shape them.
	Log               bool
	LogPrefix         string  // --log-prefix; "" for pgbench_log
	AggregateInterval int     // --aggregate-interval in seconds
	SamplingRate      float64 // --sampling-rate, a fraction in (0, 1]
	// PID names -l's files (pgbench_log.PID), pgbench's process id there:
	// the caller sets it (Parse leaves it 0).
	PID int
	// MaxTries is --max-tries (1 by default; 0 for unlimited tries within
	// -T or -L).
	MaxTries         int
	FailuresDetailed bool // --failures-detailed
	VerboseErrors    bool // --verbose-errors
	// RandomSeed is --random-seed as given ("time", "rand" or an integer);
	// "" when not given. Seed resolves it.
	RandomSeed string
	// EnvRandomSeed is PGBENCH_RANDOM_SEED, which --random-seed overrides.
	EnvRandomSeed string

	// Connection options as given; Conn is the connection they resolve to.

	Host   string // -h
	Port   string // -p
	User   string // -U
	DBName string // the DBNAME argument
	Conn   Conn
}

// currentUser is the operating system's user name, pgbench's last default
// for the user and the database (tests replace it).
var currentUser = func() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// parser holds what pgbench tracks while reading the options but does not
// keep: which options of each mode were given, and which were given at all.
type parser struct {
	c              *Command
	benchmarkOpt   bool // an option only a run takes was given
	initOpt        bool // an option only -i takes was given
	logPrefixGiven bool
	samplingGiven  bool
	maxTriesGiven  bool
}

// Parse reads pgbench 15's arguments (without the program name); env reads
// the environment (os.Getenv; an empty variable reads as unset, where
// pgbench refuses an empty PGBENCH_RANDOM_SEED). It returns the Command, or
// an *Error with pgbench's message for a line pgbench refuses before
// connecting. It does not open -f's files: pgbench refuses a file it cannot
// read while reading the options, the caller when it reads the scripts.
func Parse(args []string, env func(string) string) (*Command, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			return &Command{Mode: ModeHelp}, nil
		case "--version", "-V":
			return &Command{Mode: ModeVersion}, nil
		}
	}
	c := &Command{Mode: ModeRun, Clients: 1, Jobs: 1, QueryMode: "simple", MaxTries: 1}
	p := &parser{c: c}
	if s := env("PGBENCH_RANDOM_SEED"); s != "" {
		if err := checkSeed(s); err != nil {
			err.Detail += " It comes from the PGBENCH_RANDOM_SEED environment variable."
			return nil, err
		}
		c.EnvRandomSeed = s
	}
	var done *Command // -b list, --show-script: pgbench prints and exits there
	words, stopped, err := getopt(args, env("POSIXLY_CORRECT") != "", func(name, value string) (bool, error) {
		var err error
		done, err = p.option(name, value)
		return done != nil, err
	})
	if err != nil {
		return nil, err
	}
	if stopped {
		return done, nil
	}
	if err := p.finish(words, env); err != nil {
		return nil, err
	}
	return c, nil
}

// option reads one option as pgbench's option loop does. It returns a
// Command when the option ends pgbench there (-b list, --show-script).
func (p *parser) option(name, v string) (*Command, error) {
	c := p.c
	var err error
	switch name {
	case "builtin":
		if v == "list" {
			return &Command{Mode: ModeListBuiltins}, nil
		}
		p.benchmarkOpt = true
		err = p.addScript(KindBuiltin, v)
	case "file":
		p.benchmarkOpt = true
		err = p.addScript(KindFile, v)
	case "select-only", "skip-some-updates":
		p.benchmarkOpt = true
		err = p.addScript(KindBuiltin, map[string]string{"select-only": "select-only", "skip-some-updates": "simple-update"}[name])
	case "client":
		p.benchmarkOpt = true
		c.Clients, err = parseIntOption(v, "-c/--client", 1, maxInt)
	case "jobs":
		p.benchmarkOpt = true
		c.Jobs, err = parseIntOption(v, "-j/--jobs", 1, maxInt)
	case "time":
		p.benchmarkOpt = true
		c.Duration, err = parseIntOption(v, "-T/--time", 1, maxInt)
	case "transactions":
		p.benchmarkOpt = true
		c.Transactions, err = parseIntOption(v, "-t/--transactions", 1, maxInt)
	case "progress":
		p.benchmarkOpt = true
		c.Progress, err = parseIntOption(v, "-P/--progress", 1, maxInt)
	case "aggregate-interval":
		p.benchmarkOpt = true
		c.AggregateInterval, err = parseIntOption(v, "--aggregate-interval", 1, maxInt)
	case "scale":
		c.Scale, err = parseIntOption(v, "-s/--scale", 1, maxInt)
	case "fillfactor":
		p.initOpt = true
		c.FillFactor, err = parseIntOption(v, "-F/--fillfactor", 10, 100)
	case "partitions":
		p.initOpt = true
		c.Partitions, err = parseIntOption(v, "--partitions", 0, maxInt)
	case "connect":
		p.benchmarkOpt, c.Connect = true, true
	case "debug":
		c.Debug++
	case "define":
		p.benchmarkOpt = true
		err = p.define(v)
	case "host":
		c.Host = v
	case "port":
		c.Port = v
	case "username":
		c.User = v
	case "initialize":
		c.Mode = ModeInit
	case "init-steps":
		p.initOpt = true
		c.InitSteps = v
		err = checkInitSteps(v)
	case "log":
		p.benchmarkOpt, c.Log = true, true
	case "latency-limit":
		ms := atof(v)
		if ms <= 0 {
			return nil, errorf(`invalid latency limit: "%s"`, v)
		}
		p.benchmarkOpt, c.LatencyLimitMs = true, ms
		err = finite(ms, "-L/--latency-limit", v)
	case "protocol":
		p.benchmarkOpt = true
		switch v {
		case "simple", "extended", "prepared":
			c.QueryMode = v
		default:
			err = errorf(`invalid query mode (-M): "%s"`, v)
		}
	case "no-vacuum":
		c.NoVacuum = true
	case "quiet":
		p.initOpt, c.Quiet = true, true
	case "report-per-command":
		p.benchmarkOpt, c.PerCommand = true, true
	case "rate":
		r := atof(v)
		p.benchmarkOpt = true
		if r <= 0 {
			return nil, errorf(`invalid rate limit: "%s"`, v)
		}
		c.Rate = r
		err = finite(r, "-R/--rate", v)
	case "vacuum-all":
		p.benchmarkOpt, c.VacuumAll = true, true
	case "unlogged-tables":
		p.initOpt, c.UnloggedTables = true, true
	case "tablespace":
		p.initOpt, c.Tablespace = true, v
	case "index-tablespace":
		p.initOpt, c.IndexTablespace = true, v
	case "sampling-rate":
		p.benchmarkOpt, p.samplingGiven = true, true
		r := atof(v)
		if r <= 0 || r > 1 {
			return nil, errorf(`invalid sampling rate: "%s"`, v)
		}
		c.SamplingRate = r
		err = finite(r, "--sampling-rate", v)
	case "progress-timestamp":
		p.benchmarkOpt, c.ProgressTimestamp = true, true
	case "log-prefix":
		p.benchmarkOpt, p.logPrefixGiven, c.LogPrefix = true, true, v
	case "foreign-keys":
		p.initOpt, c.ForeignKeys = true, true
	case "random-seed":
		p.benchmarkOpt = true
		if err := checkSeed(v); err != nil {
			return nil, err
		}
		c.RandomSeed = v
	case "show-script":
		b, err := findBuiltin(v)
		if err != nil {
			return nil, err
		}
		return &Command{Mode: ModeShowScript, ShowScript: b}, nil
	case "partition-method":
		p.initOpt = true
		switch m := strings.ToLower(v); m {
		case "range", "hash":
			c.PartitionMethod = m
		default:
			err = errorf(`invalid partition method, expecting "range" or "hash", got: "%s"`, v)
		}
	case "failures-detailed":
		p.benchmarkOpt, c.FailuresDetailed = true, true
	case "max-tries":
		n := atoi(v)
		if n < 0 {
			return nil, errorf(`invalid number of maximum tries: "%s"`, v)
		}
		p.benchmarkOpt, p.maxTriesGiven, c.MaxTries = true, true, int(n)
	case "verbose-errors":
		p.benchmarkOpt, c.VerboseErrors = true, true
	default:
		return nil, errors.New("pgbenchcli: option --" + name + " is in the table but not read") // a bug of this package
	}
	return nil, err
}

// maxInt is C's INT_MAX, the upper bound of pgbench's integer options.
const maxInt = 1<<31 - 1

// finite refuses an infinite or NaN rate, latency limit or sampling rate,
// which pgbench's atof reads ("inf", "nan") and pgbench's checks let
// through, and which mean nothing fairbench could do.
func finite(v float64, flag, text string) error {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return &Error{Msg: flag + ` must be a finite number, not "` + text + `" (pgbench reads it as ` + strconv.FormatFloat(v, 'g', -1, 64) + `; fairbench refuses it)`}
	}
	return nil
}

// addScript reads -b NAME[@W], -f FILE[@W], -S and -N (a name without
// weight) as pgbench's parseScriptWeight and findBuiltin do.
func (p *parser) addScript(kind ScriptKind, spec string) error {
	s := Script{Kind: kind, Name: spec, Weight: 1}
	if at := strings.LastIndexByte(spec, '@'); at >= 0 {
		s.Name, s.WeightText = spec[:at], spec[at+1:]
		w, rest, digits, overflow := strtol(s.WeightText)
		if !digits || rest != "" || overflow {
			return errorf("invalid weight specification: %s", spec[at:])
		}
		if w < 0 || w > maxInt {
			return errorf("weight specification out of range (0 .. %d): %d", maxInt, w)
		}
		s.Weight = int(w)
	}
	if kind == KindBuiltin {
		name, err := findBuiltin(s.Name)
		if err != nil {
			return err
		}
		s.Name = name
	}
	if len(p.c.Scripts) >= MaxScripts {
		return errorf("at most %d SQL scripts are allowed", MaxScripts)
	}
	p.c.Scripts = append(p.c.Scripts, s)
	return nil
}

// findBuiltin finds a built-in script by its name or a prefix of it.
func findBuiltin(name string) (string, error) {
	var found []string
	for _, b := range script.BuiltinNames() {
		if strings.HasPrefix(b, name) {
			found = append(found, b)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	e := errorf(`no builtin script found for name "%s"`, name)
	if len(found) > 1 {
		e = errorf(`ambiguous builtin name: %d builtin scripts found for prefix "%s"`, len(found), name)
	}
	e.Detail = "available builtin scripts: " + strings.Join(script.BuiltinNames(), ", ")
	return "", e
}

// define reads -D NAME=VALUE: a name and a value, the name a pgbench
// variable name (a letter, "_" or a non-ASCII byte first, then also digits).
func (p *parser) define(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" || value == "" {
		return errorf(`invalid variable definition: "%s"`, v)
	}
	if !validVariableName(name) {
		return errorf(`option: invalid variable name: "%s"`, name)
	}
	p.c.Defines = append(p.c.Defines, Define{Name: name, Value: value})
	return nil
}

// validVariableName is pgbench's valid_variable_name.
func validVariableName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 0x80 || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && isDec(c)
		if !ok {
			return false
		}
	}
	return name != ""
}

// checkInitSteps is pgbench's checkInitSteps: step letters, blanks ignored.
func checkInitSteps(steps string) error {
	if steps == "" {
		return errorf("no initialization steps specified")
	}
	for i := 0; i < len(steps); i++ {
		if steps[i] != ' ' && strings.IndexByte(AllInitSteps, steps[i]) < 0 {
			e := errorf(`unrecognized initialization step "%s"`, steps[i:i+1])
			e.Detail = `Allowed step characters are: "` + AllInitSteps + `".`
			return e
		}
	}
	return nil
}

// checkSeed checks a random seed as pgbench's set_random_seed.
func checkSeed(s string) *Error {
	if s == "time" || s == "rand" {
		return nil
	}
	if _, ok := parseSeed(s); !ok {
		return &Error{Msg: `unrecognized random seed option "` + s + `"`, Detail: `Expecting an unsigned integer, "time" or "rand".`}
	}
	return nil
}

// finish makes pgbench's checks of the whole line, in pgbench's order, and
// resolves the defaults and the connection.
func (p *parser) finish(words []string, env func(string) string) error {
	c := p.c
	if len(c.Scripts) == 0 && c.Mode == ModeRun {
		c.Scripts = []Script{{Kind: KindBuiltin, Name: "tpcb-like", Weight: 1, Implicit: true}}
		p.benchmarkOpt = true
	}
	if c.Mode == ModeRun && c.TotalWeight() == 0 {
		return errorf("total script weight must not be zero")
	}
	if len(words) > 0 {
		c.DBName = words[0]
	}
	if len(words) > 1 {
		return &Error{Msg: `too many command-line arguments (first is "` + words[1] + `")`, Hint: `Try "pgbench --help" for more information.`}
	}
	if c.Mode == ModeInit {
		if p.benchmarkOpt {
			return errorf("some of the specified options cannot be used in initialization (-i) mode")
		}
		if c.Partitions == 0 && c.PartitionMethod != "" {
			return errorf("--partition-method requires greater than zero --partitions")
		}
	} else {
		if p.initOpt {
			return errorf("some of the specified options cannot be used in benchmarking mode")
		}
		if c.Transactions > 0 && c.Duration > 0 {
			return errorf("specify either a number of transactions (-t) or a duration (-T), not both")
		}
		if c.Transactions == 0 && c.Duration == 0 {
			c.Transactions = DefaultTransactions
		}
		if p.samplingGiven && !c.Log {
			return errorf("log sampling (--sampling-rate) is allowed only when logging transactions (-l)")
		}
		if p.samplingGiven && c.AggregateInterval > 0 {
			return errorf("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
		}
		if c.AggregateInterval > 0 && !c.Log {
			return errorf("log aggregation is allowed only when actually logging transactions")
		}
		if !c.Log && p.logPrefixGiven {
			return errorf("log file prefix (--log-prefix) is allowed only when logging transactions (-l)")
		}
		if c.Duration > 0 && c.AggregateInterval > c.Duration {
			return errorf("number of seconds for aggregation (%d) must not be higher than test duration (%d)", c.AggregateInterval, c.Duration)
		}
		if c.Duration > 0 && c.AggregateInterval > 0 && c.Duration%c.AggregateInterval != 0 {
			return errorf("duration (%d) must be a multiple of aggregation interval (%d)", c.Duration, c.AggregateInterval)
		}
		if c.ProgressTimestamp && c.Progress == 0 {
			return errorf("--progress-timestamp is allowed only under --progress")
		}
		if c.MaxTries == 0 && c.LatencyLimitMs == 0 && c.Duration == 0 {
			return errorf("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
		}
	}
	c.Conn = resolveConn(c, env)
	return checkPorts(c.Conn)
}

// resolveConn applies pgbench's and libpq's precedence: an option given
// (not empty), else its environment variable, else the default.
func resolveConn(c *Command, env func(string) string) Conn {
	first := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	osUser := ""
	lazyUser := func() string {
		if osUser == "" {
			osUser = currentUser()
		}
		return osUser
	}
	conn := Conn{
		Host:     first(c.Host, env("PGHOST")),
		Port:     first(c.Port, env("PGPORT")),
		User:     first(c.User, env("PGUSER")),
		DBName:   first(c.DBName, env("PGDATABASE"), env("PGUSER")),
		Password: env("PGPASSWORD"),
		SSLMode:  env("PGSSLMODE"),
	}
	if conn.User == "" {
		conn.User = lazyUser()
	}
	if conn.DBName == "" {
		conn.DBName = lazyUser()
	}
	return conn
}

// checkPorts makes libpq's checks of the port before it connects: one port,
// or one per host; each an integer (blanks around it allowed) in 1..65535,
// an empty one meaning the default.
func checkPorts(conn Conn) error {
	if conn.Port == "" {
		return nil
	}
	ports := strings.Split(conn.Port, ",")
	hosts := 1
	if conn.Host != "" {
		hosts = len(strings.Split(conn.Host, ","))
	}
	if len(ports) > 1 && len(ports) != hosts {
		return errorf("could not match %d port numbers to %d hosts", len(ports), hosts)
	}
	for _, port := range ports {
		if port == "" {
			continue
		}
		v, rest, digits, overflow := strtol(port)
		if !digits || strings.TrimLeft(rest, " \t\n\v\f\r") != "" || overflow || v < -1<<31 || v > maxInt {
			return errorf(`invalid integer value "%s" for connection option "port"`, port)
		}
		if v < 1 || v > 65535 {
			return errorf(`invalid port number: "%s"`, port)
		}
	}
	return nil
}

// TotalWeight is the sum of the scripts' weights.
func (c *Command) TotalWeight() int64 {
	var w int64
	for _, s := range c.Scripts {
		w += int64(s.Weight)
	}
	return w
}

// Steps are the init steps -i runs: -I (or DefaultInitSteps) without its
// blanks, without "v" under -n, with "f" added by --foreign-keys.
func (c *Command) Steps() string {
	steps := c.InitSteps
	if steps == "" {
		steps = DefaultInitSteps
	}
	steps = strings.ReplaceAll(steps, " ", "")
	if c.NoVacuum {
		steps = strings.ReplaceAll(steps, "v", "")
	}
	if c.ForeignKeys && !strings.Contains(steps, "f") {
		steps += "f"
	}
	return steps
}

// EffectiveJobs is the number of threads pgbench runs: -j, at most -c.
func (c *Command) EffectiveJobs() int {
	return min(c.Jobs, c.Clients)
}

// EffectivePartitionMethod is the partitioning -i creates: "" without
// --partitions, else --partition-method or "range".
func (c *Command) EffectivePartitionMethod() string {
	switch {
	case c.Partitions == 0:
		return ""
	case c.PartitionMethod == "":
		return "range"
	}
	return c.PartitionMethod
}

// BuiltinUsed reports whether a run uses a built-in script: pgbench then
// reads the scale (and the partitioning) from the tables.
func (c *Command) BuiltinUsed() bool {
	for _, s := range c.Scripts {
		if s.Kind == KindBuiltin {
			return true
		}
	}
	return false
}

// ScaleIgnored reports whether pgbench warns that it ignores -s
// (pgbenchout.ScaleIgnoredWarning): -s given to a run with a built-in
// script.
func (c *Command) ScaleIgnored() bool {
	return c.Mode == ModeRun && c.Scale != 0 && c.BuiltinUsed()
}

// SeedKind says how the random seed is chosen.
type SeedKind string

// The kinds of seed.
const (
	SeedTime  SeedKind = "time"  // from the clock (pgbench's default)
	SeedRand  SeedKind = "rand"  // from a strong random source
	SeedValue SeedKind = "value" // the integer given
)

// Seed is the random seed of a run: --random-seed, else
// PGBENCH_RANDOM_SEED, else the time; value is the integer of SeedValue.
func (c *Command) Seed() (kind SeedKind, value uint64) {
	s := c.RandomSeed
	if s == "" {
		s = c.EnvRandomSeed
	}
	switch s {
	case "", "time":
		return SeedTime, 0
	case "rand":
		return SeedRand, 0
	}
	v, _ := parseSeed(s)
	return SeedValue, v
}
