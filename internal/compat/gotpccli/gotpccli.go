// Package gotpccli reads a go-tpc (or `tiup bench`) command line —
// `tpcc [flags] prepare|run|check|cleanup` with go-tpc's flags, -H -P -U -p
// -D -T -d, --time 10m, --weight … — and translates it into fairbench's own
// form (`run tpcc --mysql-host=… --threads=…`), so that a script can put
// fairbench where it had go-tpc.
//
// Every go-tpc flag is either mapped to fairbench's option of the same
// meaning, accepted with a note saying it has no effect for the action given
// (as go-tpc itself ignores it there), or refused with the reason; none is
// accepted and ignored silently. fairbench's own options may be mixed in
// (--warmup-time, --rate, --percentile …) and pass through unchanged.
//
// Defaults stay fairbench's; where go-tpc's differ (port 4000, database
// test, user root, a run without a time limit) and the flag was not given,
// one note line says so.
package gotpccli

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/suggest"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/targetspec"
)

// Workload is the word that selects the go-tpc form: `fairbench tpcc …`.
const Workload = "tpcc"

// Output styles of `fairbench run tpcc --output-style`, which go-tpc's
// --output plain|table|json selects in the go-tpc form.
const (
	StyleFairbench = "fairbench"    // fairbench's own, sysbench-like layout
	StylePlain     = "go-tpc"       // go-tpc's --output plain
	StyleTable     = "go-tpc-table" // go-tpc's --output table
	StyleJSON      = "go-tpc-json"  // go-tpc's --output json
)

// Styles lists the values of --output-style.
var Styles = []string{StyleFairbench, StylePlain, StyleTable, StyleJSON}

// goTPCOutputs maps go-tpc's --output values to output styles.
var goTPCOutputs = map[string]string{"plain": StylePlain, "table": StyleTable, "json": StyleJSON}

// Output is go-tpc's --output value of an output style: "plain", "table" or
// "json" (the styles of gotpcout), and false for fairbench's own layout or a
// value that is not a style.
func Output(style string) (string, bool) {
	for output, s := range goTPCOutputs {
		if s == style {
			return output, true
		}
	}
	return "", false
}

// actions are go-tpc's tpcc subcommands, which are fairbench's commands of the same name.
var actions = map[string]bool{"prepare": true, "run": true, "check": true, "cleanup": true}

// defaultInterval is go-tpc's --interval: the go-tpc form prints its
// [Current] lines at go-tpc's cadence unless told otherwise.
const defaultInterval = 10 * time.Second

// Translation is a go-tpc command line in fairbench's form.
type Translation struct {
	// Action is go-tpc's subcommand: prepare, run, check or cleanup.
	Action string
	// Args are fairbench's arguments: "run", "tpcc", then options.
	Args []string
	// Notes are the lines to print (and, for a run, to record): go-tpc
	// defaults that differ from fairbench's, options without effect here.
	Notes []string
	// CommandLine is the go-tpc command line as given, its password
	// replaced by "***", for the result.
	CommandLine []string
	// Help is set when -h/--help was asked for: the text to print; Args is
	// then empty.
	Help string
}

// flags are go-tpc's options as parsed from one command line.
type flags struct {
	fs *pflag.FlagSet

	hosts                            []string
	port                             int
	user, password, db, driver       string
	threads, acThreads, count        int
	maxProcs, statusPort             int
	timeLimit, interval              time.Duration
	dropData, ignoreError, silence   bool
	summary                          bool
	isolation                        int
	connParams, output, result       string
	pprof, metricsAddr               string
	warehouses, parts, partitionType int
	checkAll, noCheck, useFK         bool
	useClusteredIndex                bool
	outputType, outputDir, tables    string
	retryCount                       int
	retryInterval                    time.Duration
	wait                             bool
	maxMeasureLatency                time.Duration
	weight                           []int
	connRefresh                      time.Duration
	help                             bool
}

