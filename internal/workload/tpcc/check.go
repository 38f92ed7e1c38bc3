package tpcc

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Check runs the consistency conditions of clause 3.3.2, up to opts.Threads at
// a time, each as one query. Condition 11 holds only right after loading and
// runs only with opts.All. Results come back in condition order.
func (w *tpcc) Check(ctx context.Context, db driver.Driver, opts workload.CheckOptions) ([]workload.CheckResult, error) {
	log := workload.SyncWriter(opts.Log) // a nil opts.Log discards
	conds := conditions()
	results := make([]workload.CheckResult, len(conds))
	var run []int
	for i, c := range conds {
		results[i] = workload.CheckResult{ID: c.id, Name: c.name}
		if c.afterLoadOnly && !opts.All {
			results[i].Skipped = "holds only right after loading; pass --check-all to run it"
			fmt.Fprintf(log, "condition %2d %s: skipped (%s)\n", c.id, c.name, results[i].Skipped)
			continue
		}
		run = append(run, i)
	}
	conns := make([]driver.Conn, 0, max(1, min(opts.Threads, len(run))))
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < cap(conns); i++ {
		c, err := db.Connect(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("check tpcc: connect: %w", err)
		}
		conns = append(conns, c)
	}
	err := workload.RunParallel(ctx, conns, len(run), func(ctx context.Context, c driver.Conn, j int) error {
		i := run[j]
		r, err := runCondition(ctx, c, conds[i])
		if err != nil {
			return err
		}
		results[i] = r
		logResult(log, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// runCondition runs one condition's query and names its offending rows.
func runCondition(ctx context.Context, c driver.Conn, cond condition) (workload.CheckResult, error) {
	r := workload.CheckResult{ID: cond.id, Name: cond.name}
	start := time.Now()
	rows, err := c.QueryStrings(ctx, cond.query)
	r.Duration = time.Since(start)
	if err != nil {
		return r, fmt.Errorf("check condition %d (%s): %w", cond.id, cond.name, err)
	}
	for _, row := range rows {
		if len(row) < 2 {
			return r, fmt.Errorf("check condition %d: the query returned %d columns", cond.id, len(row))
		}
		n, err := strconv.ParseInt(row[len(row)-1], 10, 64)
		if err != nil {
			return r, fmt.Errorf("check condition %d: count %q: %w", cond.id, row[len(row)-1], err)
		}
		r.Violations = n
		r.Examples = append(r.Examples, cond.example(row[:len(row)-1]))
	}
	r.Passed = len(rows) == 0
	return r, nil
}

// logResult writes one line per finished condition.
func logResult(log io.Writer, r workload.CheckResult) {
	if r.Passed {
		fmt.Fprintf(log, "condition %2d %s: passed (%.2fs)\n", r.ID, r.Name, r.Duration.Seconds())
		return
	}
	fmt.Fprintf(log, "condition %2d %s: FAILED, %d violations (%.2fs)\n", r.ID, r.Name, r.Violations, r.Duration.Seconds())
	for _, e := range r.Examples {
		fmt.Fprintf(log, "    %s\n", e)
	}
}
