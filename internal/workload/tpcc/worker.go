package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
	"github.com/fairbench/fairbench/internal/workload/tpcc/txn"
)

// runConfig is what a run learns from tpcc_meta once and shares between workers.
type runConfig struct {
	warehouses int
	cLoad      int64
}

// NewWorker returns a worker running the transaction mix on conn. Its home
// warehouse is assigned round-robin over the workers (a worker that reconnects
// gets the next one). The warehouse count and C_LOAD come from tpcc_meta, read
// once per workload.
func (w *tpcc) NewWorker(ctx context.Context, conn driver.Conn, d driver.Dialect, rng *randgen.Source) (workload.Worker, error) {
	rc, home, err := w.nextWorker(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	cfg := txn.Config{Warehouses: rc.warehouses, Mix: w.opts.mix, Wait: w.opts.Wait, CLoad: rc.cLoad}
	tw, err := txn.NewWorker(ctx, conn, d, rng, cfg, home)
	if err != nil {
		return nil, err
	}
	return tw, nil
}

// nextWorker reads the run configuration (the first time) and hands out the
// next home warehouse.
func (w *tpcc) nextWorker(ctx context.Context, conn driver.Conn, d driver.Dialect) (*runConfig, int, error) {
	w.runMu.Lock()
	defer w.runMu.Unlock()
	if w.run == nil {
		rc, err := w.readRunConfig(ctx, conn, d)
		if err != nil {
			return nil, 0, err
		}
		w.run = rc
	}
	home := w.nextHom%w.run.warehouses + 1
	w.nextHom++
	return w.run, home, nil
}

// readRunConfig reads tpcc_meta and refuses an incomplete load or a
// --warehouses that differs from the database's (Inspect has said so before
// the run; this holds if the data changed since).
func (w *tpcc) readRunConfig(ctx context.Context, conn driver.Conn, d driver.Dialect) (*runConfig, error) {
	m, err := w.loadedMeta(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	return &runConfig{warehouses: m.warehouses, cLoad: m.cLoad}, nil
}

// loadedMeta reads tpcc_meta and refuses what no run or check can use: no
// load, an incomplete load, or an explicit --warehouses other than the
// load's. Tables that are not there are named as missing, not as the
// server's error about the query that needed them.
func (w *tpcc) loadedMeta(ctx context.Context, conn driver.Conn, d driver.Dialect) (*loadMeta, error) {
	m, err := readMeta(ctx, conn)
	if err != nil {
		if missing, lerr := w.Missing(ctx, conn, d); lerr == nil && !missing.None() {
			what := "the tpcc tables are missing"
			if missing.Count < len(allTables()) {
				what = "tpcc " + missing.String() + " missing"
			}
			return nil, fmt.Errorf("tpcc is not prepared in this database: %s: run 'fairbench prepare tpcc --warehouses=N' with the same connection options first", what)
		}
		return nil, fmt.Errorf("tpcc is not prepared in this database (%w): run 'fairbench prepare tpcc --warehouses=N' first", err)
	}
	if !m.complete() {
		missing := m.unloaded()
		ws := make([]string, len(missing))
		for i, n := range missing {
			ws[i] = strconv.Itoa(n)
		}
		what := "the indexes are missing"
		if len(ws) > 0 {
			what = "warehouses " + strings.Join(ws, ", ") + " are not loaded"
		}
		return nil, fmt.Errorf("the tpcc load is incomplete (%s): run 'fairbench prepare tpcc --warehouses=%d' again to finish it", what, m.warehouses)
	}
	if w.warehousesGiven() && w.opts.Warehouses != m.warehouses {
		return nil, fmt.Errorf("--warehouses=%d, but the database holds %d warehouses (%s): run with --warehouses=%d (or without the flag), or load %d with 'fairbench prepare tpcc --warehouses=%d --replace'",
			w.opts.Warehouses, m.warehouses, tMeta, m.warehouses, w.opts.Warehouses, w.opts.Warehouses)
	}
	return m, nil
}

// warehousesGiven reports whether --warehouses was set (on the command line
// or by a suite's data set) rather than left at its default.
func (w *tpcc) warehousesGiven() bool { return w.fs != nil && w.fs.Changed("warehouses") }

// Inspect reads tpcc_meta before a run or a check: it refuses an incomplete
// load or an explicit --warehouses other than the load's, and without
// --warehouses adopts the load's count, so that the result records the
// warehouses that ran.
func (w *tpcc) Inspect(ctx context.Context, conn driver.Conn, d driver.Dialect) (workload.DataReport, error) {
	m, err := w.loadedMeta(ctx, conn, d)
	if err != nil {
		return workload.DataReport{}, err
	}
	found := strconv.Itoa(m.warehouses)
	check := result.DataCheck{Option: "warehouses", Found: found, Source: tMeta}
	rep := workload.DataReport{}
	if w.warehousesGiven() {
		check.Asked = strconv.Itoa(w.opts.Warehouses)
	} else {
		w.opts.Warehouses = m.warehouses
		rep.Options = map[string]string{"warehouses": found}
	}
	rep.Checks = []result.DataCheck{check}
	return rep, nil
}

// Kinds names the five transactions in Counts.Kind order.
func (w *tpcc) Kinds() []string { return txn.Kinds }
