package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/compat/sysbenchcli"
	"github.com/fairbench/fairbench/internal/workload/oltp"
)

// OptionIgnored is the result option that lists the options given and
// ignored: those of another command (sysbench's one option set for every
// command) and those of another driver, each with what takes it.
const OptionIgnored = "ignored-options"

// fromSysbench rewrites a sysbench command line (see sysbenchcli) into
// fairbench's order and prints its notes; other command lines come back
// unchanged. The resolved command is kept for the run's result.
func (a *App) fromSysbench(root *cobra.Command, args []string) ([]string, error) {
	c, err := sysbenchcli.Translate(args, a.sysbenchCatalog(root))
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if c == nil {
		return args, nil
	}
	a.dropin = c
	for _, n := range c.Notes {
		fmt.Fprintf(a.Stderr, "fairbench: note: %s\n", n)
	}
	return c.Args, nil
}

// sysbenchCatalog describes fairbench's commands to sysbenchcli.
func (a *App) sysbenchCatalog(root *cobra.Command) sysbenchcli.Catalog {
	cat := sysbenchcli.Catalog{
		Workloads: a.Workloads.Names(),
		Commands:  []string{"help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd},
		ReadFile:  os.ReadFile,
		Suggest:   suggestCommands(root),
	}
	for _, s := range oltp.Specs() {
		if _, err := a.Workloads.Lookup(s.Name); err == nil {
			cat.Tests = append(cat.Tests, s.Name)
		}
	}
	for _, c := range root.Commands() {
		cat.Commands = append(append(cat.Commands, c.Name()), c.Aliases...)
	}
	cache := map[string]*pflag.FlagSet{}
	cat.Flags = func(p, test string) *pflag.FlagSet {
		key := p + " " + test
		if fs, ok := cache[key]; ok {
			return fs
		}
		spec, err := a.Workloads.Lookup(test)
		if err != nil {
			return nil
		}
		// The command tree has the command when args reach it (read only
		// here: lookups); else one is built for its flags.
		if cmd, _, err := root.Find([]string{p, test}); err == nil && cmd.Name() == test && cmd.HasParent() && cmd.Parent().Name() == p {
			cache[key] = cmd.Flags()
			return cmd.Flags()
		}
		fs := a.newInvocation(phase(p), spec).command.Flags()
		cache[key] = fs
		return fs
	}
	return cat
}

// dropinIgnored is what the sysbench order left out for this command: the
// note line (none when nothing was; the workload command prints it, and a run
// records it among its warnings) and the options with what takes them.
func (a *App) dropinIgnored() (note string, options []string) {
	if a.dropin == nil || len(a.dropin.Ignored) == 0 {
		return "", nil
	}
	for _, ig := range a.dropin.Ignored {
		opt := ig.String()
		if secretFlags[ig.Name] && ig.Value != "" {
			opt = "--" + ig.Name + "=***"
		}
		options = append(options, fmt.Sprintf("%s (%s)", opt, ig.Of))
	}
	return a.dropin.IgnoredNote(), options
}

// recordIgnored adds OptionIgnored to a run's options: the options of other
// commands and of other drivers that were given and ignored.
func (inv *invocation) recordIgnored(opts map[string]string) {
	_, ignored := inv.app.dropinIgnored()
	_, others := inv.target.otherDriverFlags(inv.command.Flags())
	for _, n := range others {
		ignored = append(ignored, fmt.Sprintf("%s (driver %s)", n, driverOf(strings.TrimPrefix(n, "--"))))
	}
	if len(ignored) > 0 {
		opts[OptionIgnored] = strings.Join(ignored, ", ")
	}
}
