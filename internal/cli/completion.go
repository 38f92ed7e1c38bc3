package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// formatValues are the --format values of each command that has the flag,
// by the command's path without "fairbench " ("compare", "suite status");
// the shell completes them (`fairbench completion bash|zsh|fish|powershell`).
var formatValues = map[string][]string{
	"compare":      {"text", "md", "csv", "json"},
	"report":       {"html", "text", "md", "csv", "json"},
	"cost":         {"text", "md", "csv", "json"},
	"merge":        {"text", "json"},
	"sysinfo":      {"text", "json"},
	"list":         {"text", "json"},
	"version":      {"text", "json"},
	"suite status": {"text", "json"},
	"run":          {"text", "json"}, // every `run WORKLOAD`
}

// flagValues are the values of flags that mean the same on every command.
func flagValues() map[string][]string {
	ssl := make([]string, 0, len(driver.SSLModes()))
	for _, m := range driver.SSLModes() {
		ssl = append(ssl, string(m))
	}
	return map[string][]string{
		"rand-type":  randgen.Types(),
		"db-driver":  {driver.KindMySQL, driver.KindPgSQL, driver.KindSQLite},
		"db-ps-mode": {"auto", "disable"},
		"mysql-ssl":  ssl,
		"pgsql-ssl":  ssl,
	}
}

// planFileArgs are the commands whose argument is a plan file: the shell
// completes YAML files.
var planFileArgs = map[string]bool{"suite run": true}

// registerCompletions teaches the shell the values of fairbench's flags and
// arguments: workload names complete as the subcommands they are, flag
// values from the lists above, plan files by their extension.
func registerCompletions(root *cobra.Command) {
	values := flagValues()
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		path := commandKey(cmd)
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			vals := values[f.Name]
			if f.Name == "format" {
				vals = formatValues[path]
			}
			if vals != nil {
				_ = cmd.RegisterFlagCompletionFunc(f.Name, fixedValues(vals))
			}
		})
		if planFileArgs[path] {
			cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
			}
		}
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(root)
}

// commandKey is a command's path without the root's name; the workload
// subcommands of a phase are keyed by the phase ("run").
func commandKey(cmd *cobra.Command) string {
	parts := strings.Fields(cmd.CommandPath())
	if len(parts) > 0 {
		parts = parts[1:]
	}
	if len(parts) == 2 && isPhase(parts[0]) {
		parts = parts[:1]
	}
	return strings.Join(parts, " ")
}

// isPhase reports whether name is one of the workload commands.
func isPhase(name string) bool {
	switch phase(name) {
	case phasePrepare, phaseRun, phaseCleanup, phaseCheck, phaseWarmup:
		return true
	}
	return false
}

// fixedValues completes a flag from a fixed list, without file names.
func fixedValues(vals []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, v := range vals {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
