package tpcc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/workload"
)

// maxWarehouses keeps every id inside the INTEGER columns and the load plan sane.
const maxWarehouses = workload.MaxWarehouses

// defaultMix is the transaction mix of clause 5.2.3 in txn.Kinds order.
const defaultMix = "45,43,4,4,4"

// Options are the tpcc options, named as go-tpc names them where the concept is
// the same. --threads and --check-all belong to the CLI.
type Options struct {
	Warehouses int    // --warehouses
	Parts      int    // --parts: hash partitions of the warehouse-keyed tables (1 = none)
	Wait       bool   // --wait: keying and think times (clause 5.2.5)
	Mix        string // --mix: weights of new_order,payment,order_status,delivery,stock_level
	NoCheck    bool   // --no-check: prepare skips the post-load consistency check
	OutputDir  string // --output-dir: prepare writes CSV files instead of loading

	mix [5]int // Mix parsed by validate
}

// DefaultOptions returns the defaults: 10 warehouses, no partitions, no
// waiting, the spec's mix, post-load check on, loading into the database.
func DefaultOptions() Options {
	return Options{Warehouses: 10, Parts: 1, Mix: defaultMix}
}

// register binds o's fields to flags on fs with o's values as defaults.
func (o *Options) register(fs *pflag.FlagSet) {
	fs.IntVar(&o.Warehouses, "warehouses", o.Warehouses, "Number of warehouses")
	fs.IntVar(&o.Parts, "parts", o.Parts, "Hash partitions of the warehouse-keyed tables by warehouse id, where the database supports it (1 = not partitioned)")
	fs.BoolVar(&o.Wait, "wait", o.Wait, "Keying and think times of TPC-C clause 5.2.5 (spec mode; off = throughput mode)")
	fs.StringVar(&o.Mix, "mix", o.Mix, "Transaction mix: weights of new_order,payment,order_status,delivery,stock_level")
	fs.BoolVar(&o.NoCheck, "no-check", o.NoCheck, "prepare: skip the consistency check after loading")
	fs.StringVar(&o.OutputDir, "output-dir", o.OutputDir, "prepare: write the data as CSV files into this directory instead of loading it")
}

// validate checks the options; each error names the flag and what to change.
func (o *Options) validate() error {
	if o.Warehouses < 1 || o.Warehouses > maxWarehouses {
		return fmt.Errorf("--warehouses=%d: use 1 to %d warehouses", o.Warehouses, maxWarehouses)
	}
	if o.Parts < 1 || o.Parts > 1024 {
		return fmt.Errorf("--parts=%d: use 1 (no partitioning) to 1024 partitions", o.Parts)
	}
	mix, err := parseMix(o.Mix)
	if err != nil {
		return fmt.Errorf("--mix=%q: %w", o.Mix, err)
	}
	o.mix = mix
	if o.OutputDir != "" {
		if err := outfile.CheckDir(o.OutputDir); err != nil {
			return fmt.Errorf("--output-dir=%s: %w", o.OutputDir, err)
		}
	}
	return nil
}

// parseMix reads five non-negative weights separated by commas (or '/').
func parseMix(s string) ([5]int, error) {
	var mix [5]int
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '/' })
	if len(fields) != len(mix) {
		return mix, fmt.Errorf("give 5 weights for new_order,payment,order_status,delivery,stock_level, e.g. %s", defaultMix)
	}
	total := 0
	for i, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 1000000 {
			return mix, fmt.Errorf("weight %q is not a whole number from 0 to 1000000", f)
		}
		mix[i] = n
		total += n
	}
	if total == 0 {
		return mix, fmt.Errorf("at least one weight must be above 0, e.g. %s", defaultMix)
	}
	return mix, nil
}
