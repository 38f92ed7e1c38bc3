package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/analysis/cost"
	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// bundleCommand is `fairbench bundle create|verify`.
func (a *App) bundleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Share results as one verified file (NAME.fbz) that compare, report and cost read",
		Long: strings.TrimSpace(`
A bundle is one file holding a suite directory (or result files), the plan or
the recorded command lines, the price sheet if given, a README and a manifest of
SHA-256 hashes. Host names, addresses, user names and secrets are redacted.

  fairbench bundle create results/ -o mariadb-arm.fbz --prices prices/aws.yaml
  fairbench bundle verify mariadb-arm.fbz
  fairbench compare mariadb-arm.fbz pg-arm.fbz

Every command refuses a bundle whose content changed, naming the member.
See docs/bundles.md.`),
		Args: noSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.bundleCreateCommand(), a.bundleVerifyCommand())
	return cmd
}

// bundleCreateFlags are the options of `bundle create`.
type bundleCreateFlags struct {
	out             string
	prices          string
	keepHosts       bool
	allowIncomplete bool
	force           bool
}

func (a *App) bundleCreateCommand() *cobra.Command {
	f := &bundleCreateFlags{}
	cmd := &cobra.Command{
		Use:   "create SUITE_DIR|RESULTS… -o NAME.fbz",
		Short: "Write a bundle of a suite directory or of result files",
		Long: strings.TrimSpace(`
create writes one suite directory (the --out of fairbench suite run), or one or
more result files, into a bundle: data/ keeps the directory's layout, bundle.json
records the plan (or each result's command line), fairbench's version, what was
redacted (counts, never values) and the SHA-256 of every member and of the whole.

Redacted by default, with stable placeholders (the same host is host-1 in every
file, so machines still compare): host names and IP addresses (loopback ones
stay), user names, and values that look like secrets (passwords, tokens, keys,
DSN credentials). --keep-hosts keeps host names and addresses; users and
secrets are redacted all the same.

A suite that did not complete is refused unless --allow-incomplete (the bundle
then says so); so are results that did not complete.`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("bundle create needs a suite directory or result files: fairbench bundle create results/ -o NAME.fbz")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.bundleCreate(args, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "output", "o", "", "the bundle to write (NAME.fbz)")
	fl.StringVar(&f.prices, "prices", "", "a price sheet (YAML, docs/price-sheet.md) to bundle as prices.yaml")
	fl.BoolVar(&f.keepHosts, "keep-hosts", false, "keep host names and IP addresses (user names and secrets are redacted all the same)")
	fl.BoolVar(&f.allowIncomplete, "allow-incomplete", false, "bundle a suite (or results) that did not complete, marked incomplete")
	fl.BoolVar(&f.force, "force", false, "replace the output file when it exists")
	return cmd
}

// bundleCreate checks the output and the operands, then writes the bundle.
func (a *App) bundleCreate(args []string, f *bundleCreateFlags) error {
	if f.out == "" {
		return usageErrorf("bundle create: give the bundle's name with -o NAME%s", bundle.Ext)
	}
	if _, err := os.Lstat(f.out); err == nil && !f.force {
		return usageErrorf("bundle create: %s exists: give --force to replace it, or another -o", f.out)
	}
	if err := outfile.Check(f.out); err != nil {
		return usageErrorf("bundle create: cannot write %s: %v", f.out, err)
	}
	opts := bundle.CreateOptions{KeepHosts: f.keepHosts, AllowIncomplete: f.allowIncomplete,
		Tool: result.Tool{Name: "fairbench", Version: a.Version, Commit: a.Commit, Go: runtime.Version()}}
	var err error
	if opts.Suite, opts.Results, err = bundleOperands(args); err != nil {
		return err
	}
	if f.prices != "" {
		if _, err := cost.LoadSheet(f.prices); err != nil {
			return usageErrorf("--prices: %v", err)
		}
		if opts.Prices, err = os.ReadFile(f.prices); err != nil {
			return usageErrorf("--prices: %v", err)
		}
	}
	out, err := outfile.Create(f.out)
	if err != nil {
		return usageErrorf("bundle create: %v", err)
	}
	m, err := bundle.Create(out, opts)
	if err != nil {
		out.Abort()
		return withCode(ExitFailed, err)
	}
	if err := out.Commit(); err != nil {
		return withCode(ExitFailed, fmt.Errorf("bundle create: %w", err))
	}
	if st, err := os.Stat(f.out); err == nil && st.Mode().IsRegular() { // read back, as every reader will
		if _, err := bundle.Open(f.out); err != nil {
			return withCode(ExitFailed, fmt.Errorf("bundle create: the bundle written does not read back: %w", err))
		}
	}
	fmt.Fprintf(a.Stdout, "wrote %s: %s, %d members, sha256 %s\n", f.out, holds(m), len(m.Members), m.SHA256)
	fmt.Fprintf(a.Stdout, "redacted: %s\n", redactions(m))
	return nil
}

// bundleOperands sorts the operands of bundle create: one suite directory,
// or result files.
func bundleOperands(args []string) (suite string, results []string, err error) {
	for _, p := range args {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", nil, usageErrorf("bundle create: %s: no such file or directory: give a suite directory or result files", p)
		case err != nil:
			return "", nil, usageErrorf("bundle create: %v", err)
		case st.IsDir():
			if _, err := os.Stat(filepath.Join(p, suitedir.ManifestName)); err != nil {
				return "", nil, usageErrorf("bundle create: %s is a directory without %s, not a suite directory: give the --out directory of a fairbench suite run, or result files (%s)", p, suitedir.ManifestName, filepath.Join(p, "*.json"))
			}
			if len(args) > 1 {
				return "", nil, usageErrorf("bundle create: %s is a suite directory: a bundle holds one suite directory alone, or result files", p)
			}
			return p, nil, nil
		case bundle.IsBundle(p):
			return "", nil, usageErrorf("bundle create: %s is a bundle already: give the suite directory or result files it was made of", p)
		}
		results = append(results, p)
	}
	return "", results, nil
}

func (a *App) bundleVerifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify NAME.fbz",
		Short: "Check a bundle's hashes and schema, and list its members",
		Long: strings.TrimSpace(`
verify reads the bundle as every command does: it checks the archive (no paths
outside it, no links, no oversized or duplicate members), the bundle schema,
every member's SHA-256 and size against bundle.json, and the whole hash. It
prints the members and "ok", or names the member that changed and exits 1.`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("bundle verify needs one bundle: fairbench bundle verify NAME%s", bundle.Ext)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.bundleVerify(args[0]) },
	}
}