// newFlags declares go-tpc's flags with go-tpc's defaults (cmd/go-tpc), each
// described by what fairbench does with it.
func newFlags() *flags {
	f := &flags{fs: pflag.NewFlagSet("go-tpc", pflag.ContinueOnError)}
	fs := f.fs
	fs.SortFlags = false
	// go-tpc's root flags.
	fs.StringSliceVarP(&f.hosts, "host", "H", []string{"127.0.0.1"}, "database host, a comma list spreads connections (--mysql-host / --pgsql-host)")
	fs.IntVarP(&f.port, "port", "P", 4000, "database port (--mysql-port / --pgsql-port; fairbench's default 3306 / 5432 when not given)")
	fs.StringVarP(&f.user, "user", "U", "root", "database user (--mysql-user / --pgsql-user; fairbench's default sbtest when not given)")
	fs.StringVarP(&f.password, "password", "p", "", "database password (--mysql-password / --pgsql-password)")
	fs.StringVarP(&f.db, "db", "D", "test", "database name (--mysql-db / --pgsql-db; fairbench's default sbtest when not given)")
	fs.StringVarP(&f.driver, "driver", "d", "", "database driver: mysql or postgres (--db-driver)")
	fs.IntVarP(&f.threads, "threads", "T", 1, "threads (--threads)")
	fs.IntVarP(&f.acThreads, "acThreads", "t", 1, "OLAP threads of CH-benCHmark: no effect on tpcc")
	fs.DurationVar(&f.timeLimit, "time", 0, "run: measured time, e.g. 10m (--time; fairbench's default 10s when not given)")
	fs.IntVar(&f.count, "count", 0, "run: total transactions, 0 = no limit (--events)")
	fs.BoolVar(&f.dropData, "dropdata", false, "prepare: drop the tables first (--replace)")
	fs.BoolVar(&f.ignoreError, "ignore-error", false, "run: keep running through server errors (--mysql-ignore-errors=all / --pgsql-ignore-errors=all)")
	fs.BoolVar(&f.silence, "silence", false, "run: print no error lines (fairbench prints none: ignored errors are counted in the summary)")
	fs.BoolVar(&f.summary, "summary", false, "run: print the summary only, no [Current] lines (--report-interval=0)")
	fs.DurationVar(&f.interval, "interval", defaultInterval, "run: interval of the [Current] lines (--report-interval)")
	fs.IntVar(&f.isolation, "isolation", 0, "isolation level, go-tpc's numbers: 0 the server's default, 1 read uncommitted, 2 read committed, 4 repeatable read, 6 serializable (--isolation-level)")
	fs.StringVar(&f.connParams, "conn-params", "", "connection parameters: session variables NAME=VALUE&… (--session-var; PostgreSQL also options=-c NAME=VALUE), tls=… / sslmode=… (--mysql-ssl / --pgsql-ssl), interpolateParams=true (--db-ps-mode=disable)")
	fs.StringVar(&f.output, "output", "plain", "run: output style, plain, table or json (--output-style go-tpc, go-tpc-table, go-tpc-json)")
	fs.StringVarP(&f.result, "result", "o", "", "run: write fairbench's JSON result to this file (--output of fairbench's own form)")
	fs.IntVar(&f.maxProcs, "max-procs", 0, "refused: fairbench does not cap its scheduler (pin the client with taskset -c instead)")
	fs.StringVar(&f.pprof, "pprof", "", "refused: fairbench writes profiles to files (--cpu-profile, --mem-profile)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "run: serve live Prometheus metrics on this address (--metrics-addr)")
	fs.IntVarP(&f.statusPort, "statusPort", "S", 10080, "TiDB status port of the plan replayer: no effect")
	// go-tpc's tpcc flags.
	fs.IntVar(&f.warehouses, "warehouses", 10, "warehouses (--warehouses)")
	fs.IntVar(&f.parts, "parts", 1, "hash partitions of the warehouse-keyed tables (--parts)")
	fs.IntVar(&f.partitionType, "partition-type", 1, "partitioning: 1 (HASH) only")
	fs.BoolVar(&f.checkAll, "check-all", false, "check: also the conditions that hold right after loading (--check-all)")
	fs.BoolVar(&f.noCheck, "no-check", false, "prepare: skip the consistency check after loading (--no-check)")
	fs.BoolVar(&f.useFK, "use-fk", false, "refused: fairbench's TPC-C schema has no foreign keys")
	fs.BoolVar(&f.useClusteredIndex, "use-clustered-index", true, "true only: the primary keys are the tables' clustered keys")
	fs.StringVar(&f.outputType, "output-type", "", "prepare: csv writes CSV files into --output-dir instead of loading")
	fs.StringVar(&f.outputDir, "output-dir", "", "prepare: the directory of --output-type=csv (--output-dir)")
	fs.StringVar(&f.tables, "tables", "", "refused: fairbench writes the CSV files of every table")
	fs.IntVar(&f.retryCount, "retry-count", 50, "prepare: no effect (fairbench stops at a failed load; prepare again with --dropdata)")
	fs.DurationVar(&f.retryInterval, "retry-interval", 10*time.Second, "prepare: no effect, as --retry-count")
	fs.BoolVar(&f.wait, "wait", false, "run: keying and think times (--wait)")
	fs.DurationVar(&f.maxMeasureLatency, "max-measure-latency", 16*time.Second, "run: no effect (fairbench's histograms are not capped)")
	fs.IntSliceVar(&f.weight, "weight", []int{45, 43, 4, 4, 4}, "run: weights of new_order,payment,order_status,delivery,stock_level (--mix)")
	fs.DurationVar(&f.connRefresh, "conn-refresh-interval", 0, "run: 0 only (fairbench keeps its connections)")
	fs.BoolVarP(&f.help, "help", "h", false, "this help")
	return f
}

// ignoredBy names, per action, the go-tpc options that have no effect there
// (go-tpc ignores them there too): given, they are accepted with a note.
var ignoredBy = map[string][]string{
	"prepare": {"time", "count", "ignore-error", "silence", "summary", "interval", "output", "result", "metrics-addr", "wait", "max-measure-latency", "weight", "conn-refresh-interval", "check-all"},
	"run":     {"dropdata", "no-check", "output-type", "output-dir", "retry-count", "retry-interval", "check-all"},
	"check":   {"time", "count", "dropdata", "ignore-error", "silence", "summary", "interval", "output", "result", "metrics-addr", "no-check", "output-type", "output-dir", "retry-count", "retry-interval", "wait", "max-measure-latency", "weight", "conn-refresh-interval"},
	"cleanup": {"threads", "time", "count", "dropdata", "ignore-error", "silence", "summary", "interval", "output", "result", "metrics-addr", "check-all", "no-check", "output-type", "output-dir", "retry-count", "retry-interval", "wait", "max-measure-latency", "weight", "conn-refresh-interval"},
}

// noEffect are the options that have no effect in any action.
var noEffect = map[string]string{
	"acThreads":           "OLAP threads of CH-benCHmark, not of tpcc",
	"statusPort":          "used by go-tpc's TiDB plan replayer only",
	"retry-count":         "fairbench does not retry a failed load: it stops and says so; prepare again with --dropdata",
	"retry-interval":      "fairbench does not retry a failed load",
	"max-measure-latency": "fairbench's latency histograms are not capped",
}

// Claims reports whether args are a go-tpc command line: its first word that
// is neither a go-tpc flag nor a flag's value is "tpcc" (`tpcc --warehouses 4
// run`, `-H db1 -P 4000 tpcc run`). fairbench has no command named tpcc, so
// the form is unambiguous.
func Claims(args []string) bool {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		// The usual case (`fairbench run ...`) needs no flag set: building
		// go-tpc's costs every command's start-up more than its inits.
		return len(args) > 0 && args[0] == Workload
	}
	fs := newFlags().fs
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i+1 < len(args) && args[i+1] == Workload
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// -T4, -T 4, -hT 4: the last letter of a cluster may take the next word.
			last := a[len(a)-1:]
			if f := fs.ShorthandLookup(last); f != nil && f.NoOptDefVal == "" && valueless(fs, a[1:]) {
				i++
			}
		default:
			return a == Workload
		}
	}
	return false
}

