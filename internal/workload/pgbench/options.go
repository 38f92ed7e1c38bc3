package pgbench

import (
	"strings"

	"github.com/spf13/pflag"
)

// Options are the pgbench workloads' options, as run and prepare take them
// (the drop-in `fairbench pgbench` maps pgbench's letters onto them).
type Options struct {
	// Scripts are --script FILE[@WEIGHT] (pgbench -f) and --builtin
	// NAME[@WEIGHT] (pgbench -b), in the order given, as pgbench orders
	// them; only the "pgbench" workload takes them (the others run their
	// one built-in).
	Scripts []ScriptArg
	// Defines are --define NAME=VALUE (pgbench -D), in order.
	Defines []string
	// Scale is the data set's scale factor (pgbench -s): what prepare loads;
	// a run of a built-in script reads it from pgbench_branches, as pgbench
	// does; custom scripts get it as :scale.
	Scale int
	// MaxTries is how many times a transaction that failed with a
	// serialization failure or deadlock is tried in all (pgbench
	// --max-tries; 1: never retried; 0: no limit).
	MaxTries int
	// PerCommand times every command of the scripts (pgbench -r).
	PerCommand bool
	// QueryMode is how statements are sent (pgbench -M): "simple" (text with
	// the values in it), "extended" (bound parameters, unnamed statements)
	// or "prepared" (bound parameters, named prepared statements); "" takes
	// it from --db-ps-mode (auto: prepared; disable: simple).
	QueryMode string
	// VacuumFirst is what a run tidies before it starts, as pgbench does
	// without -n: "tables" vacuums pgbench_branches and pgbench_tellers and
	// empties pgbench_history; "all" also vacuums pgbench_accounts (-v); ""
	// touches nothing (fairbench's default: a run leaves the data as
	// prepared).
	VacuumFirst string
	// Init are prepare's options (pgbench -i's): steps, fill factor,
	// foreign keys, unlogged tables, partitions, tablespaces. Its Scale is
	// Scale.
	Init InitOptions
}

// register adds the options to fs; custom adds --script and --builtin.
func (o *Options) register(fs *pflag.FlagSet, custom bool) {
	if custom {
		fs.Var(scriptFlag{list: &o.Scripts}, "script", "a pgbench script file to run, FILE[@WEIGHT] (pgbench -f; repeatable)")
		fs.Var(scriptFlag{list: &o.Scripts, builtin: true}, "builtin", "a pgbench built-in script to run, NAME[@WEIGHT]: tpcb-like, simple-update, select-only (pgbench -b; repeatable)")
	}
	fs.StringArrayVar(&o.Defines, "define", nil, "set a script variable, NAME=VALUE (pgbench -D; repeatable)")
	fs.IntVar(&o.Scale, "scale", 1, "scale factor of pgbench's tables: 100000 accounts, 10 tellers and 1 branch each (pgbench -s)")
	fs.IntVar(&o.MaxTries, "max-tries", 1, "tries of a transaction that fails with a serialization failure or deadlock, in all; 0: no limit (pgbench --max-tries)")
	fs.BoolVar(&o.PerCommand, "report-per-command", false, "time every command of the scripts and record each one's count, latency, failures and retries (pgbench -r)")
	fs.StringVar(&o.QueryMode, "query-mode", "", "how statements are sent: simple, extended or prepared (pgbench -M); default: from --db-ps-mode")
	fs.StringVar(&o.VacuumFirst, "vacuum-first", "", "before the run, as pgbench without -n: tables (vacuum pgbench_branches and _tellers, empty pgbench_history) or all (and vacuum pgbench_accounts, pgbench -v)")
	fs.BoolVar(&o.Init.Quiet, "init-quiet", false, "prepare logs its progress every 5 seconds instead of every 100000 rows (pgbench -i -q)")
	fs.StringVar(&o.Init.Steps, "init-steps", DefaultSteps, "prepare's steps, in order: d drop, t create tables, g generate client-side, G generate server-side, v vacuum, p primary keys, f foreign keys (pgbench -I)")
	fs.IntVar(&o.Init.FillFactor, "fillfactor", 100, "fill factor of pgbench's tables, 10..100 (pgbench -F; PostgreSQL)")
	fs.BoolVar(&o.Init.ForeignKeys, "foreign-keys", false, "create foreign keys between pgbench's tables (pgbench --foreign-keys)")
	fs.BoolVar(&o.Init.Unlogged, "unlogged-tables", false, "create pgbench's tables unlogged (pgbench --unlogged-tables; PostgreSQL)")
	fs.IntVar(&o.Init.Partitions, "partitions", 0, "split pgbench_accounts into this many partitions (pgbench --partitions)")
	fs.StringVar(&o.Init.PartitionMethod, "partition-method", "", "range or hash (pgbench --partition-method; default range)")
	fs.StringVar(&o.Init.Tablespace, "tablespace", "", "tablespace of pgbench's tables (pgbench --tablespace; PostgreSQL)")
	fs.StringVar(&o.Init.IndexTablespace, "index-tablespace", "", "tablespace of their primary keys (pgbench --index-tablespace; PostgreSQL)")
}

// ScriptArg is one --script or --builtin option as given.
type ScriptArg struct {
	// Builtin is set for --builtin NAME[@WEIGHT], unset for --script FILE[@WEIGHT].
	Builtin bool
	Arg     string
}

// scriptFlag is --script or --builtin: both add to one list, so that the
// scripts keep the order of the command line.
type scriptFlag struct {
	list    *[]ScriptArg
	builtin bool
}

// String lists the flag's own values, comma-separated.
func (f scriptFlag) String() string {
	if f.list == nil {
		return ""
	}
	var args []string
	for _, a := range *f.list {
		if a.Builtin == f.builtin {
			args = append(args, a.Arg)
		}
	}
	return strings.Join(args, ",")
}

// Set adds one script.
func (f scriptFlag) Set(v string) error {
	*f.list = append(*f.list, ScriptArg{Builtin: f.builtin, Arg: v})
	return nil
}

// Type names the value in help.
func (f scriptFlag) Type() string { return "stringArray" }
