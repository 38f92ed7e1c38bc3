package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/compat/gotpccli"
	"github.com/fairbench/fairbench/internal/compat/gotpcout"
	"github.com/fairbench/fairbench/internal/compat/pgbenchcli"
	"github.com/fairbench/fairbench/internal/workload"
)

// fromGoTPC translates a go-tpc command line (`fairbench tpcc [flags]
// prepare|run|check|cleanup`, see gotpccli) into fairbench's own form; other
// command lines are returned as they are. The translation's notes are kept
// for the command (formNotes) and the result records the command line as
// given. done reports that the command already ended (help, a refusal) with
// code.
func (a *App) fromGoTPC(args []string) (out []string, code int, done bool) {
	if !gotpccli.Claims(args) {
		return args, ExitOK, false
	}
	tr, err := gotpccli.Translate(args, a.tpccFlags())
	if err != nil {
		fmt.Fprintf(a.Stderr, "fairbench: %v\n", err)
		return nil, ExitUsage, true
	}
	if tr.Help != "" {
		fmt.Fprint(a.Stdout, tr.Help)
		return nil, ExitOK, true
	}
	a.argv = tr.CommandLine
	a.formNotes = tr.Notes
	return tr.Args, ExitOK, false
}

// tpccFlags are the options of every tpcc command in fairbench's form, which
// the go-tpc form passes through where go-tpc has none of the name (nil
// when the registry has no tpcc).
func (a *App) tpccFlags() *pflag.FlagSet {
	spec, err := a.Workloads.Lookup(gotpccli.Workload)
	if err != nil {
		return nil
	}
	fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
	for _, p := range []phase{phasePrepare, phaseRun, phaseCheck, phaseCleanup} {
		fs.AddFlagSet(a.newInvocation(p, spec).command.Flags())
	}
	return fs
}

// goTPCPrinter returns the printer of go-tpc's lines on w for --output-style
// go-tpc*, nil for fairbench's layout; a style the run cannot have is an
// error.
func (inv *invocation) goTPCPrinter(w io.Writer) (*gotpcout.Printer, error) {
	style := inv.run.outputStyle
	if style == gotpccli.StyleFairbench || style == pgbenchcli.StylePgbench {
		return nil, nil
	}
	gs, ok := gotpccli.Output(style)
	if !ok {
		return nil, fmt.Errorf("unknown --output-style %q: use %s", style, strings.Join(gotpccli.Styles, ", "))
	}
	if inv.run.format == "json" {
		return nil, fmt.Errorf("--output-style %s prints go-tpc's lines on standard output, where --format json would print the result: write the result with --output FILE instead", style)
	}
	var kinds []string
	if k, ok := inv.wl.(workload.Kinded); ok {
		kinds = k.Kinds()
	}
	p, err := gotpcout.New(w, gs, kinds)
	if err != nil {
		return nil, fmt.Errorf("--output-style %s with %s: %w", style, inv.spec.Name, err)
	}
	return p, nil
}