// valueless reports whether every letter of the shorthand cluster before its
// last names a flag that takes no value (-hT 4), so the last takes the next word.
func valueless(fs *pflag.FlagSet, cluster string) bool {
	for i := 0; i < len(cluster)-1; i++ {
		f := fs.ShorthandLookup(cluster[i : i+1]) // one byte: a letter of more would panic pflag
		if f == nil || f.NoOptDefVal == "" {
			return false
		}
	}
	return true
}

// Translate reads a go-tpc command line (args without the program name; see
// Claims) into fairbench's form. extra holds fairbench's own options of the
// tpcc commands (all phases), which may be mixed in and pass through
// unchanged where go-tpc has no option of the name. The error says what was
// wrong and what to give instead.
func Translate(args []string, extra *pflag.FlagSet) (Translation, error) {
	f := newFlags()
	pass := addPassThrough(f.fs, extra)
	if err := f.fs.Parse(args); err != nil {
		return Translation{}, fmt.Errorf("%w (go-tpc form: fairbench tpcc [flags] prepare|run|check|cleanup; fairbench tpcc --help lists the flags)", suggest.FlagError(err, f.fs))
	}
	if f.help {
		return Translation{Help: help(f.fs)}, nil
	}
	pos := f.fs.Args()
	switch {
	case len(pos) == 0 || pos[0] != Workload:
		return Translation{}, errors.New("the go-tpc form is fairbench tpcc [flags] prepare|run|check|cleanup")
	case len(pos) == 1:
		return Translation{}, errors.New("tpcc needs an action: fairbench tpcc [flags] prepare|run|check|cleanup, as go-tpc")
	case !actions[pos[1]]:
		return Translation{}, fmt.Errorf("tpcc %s: give one action, prepare, run, check or cleanup, as go-tpc", pos[1])
	}
	t := Translation{Action: pos[1], Args: []string{pos[1], Workload}, CommandLine: redact(f.fs, args)}
	if len(pos) > 2 {
		// go-tpc ignores words after the action, as in "--no-check true".
		t.Notes = append(t.Notes, fmt.Sprintf("the words %q after %s are ignored, as go-tpc ignores them (a flag without a value is on: write --no-check=false for off)",
			strings.Join(pos[2:], " "), pos[1]))
	}
	if err := f.refuse(); err != nil {
		return Translation{}, err
	}
	emitted := map[string]bool{}
	add := func(name, value string) {
		t.Args = append(t.Args, "--"+name+"="+value)
		emitted[name] = true
	}
	kind, err := f.target(t.Action, *pass, add, &t.Notes)
	if err != nil {
		return Translation{}, err
	}
	own := map[string]bool{}
	for _, p := range *pass {
		own[p.name] = true
	}
	if err := f.options(t.Action, kind, own, add); err != nil {
		return Translation{}, err
	}
	if note := f.ignoredNote(t.Action); note != "" {
		t.Notes = append(t.Notes, note)
	}
	for _, p := range *pass {
		if emitted[p.name] {
			return Translation{}, fmt.Errorf("--%s is also set by a go-tpc flag of this command line: give one of them", p.name)
		}
		t.Args = append(t.Args, "--"+p.name+"="+p.value)
	}
	return t, nil
}

