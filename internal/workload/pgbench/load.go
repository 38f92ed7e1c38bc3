package pgbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// quietEvery is how often a quiet (-q) generation logs its progress, as pgbench's LOG_STEP_SECONDS.
const quietEvery = 5 * time.Second

// logEveryRows is how often a generation that is not quiet logs its progress.
const logEveryRows = 100000

// rowCounts returns the rows of each table at scale.
func rowCounts(scale int) (branches, tellers, accounts int64) {
	s := int64(scale)
	return s * BranchesPerScale, s * TellersPerScale, s * AccountsPerScale
}

// truncateTables are the tables step g and G empty, in pgbench's order.
func truncateTables() []string { return []string{Accounts, Branches, History, Tellers} }

// generateClientSide loads the rows as pgbench's step g does: branches and
// tellers with a NULL filler, accounts with an empty one. Where the
// connection can load frozen (PostgreSQL's COPY FREEZE) and pgbench_accounts
// is not partitioned, it truncates and loads in one transaction, as pgbench
// does, so that step v has little to do.
func (in *initializer) generateClientSide(ctx context.Context) error {
	nb, nt, na := rowCounts(in.opts.Scale)
	in.prog.SetTotal(na)
	fz, ok := in.conn.(driver.FrozenBulkInserter)
	if !ok || in.opts.Partitions > 0 {
		return in.loadClientSide(ctx, nb, nt, na, nil)
	}
	if err := in.exec(ctx, in.d.Begin()); err != nil {
		return err
	}
	if err := in.loadClientSide(ctx, nb, nt, na, fz); err != nil {
		in.conn.Exec(context.WithoutCancel(ctx), in.d.Rollback()) //nolint:errcheck // the load's error is the one to report
		return err
	}
	return in.exec(ctx, in.d.Commit())
}

// loadClientSide truncates the tables and loads them; with fz, the accounts
// go in frozen.
func (in *initializer) loadClientSide(ctx context.Context, nb, nt, na int64, fz driver.FrozenBulkInserter) error {
	if err := in.exec(ctx, in.d.Truncate(truncateTables()...)...); err != nil {
		return err
	}
	load := func(table string, columns []string, src driver.RowSource, want int64, bulk func(context.Context, string, []string, driver.RowSource) (int64, error)) error {
		got, err := bulk(ctx, table, columns, src)
		if err != nil {
			return fmt.Errorf("load %s: %w", table, err)
		}
		if got != want {
			return fmt.Errorf("load %s: %d rows loaded, want %d", table, got, want)
		}
		return nil
	}
	if err := load(Branches, []string{"bid", "bbalance"}, newSeries(ctx, nb, 2, func(i int64, v []any) {
		v[0], v[1] = i, int64(0)
	}), nb, in.conn.BulkInsert); err != nil {
		return err
	}
	if err := load(Tellers, []string{"tid", "bid", "tbalance"}, newSeries(ctx, nt, 3, func(i int64, v []any) {
		v[0], v[1], v[2] = i, (i-1)/TellersPerScale+1, int64(0)
	}), nt, in.conn.BulkInsert); err != nil {
		return err
	}
	accounts := newSeries(ctx, na, 4, func(i int64, v []any) {
		v[0], v[1], v[2], v[3] = i, (i-1)/AccountsPerScale+1, int64(0), ""
	})
	accounts.watch = newLoadWatch(in.log, in.opts.Quiet, in.prog, na, time.Now)
	bulk := in.conn.BulkInsert
	if fz != nil {
		bulk = fz.BulkInsertFrozen
	}
	if err := load(Accounts, []string{"aid", "bid", "abalance", "filler"}, accounts, na, bulk); err != nil {
		return err
	}
	accounts.watch.flush()
	return nil
}

// generateServerSide loads the rows as pgbench's step G does: INSERT …
// SELECT over a series of integers the server generates, in one transaction.
func (in *initializer) generateServerSide(ctx context.Context) error {
	nb, nt, na := rowCounts(in.opts.Scale)
	in.prog.SetTotal(na)
	if err := in.exec(ctx, in.d.Truncate(truncateTables()...)...); err != nil {
		return err
	}
	d := in.d
	stmts := []string{
		"INSERT INTO " + Branches + " (bid, bbalance) SELECT bid, 0 FROM " + d.IntegerSeries("bid", nb),
		"INSERT INTO " + Tellers + " (tid, bid, tbalance) SELECT tid, " + d.IntDiv("(tid - 1)", strconv.Itoa(TellersPerScale)) +
			" + 1, 0 FROM " + d.IntegerSeries("tid", nt),
		"INSERT INTO " + Accounts + " (aid, bid, abalance, filler) SELECT aid, " + d.IntDiv("(aid - 1)", strconv.Itoa(AccountsPerScale)) +
			" + 1, 0, '' FROM " + d.IntegerSeries("aid", na),
	}
	if err := in.exec(ctx, d.BeginWrite()); err != nil {
		return err
	}
	for _, s := range stmts {
		if err := in.exec(ctx, s); err != nil {
			in.conn.Exec(context.WithoutCancel(ctx), d.Rollback()) //nolint:errcheck // the insert's error is the one to report
			return err
		}
	}
	if err := in.exec(ctx, d.Commit()); err != nil {
		return err
	}
	in.prog.Add(na)
	return nil
}

// ctxCheckEvery is how many rows a series generates between looks at its context.
const ctxCheckEvery = 4096

