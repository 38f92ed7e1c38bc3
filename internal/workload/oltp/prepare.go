package oltp

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fairbench/fairbench/internal/base/gcballast"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Prepare creates sbtest1..sbtestN, loads table-size rows into each with
// env.Threads loaders in parallel, and then creates the secondary index k_N on
// each, as sysbench's prepare command does. Existing tables are an error unless
// env.Replace, which drops them first.
func (w *oltp) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	if env.Driver == nil || env.Rand == nil {
		return errors.New("prepare: PrepareEnv needs a Driver and a Rand factory")
	}
	log := workload.SyncWriter(env.Log)
	d := env.Driver.Dialect()
	conn, err := env.Driver.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("prepare %s: connect: %w", w.kind.name(), err)
	}
	conns := []driver.Conn{conn}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()

	present, err := w.checkExisting(ctx, conn, env, log)
	if err != nil {
		return err
	}
	// Marked before the first table exists, unmarked table by table once
	// complete: an interrupted load leaves its tables marked.
	if err := w.markLoading(ctx, conn, d, present); err != nil {
		return fmt.Errorf("prepare %s: %w", w.kind.name(), err)
	}
	for n := 1; n <= w.opts.Tables; n++ {
		fmt.Fprintf(log, "Creating table '%s'...\n", tableName(n))
		for _, q := range d.CreateTable(w.opts.tableDef(n)) {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("create table %s: %w", tableName(n), err)
			}
		}
	}

	rows := w.rowsPerTable()
	env.Progress.SetTotal(rows * int64(w.opts.Tables)) // for the ETA
	batches, err := planBatches(ctx, w.opts.Tables, rows)
	if err != nil {
		return err
	}
	jobs, err := planJobs(ctx, batches, w.opts.Tables, env.Threads)
	if err != nil {
		return err
	}
	loaders := max(1, min(env.Threads, len(jobs)))
	for i := len(conns); i < loaders; i++ {
		c, err := env.Driver.Connect(ctx, i)
		if err != nil {
			return fmt.Errorf("prepare %s: connect loader %d: %w", w.kind.name(), i+1, err)
		}
		conns = append(conns, c)
	}
	if rows > 0 {
		for n := 1; n <= w.opts.Tables; n++ {
			fmt.Fprintf(log, "Inserting %d records into '%s'\n", rows, tableName(n))
		}
	}
	// Every row allocates its strings: the ballast spaces out the collections
	// that would otherwise run every few megabytes of rows (about a sixth of
	// the loader's CPU on MariaDB, measured with bench/load-limit.sh).
	err = gcballast.With(func() error {
		return workload.RunParallel(ctx, conns, len(jobs), func(ctx context.Context, c driver.Conn, i int) error {
			job := jobs[i]
			src := &jobSource{batches: job, rand: env.Rand.Source, tableSize: int64(w.opts.TableSize), progress: env.Progress}
			n, err := c.BulkInsert(ctx, tableName(job[0].table), loadColumns(), src)
			if err != nil {
				return fmt.Errorf("load %s rows %d..%d: %w", tableName(job[0].table), job[0].first, job[len(job)-1].last, err)
			}
			env.Progress.Add(n - src.reported)
			return nil
		})
	})
	if err != nil {
		return err
	}
	err = workload.RunParallel(ctx, conns, w.opts.Tables, func(ctx context.Context, c driver.Conn, i int) error {
		return w.finishTable(ctx, c, d, i+1, rows > 0, log)
	})
	if err != nil {
		return err
	}
	return dropMarksIfDone(ctx, conn, d, nil)
}

// finishTable runs what follows the load of table n: the dialect's after-load
// statements (so that auto-increment continues after the loaded ids) and the
// secondary index on k; then the table is complete and loses its mark.
func (w *oltp) finishTable(ctx context.Context, c driver.Conn, d driver.Dialect, n int, loaded bool, log io.Writer) error {
	if loaded && w.opts.AutoInc {
		for _, q := range d.AfterLoad(w.opts.tableDef(n)) {
			if _, err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("after loading %s: %w", tableName(n), err)
			}
		}
	}
	if w.opts.CreateSecondary {
		fmt.Fprintf(log, "Creating a secondary index on '%s'...\n", tableName(n))
		if _, err := c.Exec(ctx, d.CreateIndex(tableName(n), kIndex(n))); err != nil {
			return fmt.Errorf("create index %s on %s: %w", indexName(n), tableName(n), err)
		}
	}
	return finishMark(ctx, c, n)
}

// checkExisting refuses to prepare over existing sbtest tables, or drops them
// all when env.Replace; it returns the tables the database had.
func (w *oltp) checkExisting(ctx context.Context, conn driver.Conn, env workload.PrepareEnv, log io.Writer) (map[string]bool, error) {
	present, err := workload.ListTables(ctx, conn, env.Driver.Dialect())
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", w.kind.name(), err)
	}
	n, exists := firstPresent(present, w.opts.Tables)
	switch {
	case !exists:
		return present, nil
	case !env.Replace:
		return nil, fmt.Errorf("table %s already exists in the %s database: run 'fairbench cleanup %s --tables=%d' with the same connection options first, or drop and load the tables again with '%s'",
			tableName(n), env.Driver.Kind(), w.kind.name(), w.opts.Tables, w.reloadCommand())
	}
	return present, dropTables(ctx, conn, env.Driver.Dialect(), w.opts.Tables, log)
}
