// Package cli implements fairbench's commands. Everything a command touches
// (arguments, output streams, environment, clock-free state) is injected through
// App, so whole commands run in-process in tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/base/suggest"
	"github.com/fairbench/fairbench/internal/compat/pgbenchcli"
	"github.com/fairbench/fairbench/internal/compat/sysbenchcli"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/pgbench"
	"github.com/fairbench/fairbench/internal/workload/tpcc"
)

// Exit codes. They say how a command ended so that scripts can tell a bad flag
// from an unreachable server from a failed run.
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // the run started and failed (a fatal database error); the result is written, marked failed
	ExitUsage  = 2 // bad command line: unknown workload, bad flag or value
	// ExitForced is sysbench's exit status when its --forced-shutdown ends
	// a run (events still running at --time plus the limit): the result is
	// written, marked failed, with shutdown.forced. It is ExitUsage's
	// number, as in sysbench, whose scripts test for it.
	ExitForced      = 2
	ExitTarget      = 3   // the target is not usable: unreachable, refused login, tables missing or present
	ExitConsistency = 4   // a consistency check found a violation
	ExitInterrupted = 130 // Ctrl-C: the partial result is written, marked interrupted
)

// exitError carries an exit code with an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err with an exit code (nil stays nil).
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErrorf is a bad-input error (exit 2).
func usageErrorf(format string, args ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, args...))
}

// App is one invocation of fairbench with its environment injected.
type App struct {
	Stdout, Stderr io.Writer
	// Getenv reads the environment (MYSQL_PWD, PGPASSWORD); os.Getenv in main.
	Getenv func(string) string
	// IsTerminal reports whether w is an interactive terminal (progress redraws in place).
	IsTerminal func(w io.Writer) bool
	// Version, Commit identify the build.
	Version, Commit string
	// Workloads is the registry; nil means the built-in workloads.
	Workloads *workload.Registry
	// Self is the path of the fairbench binary, which --client-cpus runs
	// again pinned (os.Executable in main); empty refuses --client-cpus
	// (in-process tests, where the binary is the test's).
	Self string
	// Kubernetes is where run and suite run find the agents of
	// --server-agent-service (a plan's server_agent_service): the zero value
	// is the cluster of the pod fairbench runs in; tests point it at fakes.
	Kubernetes machinewatch.KubeEnv

	argv []string // the arguments of this invocation, for the result
	// dropin is the sysbench command line argv was read as, nil for
	// fairbench's own (see fromSysbench).
	dropin *sysbenchcli.Command
	// formNotes are the notes of a command line given in another tool's form
	// (go-tpc's: its defaults that differ, options without effect), printed
	// and, for a run, kept among the result's warnings.
	formNotes []string
	// pgbench is the pgbench command line argv was read as (see
	// fromPgbench), nil for other forms.
	pgbench *pgbenchcli.Command
	// beforeConnect, when set, is called where a command would first reach a
	// database, start a server or listen on a port; an error it returns ends
	// the command. The flag fuzz target stops there, after validation.
	beforeConnect func() error
}

// connecting is called just before a command first reaches outside the
// process (see beforeConnect).
func (a *App) connecting() error {
	if a.beforeConnect == nil {
		return nil
	}
	return a.beforeConnect()
}

// DefaultWorkloads returns the registry of built-in workloads.
func DefaultWorkloads() *workload.Registry {
	return workload.NewRegistry(slices.Concat(oltp.Specs(), tpcc.Specs(), pgbench.Specs())...)
}

// Execute runs the command line args (without the program name) and returns the
// exit code. Cancelling ctx interrupts a run (the result is still written).
func (a *App) Execute(ctx context.Context, args []string) int {
	if a.Getenv == nil {
		a.Getenv = os.Getenv
	}
	if a.IsTerminal == nil {
		a.IsTerminal = func(io.Writer) bool { return false }
	}
	if a.Workloads == nil {
		a.Workloads = DefaultWorkloads()
	}
	a.argv = args
	args, code, done := a.fromPgbench(args)
	if done {
		return code
	}
	args, code, done = a.fromGoTPC(args)
	if done {
		return code
	}
	root := a.commandTree(args)
	args, err := a.fromSysbench(root, args) // sysbench's order and spellings
	if err == nil {
		root.SetArgs(args)
		root.SetOut(a.Stdout)
		root.SetErr(a.Stderr)
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return ExitOK
	}
	code = ExitUsage // cobra's own errors are flag and argument errors
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if code != ExitInterrupted || ee == nil || ee.err.Error() != "" {
		fmt.Fprintf(a.Stderr, "fairbench: %v\n", err)
	}
	if code == ExitUsage && ee == nil {
		fmt.Fprintf(a.Stderr, "Run '%s --help' for usage.\n", commandPath(root, args))
	}
	return code
}

