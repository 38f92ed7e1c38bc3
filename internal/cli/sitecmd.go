package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/analysis/cost"
	"github.com/fairbench/fairbench/internal/analysis/site"
	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/result"
)

// siteFlags are the options of `fairbench site`.
type siteFlags struct {
	out       string
	title     string
	prices    string
	systems   []string
	pricePerf string
	force     bool
}

// siteCommand is `fairbench site OPERANDS… -o DIR`.
func (a *App) siteCommand() *cobra.Command {
	f := &siteFlags{}
	cmd := &cobra.Command{
		Use:   "site [LABEL=]RESULTS… -o DIR [flags]",
		Short: "A static results site: one filterable, sortable page of every system, with each operand's full report",
		Long:  siteHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usageErrorf("site needs result files, suite directories or bundles: fairbench site A B C -o DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.site(args, f) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.out, "out", "o", "", "the site's directory: index.html and reports/ are written there (required; an existing directory that is not empty needs --force)")
	fs.StringVar(&f.title, "title", "", "the page's title")
	fs.StringVar(&f.prices, "prices", "", "price sheet (YAML, see docs/price-sheet.md; examples in prices/): price-performance of the systems it has")
	fs.StringArrayVar(&f.systems, "system", nil, "which price-sheet system a system ran on: LABEL=SYSTEM (repeat; default: the system named like the label, else the one the recorded instance types and region match; a system matched by none is not priced)")
	fs.StringVar(&f.pricePerf, "price-perf", "period", "cost basis of price-performance (cost ÷ throughput): hour, month, year or period")
	fs.BoolVar(&f.force, "force", false, "write into an existing directory that is not empty (index.html and the reports are replaced; other files are left)")
	return cmd
}

// siteHelp is the site command's long help.
const siteHelp = `site writes a static results site into a directory: index.html, one page listing
every system of every operand — one row per system, workload row and thread count — with
its server machine (CPU, vCPUs, architecture), cloud placement, server flavour and
version, figure with its 95 % interval, rounds and, with --prices, price-performance;
select boxes filter the rows (workload, threads, server, architecture, cloud) and a
click on a column's heading sorts by it. Each operand's full report (as fairbench report
--format html writes it) is written to reports/NAME.html and linked from the page.

Operands are read as compare reads them (result files, suite directories, directories of
results; LABEL=PATH to name a system). The page loads nothing from anywhere (a strict
Content-Security-Policy, its script and style inline): it works from file:// and offline.

  fairbench site arm=results/arm-suite x86=results/x86-suite -o site/
  fairbench site A B C -o site/ --prices prices/tidb-eks-graviton2-vs-x86-2021.yaml --system A=arm-us`

// site is `fairbench site`: the output directory is checked before any
// operand is read, then the site is built and written.
func (a *App) site(args []string, f *siteFlags) error {
	if err := f.checkOut(); err != nil {
		return err
	}
	opts := site.Options{Title: f.title, ReadResult: result.Read}
	basis, err := cost.ParseBasis(f.pricePerf)
	if err != nil {
		return usageErrorf("--price-perf: %v", err)
	}
	operands := operandLabels(args)
	if f.prices != "" {
		sheet, err := loadSheet(f.prices)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		opts.Prices = &site.Prices{Sheet: sheet, Systems: f.systems, PricePerf: basis}
	} else if opts.OwnPrices, err = ownPrices(operands, f.systems, basis); err != nil {
		return withCode(ExitUsage, err)
	} else if len(f.systems) > 0 && len(opts.OwnPrices) == 0 {
		return usageErrorf("--system maps systems to a price sheet's: give the sheet with --prices (no operand is a bundle with its own)")
	}
	systems, err := loadSystems(operands, &compareFlags{})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	s, err := site.Build(systems, opts)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	d, err := outfile.MakeDir(f.out)
	if err != nil {
		return usageErrorf("--out: %v", err)
	}
	files, err := s.WriteDir(f.out)
	if err != nil {
		if len(files) == 0 {
			d.Discard()
		}
		return withCode(ExitFailed, err)
	}
	fmt.Fprintf(a.Stderr, "fairbench: wrote the site of %d systems (%d rows) to %s: open %s\n", len(s.Operands), len(s.Rows), f.out, filepath.Join(f.out, site.IndexFile))
	return nil
}

// ownPrices are the price sheets bundled with the labelled operands
// (bundle create --prices), by label: without --prices, a bundle's system
// is priced by its own sheet. An unlabelled operand has none (its label is
// not known before it is read).
func ownPrices(operands, systems []string, basis cost.Basis) (map[string]*site.Prices, error) {
	own := map[string]*site.Prices{}
	for _, arg := range operands {
		label, path, ok := strings.Cut(arg, "=")
		if !ok || !labelled(arg) || own[label] != nil || !bundle.IsBundle(path) {
			continue
		}
		sheet, err := bundleSheet(path)
		if err != nil {
			return nil, err
		}
		if sheet == nil {
			continue
		}
		own[label] = &site.Prices{Sheet: sheet, Systems: systems, PricePerf: basis}
	}
	return own, nil
}

// operandLabels labels each unlabelled operand by its name (a bundle's or
// directory's base name, without .fbz or .json), as a results site lists
// what people published: the machine label compare derives says little when
// the bundles come from alike machines. Names two operands share stay
// unlabelled (one label would pool them into one system).
func operandLabels(args []string) []string {
	name := func(arg string) string {
		base := filepath.Base(filepath.Clean(arg))
		return strings.TrimSuffix(strings.TrimSuffix(base, bundle.Ext), ".json")
	}
	count := map[string]int{}
	for _, arg := range args {
		if !labelled(arg) {
			count[name(arg)]++
		}
	}
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = arg
		if n := name(arg); !labelled(arg) && count[n] == 1 && n != "" && !strings.Contains(n, "=") {
			out[i] = n + "=" + arg
		}
	}
	return out
}

// labelled reports whether an operand is LABEL=PATH (analysis.LoadSystems'
// rule).
func labelled(arg string) bool {
	l, _, ok := strings.Cut(arg, "=")
	return ok && !strings.ContainsRune(l, os.PathSeparator)
}

// checkOut checks --out before anything is read: given, a directory this
// process may write in (or create), and not an existing directory with
// files in it unless --force.
func (f *siteFlags) checkOut() error {
	if f.out == "" {
		return usageErrorf("site needs its directory: --out DIR (-o DIR)")
	}
	if err := outfile.CheckDir(f.out); err != nil {
		return usageErrorf("--out: %v", err)
	}
	entries, err := os.ReadDir(f.out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErrorf("--out: %v", err)
	case len(entries) > 0 && !f.force:
		return usageErrorf("--out %s: the directory exists and is not empty: name a new directory, or give --force to write the site into it (index.html and reports/ are replaced)", f.out)
	}
	return nil
}
