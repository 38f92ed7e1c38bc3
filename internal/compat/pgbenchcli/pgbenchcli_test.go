package pgbenchcli

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// testUser is the operating system's user name in these tests.
const testUser = "osuser"

func init() { currentUser = func() string { return testUser } }

// envOf is an environment of NAME=VALUE pairs.
func envOf(pairs ...string) func(string) string {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// tpcb is the implicit script of a run that names none.
var tpcb = Script{Kind: KindBuiltin, Name: "tpcb-like", Weight: 1, Implicit: true}

// runCmd is a run with pgbench's defaults, changed by mod.
func runCmd(mod func(c *Command)) *Command {
	c := &Command{Mode: ModeRun, Clients: 1, Jobs: 1, QueryMode: "simple", MaxTries: 1,
		Transactions: DefaultTransactions, Scripts: []Script{tpcb},
		Conn: Conn{User: testUser, DBName: testUser}}
	if mod != nil {
		mod(c)
	}
	return c
}

// initCmd is -i with pgbench's defaults, changed by mod.
func initCmd(mod func(c *Command)) *Command {
	c := &Command{Mode: ModeInit, Clients: 1, Jobs: 1, QueryMode: "simple", MaxTries: 1,
		Conn: Conn{User: testUser, DBName: testUser}}
	if mod != nil {
		mod(c)
	}
	return c
}

// goodLines are command lines from pgbench's documentation and common use,
// with what they read to. Each is accepted by real pgbench up to connecting
// (TestGoodLinesAgainstPgbench).
var goodLines = []struct {
	args string   // split on spaces
	env  []string // NAME=VALUE
	want *Command
}{
	{"-i -s 100", nil, initCmd(func(c *Command) { c.Scale = 100 })},
	{"-i -s 10 bench", nil, initCmd(func(c *Command) { c.Scale = 10; c.DBName = "bench"; c.Conn.DBName = "bench" })},
	{"-i -I dtGvp -s 10 --partitions=4 --partition-method=hash", nil, initCmd(func(c *Command) {
		c.InitSteps, c.Scale, c.Partitions, c.PartitionMethod = "dtGvp", 10, 4, "hash"
	})},
	{"-i -n -q -F 90 --foreign-keys --unlogged-tables --tablespace=ts1 --index-tablespace ts2 --partitions 2", nil, initCmd(func(c *Command) {
		c.NoVacuum, c.Quiet, c.FillFactor, c.ForeignKeys, c.UnloggedTables = true, true, 90, true, true
		c.Tablespace, c.IndexTablespace, c.Partitions = "ts1", "ts2", 2
	})},
	{"--initialize --scale=50 --no-vacuum --partition-method=RANGE --partitions=8", nil, initCmd(func(c *Command) {
		c.Scale, c.NoVacuum, c.PartitionMethod, c.Partitions = 50, true, "range", 8
	})},
	{"-c 16 -j 4 -T 60 -P 10 -M prepared", nil, runCmd(func(c *Command) {
		c.Clients, c.Jobs, c.Duration, c.Transactions, c.Progress, c.QueryMode = 16, 4, 60, 0, 10, "prepared"
	})},
	{"-c8 -j2 -T60 bench", nil, runCmd(func(c *Command) {
		c.Clients, c.Jobs, c.Duration, c.Transactions, c.DBName, c.Conn.DBName = 8, 2, 60, 0, "bench", "bench"
	})},
	{"-S -c 8 -T 30", nil, runCmd(func(c *Command) {
		c.Scripts = []Script{{Kind: KindBuiltin, Name: "select-only", Weight: 1}}
		c.Clients, c.Duration, c.Transactions = 8, 30, 0
	})},
	{"-Sn -c 8 -t 1000", nil, runCmd(func(c *Command) {
		c.Scripts = []Script{{Kind: KindBuiltin, Name: "select-only", Weight: 1}}
		c.NoVacuum, c.Clients, c.Transactions = true, 8, 1000
	})},
	{"-N", nil, runCmd(func(c *Command) { c.Scripts = []Script{{Kind: KindBuiltin, Name: "simple-update", Weight: 1}} })},
	{"-b simple-update@2 -b select-only@8", nil, runCmd(func(c *Command) {
		c.Scripts = []Script{{Kind: KindBuiltin, Name: "simple-update", WeightText: "2", Weight: 2}, {Kind: KindBuiltin, Name: "select-only", WeightText: "8", Weight: 8}}
	})},
	{"--builtin=tpcb --builtin sel@3 -N", nil, runCmd(func(c *Command) {
		c.Scripts = []Script{{Kind: KindBuiltin, Name: "tpcb-like", Weight: 1}, {Kind: KindBuiltin, Name: "select-only", WeightText: "3", Weight: 3}, {Kind: KindBuiltin, Name: "simple-update", Weight: 1}}
	})},
	{"-f a.sql@1 -f b.sql@3 -D x=5", nil, runCmd(func(c *Command) {
		c.Scripts = []Script{{Kind: KindFile, Name: "a.sql", WeightText: "1", Weight: 1}, {Kind: KindFile, Name: "b.sql", WeightText: "3", Weight: 3}}
		c.Defines = []Define{{"x", "5"}}
	})},
	{"-f a.sql -D x=5 -D y=a=b -D x=6 -s 3", nil, runCmd(func(c *Command) {
		c.Scripts = []Script{{Kind: KindFile, Name: "a.sql", Weight: 1}}
		c.Defines = []Define{{"x", "5"}, {"y", "a=b"}, {"x", "6"}}
		c.Scale = 3
	})},
	{"-R 500 -L 10", nil, runCmd(func(c *Command) { c.Rate, c.LatencyLimitMs = 500, 10 })},
	{"-c 4 -T 60 --rate=250.5 --latency-limit=2.5 -P 5 --progress-timestamp", nil, runCmd(func(c *Command) {
		c.Clients, c.Duration, c.Transactions, c.Rate, c.LatencyLimitMs, c.Progress, c.ProgressTimestamp = 4, 60, 0, 250.5, 2.5, 5, true
	})},
	{"--max-tries=5 --latency-limit=50", nil, runCmd(func(c *Command) { c.MaxTries, c.LatencyLimitMs = 5, 50 })},
	{"-T 60 --max-tries 0 --failures-detailed --verbose-errors", nil, runCmd(func(c *Command) {
		c.Duration, c.Transactions, c.MaxTries, c.FailuresDetailed, c.VerboseErrors = 60, 0, 0, true, true
	})},
	{"-c 4 -t 1000 -r", nil, runCmd(func(c *Command) { c.Clients, c.Transactions, c.PerCommand = 4, 1000, true })},
	{"-C -v -l --log-prefix=run1 --aggregate-interval=10 -T 60", nil, runCmd(func(c *Command) {
		c.Connect, c.VacuumAll, c.Log, c.LogPrefix, c.AggregateInterval, c.Duration, c.Transactions = true, true, true, "run1", 10, 60, 0
	})},
	{"-l --sampling-rate=0.01 -d --random-seed=42", nil, runCmd(func(c *Command) {
		c.Log, c.SamplingRate, c.Debug, c.RandomSeed = true, 0.01, 1, "42"
	})},
	{"-h db.example -p 5433 -U alice bench", nil, runCmd(func(c *Command) {
		c.Host, c.Port, c.User, c.DBName = "db.example", "5433", "alice", "bench"
		c.Conn = Conn{Host: "db.example", Port: "5433", User: "alice", DBName: "bench"}
	})},
	{"-c 2", []string{"PGHOST=/var/run/postgresql", "PGPORT=5432", "PGUSER=bob", "PGPASSWORD=s3cret"}, runCmd(func(c *Command) {
		c.Clients = 2
		c.Conn = Conn{Host: "/var/run/postgresql", Port: "5432", User: "bob", DBName: "bob", Password: "s3cret"}
	})},
	{"-U alice", []string{"PGDATABASE=shop", "PGHOST=h1", "PGBENCH_RANDOM_SEED=7"}, runCmd(func(c *Command) {
		c.User, c.EnvRandomSeed = "alice", "7"
		c.Conn = Conn{Host: "h1", User: "alice", DBName: "shop"}
	})},
	{"-U alice", nil, runCmd(func(c *Command) { c.User = "alice"; c.Conn.User = "alice" })}, // the database is still the OS user's
	{"bench -c 4 -- ", nil, runCmd(func(c *Command) { c.DBName, c.Conn.DBName, c.Clients = "bench", "bench", 4 })},
	{"-h a,b -p 5432,5433", nil, runCmd(func(c *Command) {
		c.Host, c.Port, c.Conn.Host, c.Conn.Port = "a,b", "5432,5433", "a,b", "5432,5433"
	})},
	{"--cl=3 --tr 7 --no-v --rep", nil, runCmd(func(c *Command) { c.Clients, c.Transactions, c.NoVacuum, c.PerCommand = 3, 7, true, true })},
	{"-s 5 -S", nil, runCmd(func(c *Command) {
		c.Scale, c.Scripts = 5, []Script{{Kind: KindBuiltin, Name: "select-only", Weight: 1}}
	})},
	{"-i -d -d", nil, initCmd(func(c *Command) { c.Debug = 2 })},
	{"--help", nil, &Command{Mode: ModeHelp}},
	{"-V -c 0", nil, &Command{Mode: ModeVersion}},
	{"-c 4 -b list -c 0", nil, &Command{Mode: ModeListBuiltins}},
	{"--show-script=se -c 0", nil, &Command{Mode: ModeShowScript, ShowScript: "select-only"}},
}

// TestGoodLines reads each line to its typed Command, renders it back with
// Args and reads that to the same Command.
func TestGoodLines(t *testing.T) {
	if len(goodLines) < 20 {
		t.Fatalf("only %d command lines", len(goodLines))
	}
	for _, tc := range goodLines {
		c, err := Parse(strings.Fields(tc.args), envOf(tc.env...))
		if err != nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(c, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.args, c, tc.want)
			continue
		}
		again, err := Parse(c.Args(), envOf(tc.env...))
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Errorf("%s renders as %q, which reads to %+v, %v", tc.args, c.Args(), again, err)
		}
		if slices.ContainsFunc(c.Args(), func(a string) bool { return strings.Contains(a, "s3cret") }) {
			t.Errorf("%s: Args shows the password: %q", tc.args, c.Args())
		}
	}
}