// CheckCommandLine runs args as Execute does but stops the command where it
// would first reach a database, start a server or listen on a port, so that a
// command line written elsewhere (a Kubernetes manifest, a script) can be
// checked in-process. It returns ExitOK when the command got that far, else
// the code it ended with (ExitUsage for a flag or value it refuses; the
// reason is on Stderr). A command that ends before reaching outside (a dry
// run, --help) returns its own code.
func (a *App) CheckCommandLine(ctx context.Context, args []string) int {
	reached := false
	saved := a.beforeConnect
	defer func() { a.beforeConnect = saved }()
	a.beforeConnect = func() error {
		reached = true
		return withCode(ExitInterrupted, errors.New("")) // ends the command quietly
	}
	code := a.Execute(ctx, args)
	if reached {
		return ExitOK
	}
	return code
}

// noSubcommand is the Args of a command whose words are its subcommands (as
// cobra.NoArgs): an unknown one gets cobra's suggestions, "unknown command
// "strat" for "fairbench server"; did you mean "start"?".
func noSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default
	}
	if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
		msg += "; did you mean " + suggest.Quoted(near) + "?"
	}
	return errors.New(msg)
}

// commandPath names the command args selected, for the usage hint.
func commandPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return root.Name()
	}
	return cmd.CommandPath()
}

// rootCommand builds the whole command tree.
func (a *App) rootCommand() *cobra.Command { return a.commandTree(nil) }

// commandTree builds the command tree args need. When args start with a
// phase ("run oltp_read_write ..."), the other phases get no workload
// subcommands (building every workload's flags for all five phases was a
// tenth of a short run's CPU), and when a workload's name follows, the phase
// gets that workload's alone. Any other command line gets the whole tree,
// with its flags' completions only for a shell's completion request (the one
// reader; registering them visits every flag of the tree).
func (a *App) commandTree(args []string) *cobra.Command {
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	only, workloads := phase(""), a.Workloads.Names()
	if slices.Contains(phases, phase(first)) {
		only = phase(first)
		if len(args) > 1 {
			if _, err := a.Workloads.Lookup(args[1]); err == nil {
				workloads = args[1:2]
			}
		}
	}
	root := &cobra.Command{
		Use:   "fairbench",
		Short: "Fair, reproducible OLTP benchmarks for MySQL-protocol servers, PostgreSQL and SQLite",
		Long: strings.TrimSpace(`
fairbench runs sysbench-compatible OLTP workloads against MySQL, MariaDB, Percona,
TiDB, PostgreSQL or an embedded SQLite database (the default when no server is
named), and writes results that record the machine and server they came from.

  fairbench run oltp_read_write --time=30 --threads=4        # embedded SQLite
  fairbench prepare oltp_read_write --mysql-host=db1 --tables=8 --table-size=1000000
  fairbench run oltp_read_write --mysql-host=db1 --tables=8 --table-size=1000000 \
      --threads=16 --time=300 --warmup-time=60 --report-interval=10 --output=rw16.json
  fairbench cleanup oltp_read_write --mysql-host=db1 --tables=8`),
		SilenceUsage:  true,
		SilenceErrors: true,
		// cobra's default, which SuggestionsFor does not apply itself.
		SuggestionsMinimumDistance: 2,
	}
	for _, p := range phases {
		var names []string // another phase's command line cannot reach p's workloads
		if only == "" || only == p {
			names = workloads
		}
		root.AddCommand(a.workloadCommand(p, names))
	}
	root.AddCommand(
		a.suiteCommand(),
		a.rerunCommand(),
		a.serverCommand(),
		a.mergeCommand(),
		a.compareCommand(),
		a.reportCommand(),
		a.costCommand(),
		a.bundleCommand(),
		a.siteCommand(),
		a.importCommand(),
		a.agentCommand(),
		a.listCommand(),
		a.sysinfoCommand(),
		a.versionCommand(),
	)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v", suggest.FlagError(err, c.Flags(), c.InheritedFlags()))
	})
	if first == cobra.ShellCompRequestCmd || first == cobra.ShellCompNoDescRequestCmd {
		registerCompletions(root)
	}
	refuseUnknownHelpTopics(root)
	return root
}

// suggestCommands returns the commands near a mistyped one: cobra's
// suggestions, and "help", which cobra never suggests.
func suggestCommands(root *cobra.Command) func(word string) []string {
	return func(word string) []string {
		near := root.SuggestionsFor(word)
		if suggest.Nearest(word, []string{"help"}) == "help" && !slices.Contains(near, "help") {
			near = append(near, "help")
		}
		return near
	}
}

// refuseUnknownHelpTopics makes `fairbench help TOPIC` with an unknown topic a
// usage error that suggests the nearest commands, where cobra's help prints
// "Unknown help topic" and the usage and exits 0.
func refuseUnknownHelpTopics(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() != "help" || c.Run == nil {
			continue
		}
		show := c.Run
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				if found, _, err := root.Find(args); err != nil || found == nil || found == root {
					msg := fmt.Sprintf("unknown help topic %q", strings.Join(args, " "))
					if near := suggestCommands(root)(args[0]); len(near) > 0 {
						msg += "; did you mean " + suggest.Quoted(near) + "?"
					}
					return usageErrorf("%s ('fairbench help' lists the commands)", msg)
				}
			}
			show(cmd, args)
			return nil
		}
	}
}