// redact returns args with every value given to -p/--password replaced by
// "***": its own word (-p secret, --password secret) or the rest of its word
// (-psecret, --password=secret, -hpsecret), read with go-tpc's flag grammar.
func redact(fs *pflag.FlagSet, args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--":
			return out
		case a == "--password":
			if i+1 < len(out) {
				out[i+1] = "***"
				i++
			}
		case strings.HasPrefix(a, "--password="):
			out[i] = "--password=***"
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // the flag's value, not a flag
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
		cluster:
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				if f == nil || f.NoOptDefVal != "" {
					continue // unknown (pflag refuses it) or a flag without a value
				}
				switch {
				case f.Name == "password" && j+1 < len(a):
					out[i] = a[:j+1] + "***"
				case f.Name == "password" && i+1 < len(out):
					out[i+1] = "***"
					i++
				case j+1 == len(a):
					i++ // the flag's value is the next word
				}
				break cluster // the rest of the word is the flag's value
			}
		}
	}
	return out
}

// refuse rejects the go-tpc options fairbench cannot honour, each with the
// reason and what to do instead.
func (f *flags) refuse() error {
	changed := f.fs.Changed
	switch {
	case changed("max-procs"):
		return errors.New("--max-procs: fairbench does not cap its own scheduler; pin the client's CPUs with taskset -c instead")
	case changed("pprof"):
		return errors.New("--pprof: fairbench serves no pprof endpoint; give --cpu-profile FILE or --mem-profile FILE for profiles of the client")
	case f.useFK:
		return errors.New("--use-fk: fairbench's TPC-C schema has no foreign keys (TPC-C does not require them); leave --use-fk out")
	case !f.useClusteredIndex:
		return errors.New("--use-clustered-index=false: fairbench's TPC-C tables always have their primary key as the clustered key; leave the flag out")
	case f.tables != "":
		return fmt.Errorf("--tables %s: fairbench writes the CSV files of every table; leave --tables out and use the files you need", f.tables)
	case f.connRefresh != 0:
		return fmt.Errorf("--conn-refresh-interval %s: fairbench keeps each thread's connection for the whole run (it reconnects only when one is lost); leave the flag out", f.connRefresh)
	case f.partitionType != 1 && f.parts > 1:
		return fmt.Errorf("--partition-type %d: fairbench partitions by HASH only (--partition-type 1); leave the flag out", f.partitionType)
	case f.partitionType < 1 || f.partitionType > 4:
		return fmt.Errorf("--partition-type %d: go-tpc's types are 1 (HASH) to 4, and fairbench partitions by HASH (1)", f.partitionType)
	case f.outputType != "" && !strings.EqualFold(f.outputType, "csv"):
		return fmt.Errorf("--output-type %s: the only output type is csv (CSV files in --output-dir); leave it out to load the database", f.outputType)
	case strings.EqualFold(f.outputType, "csv") && f.outputDir == "":
		return errors.New("--output-type csv needs --output-dir DIR, where the CSV files go")
	case f.count < 0:
		return fmt.Errorf("--count %d: give the number of transactions, 0 for no limit", f.count)
	}
	if _, err := Isolation(f.isolation); err != nil {
		return err
	}
	if _, ok := goTPCOutputs[f.output]; !ok {
		return fmt.Errorf("--output %s: in the go-tpc form --output is go-tpc's output style, plain, table or json; write fairbench's result file with -o FILE or --result FILE", f.output)
	}
	return nil
}