// bundleVerify opens (so verifies) a bundle and describes it.
func (a *App) bundleVerify(path string) error {
	b, err := bundle.Open(path)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	m := b.Manifest()
	w := a.Stdout
	fmt.Fprintf(w, "bundle %s: schema %s, written %s by %s %s\n", path, m.Schema, m.Created.Format("2006-01-02 15:04:05 UTC"), m.Tool.Name, m.Tool.Version)
	fmt.Fprintf(w, "holds: %s\n", holds(m))
	fmt.Fprintf(w, "result schemas: %s\n", strings.Join(m.ResultSchemas, ", "))
	fmt.Fprintf(w, "redacted: %s\n", redactions(m))
	fmt.Fprintf(w, "members:\n")
	for _, mb := range m.Members {
		fmt.Fprintf(w, "  %s  %9d  %s\n", mb.SHA256, mb.Size, mb.Name)
	}
	fmt.Fprintf(w, "whole sha256: %s\n", m.SHA256)
	fmt.Fprintln(w, "ok")
	return nil
}

// holds says what a bundle holds, in a few words.
func holds(m *bundle.Manifest) string {
	if m.Suite == nil {
		return fmt.Sprintf("%d result file(s)", len(m.Runs))
	}
	s := fmt.Sprintf("suite %s (%s", m.Suite.Name, m.Suite.Status)
	for _, st := range slices.Sorted(maps.Keys(m.Suite.Cells)) {
		s += fmt.Sprintf(", %d %s", m.Suite.Cells[st], st)
	}
	if m.Suite.Incomplete {
		s += "; bundled incomplete"
	}
	return s + ")"
}

// redactions lists what a bundle's redaction replaced, by kind.
func redactions(m *bundle.Manifest) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m.Redacted)) {
		parts = append(parts, fmt.Sprintf("%d %s", m.Redacted[k], k))
	}
	s := strings.Join(parts, ", ")
	if s == "" {
		s = "nothing"
	}
	if m.KeptHosts {
		s += " (host names and addresses kept: --keep-hosts)"
	}
	return s
}
