package tpcc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/gcballast"
	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// csvFile names the CSV file of table for warehouse n (0: a table not per warehouse).
func csvFile(table string, n int) string {
	if n == 0 {
		return table + ".csv"
	}
	return table + "." + strconv.Itoa(n) + ".csv"
}

// writeCSV writes the population as CSV files into --output-dir instead of
// loading it: item.csv, <table>.<warehouse>.csv for every warehouse table,
// tpcc_meta.csv (so that a run finds C_LOAD) and schema.sql with the target's
// CREATE TABLE and CREATE INDEX statements. Each file starts with a header line
// of column names; NULL is an empty field. Warehouses are written in parallel
// by env.Threads writers, in the parts a load uses.
func (w *tpcc) writeCSV(ctx context.Context, env workload.PrepareEnv, log io.Writer) error {
	dir := w.opts.OutputDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--output-dir=%s: %w", dir, err)
	}
	m := &loadMeta{warehouses: w.opts.Warehouses, cLoad: chooseCLoad(env.Rand), seed: env.Rand.Config().Seed,
		item: true, indexes: true, loaded: map[int]bool{}}
	pop := newPopulation(env.Rand, m.cLoad)
	total := int64(items)
	for n := 1; n <= m.warehouses; n++ {
		m.loaded[n] = true
		total += pop.warehouseRowCount(n)
	}
	env.Progress.SetTotal(total)
	start := time.Now()
	if err := writeSchema(filepath.Join(dir, "schema.sql"), env.Dialect, env.Driver, w.opts.Parts); err != nil {
		return err
	}
	if err := writeMetaCSV(filepath.Join(dir, csvFile(tMeta, 0)), m); err != nil {
		return err
	}
	var warehouses []int
	for n := 1; n <= m.warehouses; n++ {
		warehouses = append(warehouses, n)
	}
	jobs := planJobs(warehouses, everyPart, true, jobWindow(env.Threads))
	tracker := newWarehouseTracker(jobs)
	parts := warehouseParts()
	// Writers need no connection; workload.RunParallel only uses conns to count them.
	writers := make([]driver.Conn, max(1, min(env.Threads, len(jobs))))
	err := gcballast.With(func() error {
		return workload.RunParallel(ctx, writers, len(jobs), func(ctx context.Context, _ driver.Conn, i int) error {
			j := jobs[i]
			if j.item() {
				fmt.Fprintf(log, "Writing %d items...\n", items)
				return writeTableCSV(ctx, dir, pop, tItem, 0, env.Progress)
			}
			if tracker.start(j.warehouse) {
				fmt.Fprintf(log, "Writing warehouse %d...\n", j.warehouse)
			}
			for _, t := range parts[j.part].tables {
				if err := writeTableCSV(ctx, dir, pop, t, j.warehouse, env.Progress); err != nil {
					return err
				}
			}
			tracker.finish(j.warehouse)
			return nil
		})
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "Wrote %d rows as CSV into %s in %.1fs\n", total, dir, time.Since(start).Seconds())
	return nil
}

// writeTableCSV writes the generated rows of table for warehouse n to its file.
func writeTableCSV(ctx context.Context, dir string, pop *population, table string, n int, progress *workload.Progress) (err error) {
	path := filepath.Join(dir, csvFile(table, n))
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Abort()
		} else if err = f.Commit(); err != nil {
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	bw.WriteString(strings.Join(columnNames(tableDef(table)), ",") + "\n")
	src := pop.source(table, n, progress)
	var line []byte
	for src.Next() {
		if src.row%progressChunk == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		vals, _ := src.Values()
		line = appendCSVRow(line[:0], vals)
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// appendCSVRow appends one CSV line (RFC 4180 quoting where needed).
func appendCSVRow(b []byte, vals []any) []byte {
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		switch v := v.(type) {
		case nil:
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case float64:
			b = strconv.AppendFloat(b, v, 'f', -1, 64)
		case time.Time:
			b = v.AppendFormat(b, "2006-01-02 15:04:05")
		case string:
			if strings.ContainsAny(v, ",\"\n\r") {
				b = append(b, '"')
				b = append(b, strings.ReplaceAll(v, `"`, `""`)...)
				b = append(b, '"')
			} else {
				b = append(b, v...)
			}
		default:
			b = append(b, fmt.Sprint(v)...)
		}
	}
	return append(b, '\n')
}

// writeMetaCSV writes tpcc_meta.csv, marking every part loaded.
func writeMetaCSV(path string, m *loadMeta) error {
	var b strings.Builder
	b.WriteString("name,value\n")
	for _, r := range m.rows() {
		b.WriteString(r[0] + "," + r[1] + "\n")
	}
	if err := outfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeSchema writes the statements that create the tables and indexes for the
// target's dialect (load the CSV files between the two parts).
func writeSchema(path string, d driver.Dialect, db driver.Driver, parts int) error {
	if d == nil && db != nil {
		d = db.Dialect()
	}
	if d == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- fairbench tpcc schema for %s: create the tables, load the CSV files, then create the indexes.\n", d.Name())
	for _, t := range tableDefs(parts) {
		for _, q := range d.CreateTable(t) {
			b.WriteString(q + ";\n")
		}
	}
	b.WriteString("-- after loading:\n")
	for _, ix := range secondaryIndexes() {
		b.WriteString(d.CreateIndex(ix.table, ix.index) + ";\n")
	}
	if err := outfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