// target maps the connection flags (mysql unless -d postgres; the embedded
// SQLite database, fairbench's default, when none is given) and notes
// go-tpc's defaults that differ. It returns the driver kind.
func (f *flags) target(action string, pass []passed, add func(name, value string), notes *[]string) (string, error) {
	changed := f.fs.Changed
	given := false
	for _, n := range []string{"host", "port", "user", "password", "db", "driver", "conn-params"} {
		given = given || changed(n)
	}
	var differs []string
	if action == "run" && !changed("time") {
		differs = append(differs, "time 10s (go-tpc: until interrupted; give --time)")
	}
	if own := ownTarget(pass); own != "" && !given {
		// fairbench's own connection options name the target.
		if len(differs) > 0 {
			*notes = append(*notes, "go-tpc's defaults differ and fairbench's apply:"+strings.TrimPrefix(withDiffers(differs), ";"))
		}
		return own, nil
	}
	if !given {
		*notes = append(*notes, "no -H, -P, -D or -d given: fairbench uses its embedded SQLite database (go-tpc would connect to 127.0.0.1:4000, database test; give -H 127.0.0.1 -P 4000 -D test for that)"+
			withDiffers(differs))
		return "sqlite", nil
	}
	kind := "mysql" // go-tpc's default driver
	if f.driver != "" {
		k, ok := targetspec.ParseDriver(strings.ToLower(f.driver))
		if !ok || k == "sqlite" {
			return "", fmt.Errorf("-d %s: go-tpc's drivers are mysql and postgres", f.driver)
		}
		kind = k
	}
	add("db-driver", kind)
	if changed("host") {
		add(kind+"-host", strings.Join(f.hosts, ","))
	} else {
		differs = append(differs, "host localhost (go-tpc: 127.0.0.1)")
	}
	if changed("port") {
		add(kind+"-port", strconv.Itoa(f.port))
	} else if kind == "mysql" {
		differs = append(differs, "port 3306 (go-tpc: 4000)")
	} else {
		differs = append(differs, "port 5432 (go-tpc: 4000)")
	}
	if changed("user") {
		add(kind+"-user", f.user)
	} else {
		differs = append(differs, "user sbtest (go-tpc: root)")
	}
	if changed("password") {
		add(kind+"-password", f.password)
	}
	if changed("db") {
		add(kind+"-db", f.db)
	} else {
		differs = append(differs, "database sbtest (go-tpc: test)")
	}
	if f.connParams != "" {
		cp, err := readConnParams(kind, f.connParams)
		if err != nil {
			return "", err
		}
		if cp.ssl != "" {
			add(kind+"-ssl", cp.ssl)
		}
		if cp.psDisable {
			add("db-ps-mode", "disable")
		}
		for _, v := range cp.vars {
			add("session-var", v)
		}
	}

	if len(differs) > 0 {
		*notes = append(*notes, "go-tpc's defaults differ and fairbench's apply:"+strings.TrimPrefix(withDiffers(differs), ";"))
	}
	return kind, nil
}

// ownTarget is the driver fairbench's own connection options name (--db-driver,
// --mysql-*, --pgsql-*, --sqlite-*), "" when none is given.
func ownTarget(pass []passed) string {
	kind := ""
	for _, p := range pass {
		switch {
		case p.name == "db-driver":
			k, _ := targetspec.ParseDriver(p.value) // "" for a driver the command refuses
			return k
		case strings.HasPrefix(p.name, "mysql-") && p.name != "mysql-storage-engine":
			kind = "mysql"
		case strings.HasPrefix(p.name, "pgsql-"):
			kind = "pgsql"
		case strings.HasPrefix(p.name, "sqlite-") && kind == "":
			kind = "sqlite"
		}
	}
	return kind
}

