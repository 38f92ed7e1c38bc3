package cli

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func (a *App) listCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workloads with their options and defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.list(a.Stdout)
			return nil
		},
	}
}

// list prints the workloads, then their options once per group of workloads
// that share the same options (the whole OLTP family does).
func (a *App) list(w io.Writer) {
	type group struct {
		names []string
		text  string
	}
	var groups []*group
	bySignature := map[string]*group{}
	fmt.Fprintln(w, "Workloads:")
	for _, name := range a.Workloads.Names() {
		spec, _ := a.Workloads.Lookup(name)
		fmt.Fprintf(w, "  %-24s %s\n", spec.Name, spec.Summary)
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		spec.New(fs)
		var b strings.Builder
		fs.VisitAll(func(f *pflag.Flag) {
			fmt.Fprintf(&b, "    --%-24s default %-10s %s\n", f.Name, quoteEmpty(f.DefValue), f.Usage)
		})
		g, ok := bySignature[b.String()]
		if !ok {
			g = &group{text: b.String()}
			bySignature[g.text] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, name)
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\nOptions of %s:\n%s", strings.Join(g.names, ", "), g.text)
	}
	fmt.Fprintln(w, "\nRun 'fairbench run WORKLOAD --help' for the run, random-number and connection options.")
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func (a *App) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(a.Stdout, "fairbench %s", a.Version)
			if a.Commit != "" {
				fmt.Fprintf(a.Stdout, " (%s)", a.Commit)
			}
			fmt.Fprintf(a.Stdout, " %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
