// Package tpcc is the TPC-C workload (specification revision 5.11): schema and
// population per clauses 1.3 and 4.3, a parallel, resumable loader (or CSV
// files with --output-dir), the consistency conditions of clause 3.3.2 as
// set-based SQL, and the glue that runs the five transactions of package txn.
package tpcc

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Specs returns the tpcc workload.
func Specs() []workload.Spec {
	return []workload.Spec{{
		Name:    "tpcc",
		Summary: "TPC-C: New-Order, Payment, Order-Status, Delivery and Stock-Level over --warehouses warehouses",
		New:     func(fs *pflag.FlagSet) workload.Workload { return newTPCC(fs) },
	}}
}

// tpcc is one configured TPC-C workload.
type tpcc struct {
	opts Options
	fs   *pflag.FlagSet // to tell an explicit --warehouses from the default

	// run is what NewWorker reads from tpcc_meta once, shared by the workers.
	runMu   sync.Mutex
	run     *runConfig
	nextHom int // round-robin counter of home warehouses, under runMu
}

func newTPCC(fs *pflag.FlagSet) *tpcc {
	w := &tpcc{opts: DefaultOptions(), fs: fs}
	w.opts.register(fs)
	return w
}

// Validate checks the parsed options.
func (w *tpcc) Validate() error {
	if err := w.opts.validate(); err != nil {
		return fmt.Errorf("tpcc: %w", err)
	}
	return nil
}

// Missing returns the tables tpcc needs that the database lacks.
func (w *tpcc) Missing(ctx context.Context, conn driver.Conn, d driver.Dialect) (workload.Absent, error) {
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return workload.Absent{}, err
	}
	missing := workload.Absent{Needed: "the tpcc tables"}
	for _, t := range allTables() {
		if !present[t] {
			missing.Add(t)
		}
	}
	return missing, nil
}

// Cleanup drops the nine TPC-C tables and tpcc_meta if they exist.
func (w *tpcc) Cleanup(ctx context.Context, db driver.Driver, log io.Writer) error {
	conn, err := db.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("cleanup tpcc: connect: %w", err)
	}
	defer conn.Close()
	return dropTables(ctx, conn, db.Dialect(), log)
}

// dropTables drops every table of allTables (IF EXISTS), logging each.
func dropTables(ctx context.Context, conn driver.Conn, d driver.Dialect, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	for _, name := range allTables() {
		fmt.Fprintf(log, "Dropping table '%s'...\n", name)
		if _, err := conn.Exec(ctx, d.DropTable(name)); err != nil {
			return fmt.Errorf("drop table %s: %w", name, err)
		}
	}
	return nil
}

// compile-time checks of the interfaces tpcc implements.
var (
	_ workload.Workload    = (*tpcc)(nil)
	_ workload.Checker     = (*tpcc)(nil)
	_ workload.Kinded      = (*tpcc)(nil)
	_ workload.Summarizer  = (*tpcc)(nil)
	_ workload.Inspector   = (*tpcc)(nil)
	_ workload.OptionScope = (*tpcc)(nil)
)

// UnusedOptions names the options of the distribution of keys: TPC-C draws
// its keys uniformly or with NURand as clause 2.1.6 prescribes, in prepare and
// run alike. --rand-seed applies.
func (w *tpcc) UnusedOptions() map[string]string {
	why := "TPC-C draws its keys uniformly or with NURand, as its specification (clause 2.1.6) prescribes; the --rand-* distributions apply to the sysbench workloads"
	unused := map[string]string{}
	for _, n := range []string{"rand-type", "rand-zipfian-exp", "rand-pareto-h", "rand-spec-iter", "rand-spec-pct", "rand-spec-res"} {
		unused[n] = why
	}
	return unused
}

// bytesPerWarehouse is the loaded size of one warehouse with its indexes
// (about 100 MB on InnoDB and PostgreSQL; go-tpc's 10 warehouses take ~1 GB).
const bytesPerWarehouse = 100 << 20

// Tables names the nine TPC-C tables and tpcc_meta.
func (w *tpcc) Tables() []string { return allTables() }

// DataBytes estimates the loaded size of --warehouses warehouses.
func (w *tpcc) DataBytes() int64 { return int64(w.opts.Warehouses) * bytesPerWarehouse }

// Matches reports whether a complete load of --warehouses warehouses is there.
func (w *tpcc) Matches(ctx context.Context, conn driver.Conn, d driver.Dialect) (bool, string, error) {
	missing, err := w.Missing(ctx, conn, d)
	if err != nil {
		return false, "", err
	}
	if !missing.None() {
		return false, missing.String() + " missing", nil
	}
	m, err := readMeta(ctx, conn)
	if err != nil {
		return false, "", err
	}
	switch {
	case m.warehouses != w.opts.Warehouses:
		return false, fmt.Sprintf("it holds %d warehouses, not %d", m.warehouses, w.opts.Warehouses), nil
	case !m.complete():
		return false, "its load is not complete", nil
	}
	return true, "", nil
}