func withDiffers(differs []string) string {
	if len(differs) == 0 {
		return ""
	}
	return "; " + strings.Join(differs, ", ")
}

// Isolation maps go-tpc's --isolation number (database/sql's
// IsolationLevel, as go-tpc passes it to BeginTx) to fairbench's
// --isolation-level: "" for 0, the server's default. The levels without a
// SQL name on MySQL or PostgreSQL are refused, as go-tpc's drivers refuse
// them when the first transaction begins.
func Isolation(n int) (string, error) {
	switch n {
	case 0:
		return "", nil
	case 1:
		return driver.ReadUncommitted, nil
	case 2:
		return driver.ReadCommitted, nil
	case 4:
		return driver.RepeatableRead, nil
	case 6:
		return driver.Serializable, nil
	case 3, 5, 7:
		name := map[int]string{3: "write committed", 5: "snapshot", 7: "linearizable"}[n]
		return "", fmt.Errorf("--isolation %d (%s): neither MySQL nor PostgreSQL has this level (go-tpc's drivers refuse it when the first transaction begins); give 1 read uncommitted, 2 read committed, 4 repeatable read or 6 serializable (PostgreSQL's repeatable read is snapshot isolation)", n, name)
	}
	return "", fmt.Errorf("--isolation %d: go-tpc's levels are 0 (the server's default) to 7; fairbench runs 0, 1, 2, 4 and 6", n)
}

// connParams is what --conn-params asks for, in fairbench's options.
type connParams struct {
	ssl       string   // --mysql-ssl / --pgsql-ssl
	psDisable bool     // --db-ps-mode=disable
	vars      []string // --session-var values, NAME=VALUE, in the order given
}

// mysqlDriverParams are go-sql-driver's DSN parameters that are not session
// variables (go-sql-driver sends every other parameter as SET NAME=VALUE).
var mysqlDriverParams = []string{"allowAllFiles", "allowCleartextPasswords", "allowFallbackToPlaintext", "allowNativePasswords",
	"allowOldPasswords", "charset", "checkConnLiveness", "clientFoundRows", "collation", "columnsWithAlias", "compress",
	"connectionAttributes", "loc", "maxAllowedPacket", "multiStatements", "parseTime", "readTimeout", "rejectReadOnly",
	"serverPubKey", "timeTruncate", "timeout", "writeTimeout"}

// pgConnParams are libpq's connection parameters (which go-tpc's
// PostgreSQL driver takes in its DSN) that are not run-time parameters of the
// session.
var pgConnParams = []string{"host", "port", "dbname", "user", "password", "passfile", "connect_timeout", "sslcert", "sslkey",
	"sslrootcert", "sslcrl", "sslpassword", "target_session_attrs", "binary_parameters", "disable_prepared_binary_result",
	"fallback_application_name", "krbsrvname", "krbspn", "service"}

// readConnParams reads go-tpc's --conn-params, the query string of its DSN
// (NAME=VALUE&…, values URL-encoded): tls= (MySQL) or sslmode= (PostgreSQL)
// is the TLS mode, MySQL's interpolateParams=true sends statements as text,
// PostgreSQL's options=-c NAME=VALUE … and every other parameter that is not
// one of the driver's own are session variables, as go-tpc's drivers treat
// them. A driver parameter fairbench has no counterpart for is refused.
func readConnParams(kind, params string) (connParams, error) {
	var cp connParams
	sslKey, modes, own := "tls", map[string]string{"false": "off", "preferred": "on", "skip-verify": "required", "true": "verify-full"}, mysqlDriverParams
	if kind == "pgsql" {
		sslKey, modes, own = "sslmode", map[string]string{"disable": "off", "allow": "on", "prefer": "on", "require": "required", "verify-ca": "verify-ca", "verify-full": "verify-full"}, pgConnParams
	}
	for _, pair := range strings.Split(params, "&") {
		if pair == "" {
			continue
		}
		rawKey, rawValue, ok := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(rawKey)
		value, err2 := url.QueryUnescape(rawValue)
		if !ok || key == "" || err1 != nil || err2 != nil {
			return cp, fmt.Errorf("--conn-params %s: %q is not NAME=VALUE (URL-encoded, pairs joined by &)", params, pair)
		}
		switch {
		case key == sslKey:
			mode, ok := modes[strings.ToLower(value)]
			if !ok {
				return cp, fmt.Errorf("--conn-params %s=%s: give one of %s", key, value, strings.Join(slices.Sorted(maps.Keys(modes)), ", "))
			}
			cp.ssl = mode
		case kind != "pgsql" && key == "interpolateParams":
			b, err := strconv.ParseBool(value)
			if err != nil {
				return cp, fmt.Errorf("--conn-params interpolateParams=%s: give true or false", value)
			}
			cp.psDisable = b
		case kind == "pgsql" && key == "options":
			vars, err := pgOptions(value)
			if err != nil {
				return cp, fmt.Errorf("--conn-params options=%s: %w", value, err)
			}
			cp.vars = append(cp.vars, vars...)
		case slices.Contains(own, key):
			return cp, fmt.Errorf("--conn-params %s=%s: a parameter of go-tpc's database driver, not a session variable, which fairbench's client has no counterpart for; leave it out (session variables NAME=VALUE and %s=… are taken)", key, value, sslKey)
		default:
			if _, err := driver.ParseSessionVar(key + "=" + value); err != nil {
				return cp, fmt.Errorf("--conn-params %s: %w", params, err)
			}
			cp.vars = append(cp.vars, key+"="+value)
		}
	}
	return cp, nil
}

