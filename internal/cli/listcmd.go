package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func (a *App) listCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workloads with their options and defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := a.Stdout
			for _, name := range a.Workloads.Names() {
				spec, _ := a.Workloads.Lookup(name)
				fmt.Fprintf(w, "%s\n    %s\n", spec.Name, spec.Summary)
				fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
				spec.New(fs)
				fs.VisitAll(func(f *pflag.Flag) {
					fmt.Fprintf(w, "    --%-24s default %-10s %s\n", f.Name, quoteEmpty(f.DefValue), f.Usage)
				})
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, "Run 'fairbench run WORKLOAD --help' for the run, random-number and connection options.")
			return nil
		},
	}
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