// series is the RowSource of rows 1..n of one table: fill writes row i's
// values. It stops with the context's error when ctx ends.
type series struct {
	ctx    context.Context
	n, i   int64
	values []any
	fill   func(i int64, v []any)
	watch  *loadWatch
	err    error
}

func newSeries(ctx context.Context, n int64, columns int, fill func(i int64, v []any)) *series {
	return &series{ctx: ctx, n: n, values: make([]any, columns), fill: fill}
}

// Next moves to the next row.
func (s *series) Next() bool {
	if s.i >= s.n || s.err != nil {
		return false
	}
	if s.i%ctxCheckEvery == 0 {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return false
		}
	}
	s.i++
	if s.watch != nil {
		s.watch.row(s.i)
	}
	return true
}

// Values returns the current row's values (the slice is reused).
func (s *series) Values() ([]any, error) {
	s.fill(s.i, s.values)
	return s.values, nil
}

// Err returns why the series stopped early: the context's error.
func (s *series) Err() error { return s.err }

// progEvery is how many rows a loadWatch counts before it adds them to the counter.
const progEvery = 1000

// loadWatch logs a generation's progress as pgbench does ("100000 of
// 1000000 tuples (10%) done (elapsed 0.12 s, remaining 1.05 s)": every
// 100000 rows, or, quiet, every 5 seconds and at the end) and counts the rows
// on prog.
type loadWatch struct {
	log       io.Writer
	quiet     bool
	prog      *progress.Counter
	total     int64
	start     time.Time
	nextQuiet int   // the next multiple of quietEvery to log at
	counted   int64 // rows added to prog
	now       func() time.Time
}

// newLoadWatch starts watching a load of total rows, on the clock now.
func newLoadWatch(log io.Writer, quiet bool, prog *progress.Counter, total int64, now func() time.Time) *loadWatch {
	return &loadWatch{log: log, quiet: quiet, prog: prog, total: total, start: now(), nextQuiet: 1, now: now}
}

// row notes that row j (1-based) was generated.
func (w *loadWatch) row(j int64) {
	if j%progEvery == 0 {
		w.prog.Add(j - w.counted)
		w.counted = j
	}
	switch {
	case !w.quiet && j%logEveryRows == 0:
		w.logLine(j, w.now().Sub(w.start))
	case w.quiet && j%100 == 0:
		elapsed := w.now().Sub(w.start)
		if j == w.total || elapsed >= time.Duration(w.nextQuiet)*quietEvery {
			w.logLine(j, elapsed)
			w.nextQuiet = int(math.Ceil(elapsed.Seconds() / quietEvery.Seconds()))
		}
	}
}

// logLine writes pgbench's progress line for j rows done after elapsed.
func (w *loadWatch) logLine(j int64, elapsed time.Duration) {
	secs := elapsed.Seconds()
	remaining := float64(w.total-j) * secs / float64(j)
	fmt.Fprintf(w.log, "%d of %d tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)\n", j, w.total, j*100/w.total, secs, remaining)
}

// flush adds the rows not yet counted to prog.
func (w *loadWatch) flush() {
	w.prog.Add(w.total - w.counted)
	w.counted = w.total
}

// Drop drops the four tables of pgbench's data set, if they exist (pgbench -i's
// step d), those that refer to others first, in one transaction where DDL is
// transactional (one commit, as pgbench's one DROP TABLE of all four; MySQL
// commits each DROP by itself).
func Drop(ctx context.Context, conn driver.Conn, d driver.Dialect) error {
	if _, err := conn.Exec(ctx, d.Begin()); err != nil {
		return fmt.Errorf("drop the pgbench tables: %w", err)
	}
	for _, t := range Tables() {
		if _, err := conn.Exec(ctx, d.DropTable(t)); err != nil {
			conn.Exec(context.WithoutCancel(ctx), d.Rollback()) //nolint:errcheck // the drop's error is the one to report
			return fmt.Errorf("drop %s: %w", t, err)
		}
	}
	if _, err := conn.Exec(ctx, d.Commit()); err != nil {
		return fmt.Errorf("drop the pgbench tables: %w", err)
	}
	return nil
}

// Check reads the scale of the data set in the database as pgbench does (the
// rows of pgbench_branches). It fails, wrapping driver.ErrTableMissing, when
// one of the four tables is missing, and when pgbench_branches is empty,
// saying how to create them.
func Check(ctx context.Context, conn driver.Conn, d driver.Dialect) (scale int, err error) {
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return 0, fmt.Errorf("pgbench: %w", err)
	}
	var missing []string
	for _, t := range []string{Branches, Tellers, Accounts, History} {
		if !present[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("pgbench: %w: %s not in the database: initialize it first with \"fairbench pgbench -i -s N\"",
			driver.ErrTableMissing, strings.Join(missing, ", "))
	}
	rows, err := conn.QueryStrings(ctx, "SELECT count(*) FROM "+Branches)
	if err != nil {
		return 0, fmt.Errorf("pgbench: could not count the branches: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("pgbench: counting the branches returned %d rows", len(rows))
	}
	n, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("pgbench: count of the branches %q: %w", rows[0][0], err)
	}
	if n == 0 {
		return 0, fmt.Errorf("pgbench: %s is empty: load the data set with \"fairbench pgbench -i -s N\"", Branches)
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("pgbench: %s has %d rows, more than a scale can be", Branches, n)
	}
	return int(n), nil
}