// TestArgsReadable holds the rendering of a few lines, as a result records them.
func TestArgsReadable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"-c8 -j2 -T60 -P10 -Mprepared bench", "-c 8 -j 2 -T 60 -P 10 -M prepared bench"},
		{"-S -b simple@2 -f x.sql", "-S -b simple-update@2 -f x.sql"},
		{"-i -s 10 --partitions=4", "-i -s 10 --partitions=4"},
		{"-t 10 -- -odd", "-- -odd"},
	} {
		c, err := Parse(strings.Fields(tc.in), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := strings.Join(c.Args(), " "); got != tc.want {
			t.Errorf("%s renders as %q, want %q", tc.in, got, tc.want)
		}
	}
}

// badLines are lines real pgbench 15 refuses before it connects, with
// pgbench's message (TestBadLinesAgainstPgbench runs pgbench on each).
var badLines = []struct {
	args string
	env  []string
	want string
}{
	{"-c 0", nil, "-c/--client must be in range 1..2147483647"},
	{"-c x", nil, `invalid value "x" for option -c/--client`},
	{"-c 8x", nil, `invalid value "8x" for option -c/--client`},
	{"-c 99999999999", nil, "-c/--client must be in range 1..2147483647"},
	{"-j 0", nil, "-j/--jobs must be in range 1..2147483647"},
	{"-T 0", nil, "-T/--time must be in range 1..2147483647"},
	{"-t -5", nil, "-t/--transactions must be in range 1..2147483647"},
	{"-T 5 -t 5", nil, "specify either a number of transactions (-t) or a duration (-T), not both"},
	{"-s 1.5", nil, `invalid value "1.5" for option -s/--scale`},
	{"-i -F 5", nil, "-F/--fillfactor must be in range 10..100"},
	{"-P 0", nil, "-P/--progress must be in range 1..2147483647"},
	{"-M foo", nil, `invalid query mode (-M): "foo"`},
	{"-b foo", nil, `no builtin script found for name "foo"`},
	{"-b s", nil, `ambiguous builtin name: 2 builtin scripts found for prefix "s"`},
	{"-b simple@x", nil, "invalid weight specification: @x"},
	{"-b simple@", nil, "invalid weight specification: @"},
	{"-b simple@-1", nil, "weight specification out of range (0 .. 2147483647): -1"},
	{"-b simple@0", nil, "total script weight must not be zero"},
	{"-R 0", nil, `invalid rate limit: "0"`},
	{"-R x", nil, `invalid rate limit: "x"`},
	{"-L -1", nil, `invalid latency limit: "-1"`},
	{"--max-tries=-1", nil, `invalid number of maximum tries: "-1"`},
	{"--max-tries=0", nil, "an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)"},
	{"--max-tries=x -t 5", nil, "an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)"},
	{"-i --partitions=-1", nil, "--partitions must be in range 0..2147483647"},
	{"-i --partition-method=foo", nil, `invalid partition method, expecting "range" or "hash", got: "foo"`},
	{"-i --partition-method=hash", nil, "--partition-method requires greater than zero --partitions"},
	{"--random-seed=abc", nil, `unrecognized random seed option "abc"`},
	{"--random-seed=5x", nil, `unrecognized random seed option "5x"`},
	{"-c 2", []string{"PGBENCH_RANDOM_SEED=soon"}, `unrecognized random seed option "soon"`},
	{"-l --sampling-rate=2", nil, `invalid sampling rate: "2"`},
	{"--sampling-rate=0.5", nil, "log sampling (--sampling-rate) is allowed only when logging transactions (-l)"},
	{"-l --sampling-rate=0.1 --aggregate-interval=5", nil, "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time"},
	{"--aggregate-interval=5", nil, "log aggregation is allowed only when actually logging transactions"},
	{"--log-prefix=x", nil, "log file prefix (--log-prefix) is allowed only when logging transactions (-l)"},
	{"-l -T 5 --aggregate-interval=10", nil, "number of seconds for aggregation (10) must not be higher than test duration (5)"},
	{"-l -T 5 --aggregate-interval=3", nil, "duration (5) must be a multiple of aggregation interval (3)"},
	{"--progress-timestamp", nil, "--progress-timestamp is allowed only under --progress"},
	{"-D x", nil, `invalid variable definition: "x"`},
	{"-D x=", nil, `invalid variable definition: "x="`},
	{"-D =5", nil, `invalid variable definition: "=5"`},
	{"-D 1x=5", nil, `option: invalid variable name: "1x"`},
	{"-D a-b=1", nil, `option: invalid variable name: "a-b"`},
	{"-i -c 4", nil, "some of the specified options cannot be used in initialization (-i) mode"},
	{"-i -S", nil, "some of the specified options cannot be used in initialization (-i) mode"},
	{"-i --random-seed=5", nil, "some of the specified options cannot be used in initialization (-i) mode"},
	{"-I dtgvp", nil, "some of the specified options cannot be used in benchmarking mode"},
	{"-q", nil, "some of the specified options cannot be used in benchmarking mode"},
	{"--partitions=2 -c 4", nil, "some of the specified options cannot be used in benchmarking mode"},
	{"-i -I xyz", nil, `unrecognized initialization step "x"`},
	{"-c 4 -i -I", nil, "option requires an argument -- 'I'"},
	{"-Z", nil, "invalid option -- 'Z'"},
	{"-S@2", nil, "invalid option -- '@'"},
	{"-c 4 -V", nil, "invalid option -- 'V'"},
	{"-c 4 --help", nil, "unrecognized option '--help'"},
	{"--bogus=1", nil, "unrecognized option '--bogus=1'"},
	{"-c", nil, "option requires an argument -- 'c'"},
	{"--client", nil, "option '--client' requires an argument"},
	{"--connect=1", nil, "option '--connect' doesn't allow an argument"},
	{"--p=5", nil, "option '--p=5' is ambiguous; possibilities: '--port' '--progress' '--protocol' '--progress-timestamp' '--partitions' '--partition-method'"},
	{"--d", nil, "option '--d' is ambiguous; possibilities: '--debug' '--define'"},
	{"--show-script=foo", nil, `no builtin script found for name "foo"`},
	{"a b", nil, `too many command-line arguments (first is "b")`},
	{"-p x", nil, `invalid integer value "x" for connection option "port"`},
	{"-p 70000", nil, `invalid port number: "70000"`},
	{"-c 1", []string{"PGPORT=0"}, `invalid port number: "0"`},
	{"-p 5432,5433", nil, "could not match 2 port numbers to 1 hosts"},
}