// pgOptions reads libpq's options parameter: -c NAME=VALUE (or
// --NAME=VALUE) settings, separated by spaces.
func pgOptions(s string) ([]string, error) {
	var vars []string
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-c" && i+1 < len(words):
			i++
			w = words[i]
		case strings.HasPrefix(w, "-c"):
			w = w[2:]
		case strings.HasPrefix(w, "--"):
			w = strings.ReplaceAll(w[2:], "-", "_")
		default:
			return nil, fmt.Errorf("%q: only -c NAME=VALUE settings are taken", w)
		}
		if _, err := driver.ParseSessionVar(w); err != nil {
			return nil, err
		}
		vars = append(vars, w)
	}
	return vars, nil
}

// options maps the workload and action options. own names fairbench's own
// options given, which win over go-tpc's defaults (--report-interval over
// the 10 s of --interval, --output-style over --output plain).
func (f *flags) options(action, kind string, own map[string]bool, add func(name, value string)) error {
	changed := f.fs.Changed
	effective := func(name string) bool { return changed(name) && !ignored(action, name) }
	if level, _ := Isolation(f.isolation); level != "" {
		add("isolation-level", level)
	}
	if changed("warehouses") {
		add("warehouses", strconv.Itoa(f.warehouses))
	}
	if changed("parts") {
		add("parts", strconv.Itoa(f.parts))
	}
	if effective("threads") {
		add("threads", strconv.Itoa(f.threads))
	}
	switch action {
	case "prepare":
		if f.dropData {
			add("replace", "true")
		}
		if f.noCheck {
			add("no-check", "true")
		}
		if strings.EqualFold(f.outputType, "csv") {
			add("output-dir", f.outputDir)
		}
	case "check":
		if f.checkAll {
			add("check-all", "true")
		}
	case "run":
		if changed("time") {
			if f.timeLimit <= 0 {
				return fmt.Errorf("--time %s: give a positive duration, e.g. 10m", f.timeLimit)
			}
			add("time", f.timeLimit.String())
		}
		if f.count > 0 {
			add("events", strconv.Itoa(f.count))
		}
		interval := f.interval
		if f.summary {
			interval = 0
		}
		if interval < 0 {
			return fmt.Errorf("--interval %s: give a positive duration, e.g. 10s", f.interval)
		}
		if !own["report-interval"] || changed("interval") || f.summary {
			add("report-interval", strconv.FormatFloat(interval.Seconds(), 'f', -1, 64))
		}
		if f.ignoreError {
			if kind == "" {
				return errors.New("--ignore-error: name the driver with -d mysql or -d postgres (or fairbench's --db-driver)")
			}
			add(kind+"-ignore-errors", "all")
		}
		if f.wait {
			add("wait", "true")
		}
		if changed("weight") {
			if len(f.weight) != 5 {
				return fmt.Errorf("--weight %v: give 5 weights, for new_order, payment, order_status, delivery and stock_level", f.weight)
			}
			w := make([]string, len(f.weight))
			for i, n := range f.weight {
				w[i] = strconv.Itoa(n)
			}
			add("mix", strings.Join(w, ","))
		}
		if f.metricsAddr != "" {
			add("metrics-addr", f.metricsAddr)
		}
		if !own["output-style"] || changed("output") {
			add("output-style", goTPCOutputs[f.output])
		}
		if f.result != "" {
			add("output", f.result)
		}
	}
	return nil
}

