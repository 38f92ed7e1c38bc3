package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func (a *App) listCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workloads with their options and defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := jsonFormat(format)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.Stdout, a.workloadList())
			}
			a.list(a.Stdout)
			return nil
		},
	}
	addFormatFlag(cmd, &format, "text (the list) or json (workloads with their options, for scripts)")
	return cmd
}

// workloadInfo is one workload in `list --format json`.
type workloadInfo struct {
	Name    string       `json:"name"`
	Summary string       `json:"summary"`
	Options []optionInfo `json:"options"`
}

// optionInfo is one workload option in `list --format json`.
type optionInfo struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Usage   string `json:"usage"`
}

// workloadList describes every workload and its options.
func (a *App) workloadList() []workloadInfo {
	var out []workloadInfo
	for _, name := range a.Workloads.Names() {
		spec, _ := a.Workloads.Lookup(name)
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		spec.New(fs)
		info := workloadInfo{Name: spec.Name, Summary: spec.Summary, Options: []optionInfo{}}
		fs.VisitAll(func(f *pflag.Flag) {
			info.Options = append(info.Options, optionInfo{Name: f.Name, Default: f.DefValue, Usage: f.Usage})
		})
		out = append(out, info)
	}
	return out
}

// addFormatFlag adds --format to a command that prints text or JSON.
func addFormatFlag(cmd *cobra.Command, format *string, usage string) {
	cmd.Flags().StringVar(format, "format", "text", "output format: "+usage)
}

// jsonFormat checks a --format of text or json and reports whether it is json.
func jsonFormat(format string) (bool, error) {
	switch format {
	case "text":
		return false, nil
	case "json":
		return true, nil
	}
	return false, usageErrorf("--format %q: use text or json", format)
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("encoding JSON: %w", err))
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
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

// versionInfo is `version --format json`.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func (a *App) versionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := jsonFormat(format)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.Stdout, versionInfo{a.Version, a.Commit, runtime.Version(), runtime.GOOS, runtime.GOARCH})
			}
			fmt.Fprintf(a.Stdout, "fairbench %s", a.Version)
			if a.Commit != "" {
				fmt.Fprintf(a.Stdout, " (%s)", a.Commit)
			}
			fmt.Fprintf(a.Stdout, " %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
	addFormatFlag(cmd, &format, "text or json")
	return cmd
}