// TestBadLines refuses each line with pgbench's message, as an *Error.
func TestBadLines(t *testing.T) {
	for _, tc := range badLines {
		c, err := Parse(strings.Fields(tc.args), envOf(tc.env...))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %+v, %v; want the error %q", tc.args, c, err, tc.want)
			continue
		}
		if e.Msg != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, e.Msg, tc.want)
		}
		if e.ExitCode() != ExitUsage {
			t.Errorf("%s: exit code %d", tc.args, e.ExitCode())
		}
	}
	// Too many scripts.
	args := slices.Repeat([]string{"-b", "se"}, MaxScripts+1)
	if _, err := Parse(args, nil); err == nil || err.Error() != "at most 128 SQL scripts are allowed" {
		t.Errorf("%d scripts: %v", MaxScripts+1, err)
	}
	if _, err := Parse(args[:2*MaxScripts], nil); err != nil {
		t.Errorf("%d scripts: %v", MaxScripts, err)
	}
}

// TestFairbenchRefusals are values pgbench reads and fairbench refuses:
// an infinite or NaN rate, latency limit or sampling rate.
func TestFairbenchRefusals(t *testing.T) {
	for _, line := range []string{"-R inf", "-R nan", "-L infinity", "-L NaN", "-l --sampling-rate=nan"} {
		_, err := Parse(strings.Fields(line), nil)
		if err == nil || !strings.Contains(err.Error(), "must be a finite number") {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// TestCNumbers reads numbers as pgbench's C library calls do.
func TestCNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"10", 10}, {"10x", 10}, {" 2.5ms", 2.5}, {"1e3", 1000}, {"1e", 1}, {"-3", -3}, {".5", 0.5},
		{"0x10", 16}, {"0x1p4", 16}, {"0x", 0}, {"x", 0}, {"", 0}, {"+.", 0}, {"1.5.5", 1.5},
	} {
		if got := atof(tc.in); got != tc.want {
			t.Errorf("atof(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int32
	}{{"3", 3}, {" 3x", 3}, {"x", 0}, {"-2", -2}, {"99999999999", 1215752191}} {
		if got := atoi(tc.in); got != tc.want {
			t.Errorf("atoi(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{{"5", 5, true}, {" 5", 5, true}, {"5 ", 0, false}, {"-5", 18446744073709551611, true}, {"", 0, false}, {"99999999999999999999999", 18446744073709551615, true}} {
		if got, ok := parseSeed(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("parseSeed(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestResolved checks the figures Command derives for the caller.
func TestResolved(t *testing.T) {
	c, err := Parse([]string{"-i", "-I", "d tgvp", "-n", "--foreign-keys", "--partitions=3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Steps() != "dtgpf" || c.EffectivePartitionMethod() != "range" {
		t.Errorf("steps %q, partitioning %q", c.Steps(), c.EffectivePartitionMethod())
	}
	c, _ = Parse(strings.Fields("-c 2 -j 8 -s 4 -f x.sql --random-seed=-1"), nil)
	if c.EffectiveJobs() != 2 || c.ScaleIgnored() || c.BuiltinUsed() {
		t.Errorf("jobs %d, scale ignored %v, builtin %v", c.EffectiveJobs(), c.ScaleIgnored(), c.BuiltinUsed())
	}
	if k, v := c.Seed(); k != SeedValue || v != 1<<64-1 {
		t.Errorf("seed %v %v", k, v)
	}
	c, _ = Parse(strings.Fields("-s 4"), envOf("PGBENCH_RANDOM_SEED=rand"))
	if !c.ScaleIgnored() {
		t.Error("-s with the default script: pgbench ignores it and warns")
	}
	if k, _ := c.Seed(); k != SeedRand {
		t.Errorf("seed %v, want PGBENCH_RANDOM_SEED's rand", k)
	}
}

// TestDifferences names every option fairbench does not act on, and
// nothing for a plain run.
func TestDifferences(t *testing.T) {
	c, _ := Parse(strings.Fields("-c 4 -T 60"), nil)
	if d := c.Differences(); len(d) != 0 {
		t.Errorf("a plain run: %q", d)
	}
	c, _ = Parse(strings.Fields("-C -l --log-prefix=p --aggregate-interval=5 -T 10 -d -j 2 -c 4"), nil)
	d := strings.Join(c.Differences(), "\n")
	for _, opt := range []string{"-l:", "-d:", "-j:"} {
		if !strings.Contains(d, opt) {
			t.Errorf("no line for %s in\n%s", opt, d)
		}
	}
	// The log's options are done as pgbench does them: nothing to say.
	for _, opt := range []string{"-C", "--log-prefix", "--aggregate-interval", "--sampling-rate"} {
		if strings.Contains(d, opt) {
			t.Errorf("a line for %s, which fairbench does, in\n%s", opt, d)
		}
	}
}