// ignored reports whether go-tpc option name has no effect in action.
func ignored(action, name string) bool {
	if _, ok := noEffect[name]; ok {
		return true
	}
	for _, n := range ignoredBy[action] {
		if n == name {
			return true
		}
	}
	return false
}

// ignoredNote is the one note line naming the options given that have no
// effect in action ("" when none).
func (f *flags) ignoredNote(action string) string {
	var names []string
	var why []string
	f.fs.Visit(func(fl *pflag.Flag) {
		if !ignored(action, fl.Name) {
			return
		}
		names = append(names, "--"+fl.Name)
		if r, ok := noEffect[fl.Name]; ok {
			why = append(why, "--"+fl.Name+": "+r)
		}
	})
	if len(names) == 0 {
		return ""
	}
	note := strings.Join(names, ", ") + " given: no effect on " + action + ", as in go-tpc"
	if len(why) > 0 {
		note += " (" + strings.Join(why, "; ") + ")"
	}
	return note
}

// passed is one fairbench option given in the go-tpc form.
type passed struct{ name, value string }

// passValue records each use of a pass-through option.
type passValue struct {
	name string
	into *[]passed
	typ  string
}

func (v *passValue) String() string { return "" }
func (v *passValue) Set(s string) error {
	*v.into = append(*v.into, passed{v.name, s})
	return nil
}
func (v *passValue) Type() string { return v.typ }

// addPassThrough declares on fs fairbench's own options of extra that go-tpc
// has no option of the same name for, recording their values as given.
func addPassThrough(fs *pflag.FlagSet, extra *pflag.FlagSet) *[]passed {
	var out []passed
	if extra == nil {
		return &out
	}
	extra.VisitAll(func(e *pflag.Flag) {
		if fs.Lookup(e.Name) != nil {
			return
		}
		fl := fs.VarPF(&passValue{name: e.Name, into: &out, typ: e.Value.Type()}, e.Name, "", e.Usage)
		fl.NoOptDefVal = e.NoOptDefVal
		fl.Hidden = true
	})
	return &out
}

// help is the go-tpc form's usage.
func help(fs *pflag.FlagSet) string {
	return "go-tpc's command line, run by fairbench (defaults stay fairbench's; fairbench's own options may be added):\n\n" +
		"  fairbench tpcc [flags] prepare|run|check|cleanup\n\nFlags (what fairbench does with each):\n" + fs.FlagUsages() +
		"\nfairbench's own form of the same: fairbench run tpcc --help\n"
}

// Options is a go-tpc command line read with go-tpc's own flags, as a log
// echoes it (for `fairbench import`): what it names, not what fairbench
// would run.
type Options struct {
	// Workload is the subcommand before the action: tpcc (or go-tpc's
	// others: tpch, ch, rawsql); "" when none is named.
	Workload string
	// Action is prepare, run, check or cleanup; "" when none is named.
	Action string
	// Values are the flags given, by go-tpc's long name (-T4 is threads);
	// durations in seconds, as fairbench records its own; a flag given
	// without a value is "on"; the password is "***".
	Values map[string]string
	// Redacted is args with the password replaced by "***".
	Redacted []string
}

// Read reads a go-tpc command line (args after the program) with go-tpc's
// flag grammar. Flags of go-tpc's other workloads, which fairbench does not
// declare, are skipped. The error is pflag's, for a value of the wrong type.
func Read(args []string) (Options, error) {
	f := newFlags()
	f.fs.ParseErrorsAllowlist.UnknownFlags = true
	o := Options{Redacted: redact(f.fs, args), Values: map[string]string{}}
	if err := f.fs.Parse(args); err != nil {
		return o, err
	}
	f.fs.Visit(func(fl *pflag.Flag) {
		v := fl.Value.String()
		switch {
		case fl.Name == "password":
			v = "***"
		case fl.Value.Type() == "duration":
			if d, err := time.ParseDuration(v); err == nil {
				v = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
			}
		case fl.Value.Type() == "bool" && v == "true":
			v = "on"
		case fl.Value.Type() == "stringSlice" || fl.Value.Type() == "intSlice":
			v = strings.Trim(v, "[]")
		}
		o.Values[fl.Name] = v
	})
	for _, p := range f.fs.Args() {
		switch {
		case actions[p] && o.Action == "":
			o.Action = p
		case o.Workload == "" && o.Action == "":
			o.Workload = p
		}
	}
	return o, nil
}
