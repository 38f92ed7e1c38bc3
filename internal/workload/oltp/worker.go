package oltp

import (
	"context"
	"errors"
	"fmt"

	"github.com/fairbench/fairbench/internal/base/valuearena"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// tableStmts are one table's prepared statements; those the workload does not use
// are nil.
type tableStmts struct {
	point                       driver.Stmt
	ranges                      [numRangeKinds]driver.Stmt // by rangeKind
	indexUpdate, nonIndexUpdate driver.Stmt
	del, ins                    driver.Stmt

	// insertText is oltp_insert's text statement prefix up to the first value
	// ("INSERT INTO sbtest1 (id, k, c, pad) VALUES (").
	insertText string
}

// worker runs events on one connection. Argument slices and value buffers are
// allocated once and reused by every event.
type worker struct {
	conn      driver.Conn
	rng       *randgen.Source
	plan      plan
	tables    []tableStmts // index 0 is sbtest1
	tableSize int64
	rangeSize int64
	autoInc   bool
	omitID    bool // oltp_insert leaves the id column out
	ids       *uniqueIDs

	begin, commit, rollback string
	inTrx                   bool

	// c and pad are fixed-length buffers whose backing arrays are regenerated in
	// place; the argument slices below hold them boxed once, so passing them
	// allocates nothing.
	c, pad []byte
	// box boxes the ids and k values put into the argument slices: an int64
	// in an interface is an 8-byte allocation per statement otherwise (1 % of
	// the client's CPU on PostgreSQL point selects at 16 threads).
	box      valuearena.Arena
	args1    []any // id
	args2    []any // id, id+range-1
	argsCID  []any // c, id
	argsIns  []any // id, k, c, pad
	textStmt []byte
}

// NewWorker prepares, for every table, the statements the workload's script
// prepares in sysbench, and returns a worker bound to conn.
func (w *oltp) NewWorker(ctx context.Context, conn driver.Conn, d driver.Dialect, rng *randgen.Source) (workload.Worker, error) {
	p := planFor(w.kind, &w.opts)
	wk := &worker{
		conn:      conn,
		rng:       rng,
		plan:      p,
		tables:    make([]tableStmts, w.opts.Tables),
		tableSize: int64(w.opts.TableSize),
		rangeSize: int64(w.opts.RangeSize),
		autoInc:   w.opts.AutoInc,
		ids:       &w.ids,
		begin:     beginFor(p, d),
		commit:    d.Commit(),
		rollback:  d.Rollback(),
		c:         make([]byte, len(cTemplate)),
		pad:       make([]byte, len(padTemplate)),
		args1:     make([]any, 1),
		args2:     make([]any, 2),
		argsCID:   make([]any, 2),
		argsIns:   make([]any, 4),
	}
	wk.argsCID[0] = wk.c
	wk.argsIns[2], wk.argsIns[3] = wk.c, wk.pad

	if p.insertOnly {
		wk.omitID = w.opts.AutoInc && d.InsertOmitsAutoIncrement()
		for i := range wk.tables {
			wk.tables[i].insertText = insertTextPrefix(i+1, wk.omitID)
		}
		wk.textStmt = make([]byte, 0, len(wk.tables[len(wk.tables)-1].insertText)+len(cTemplate)+len(padTemplate)+64)
		if !w.opts.AutoInc {
			w.ids.seed(rng.Uint64())
		}
		return wk, nil
	}
	for i := range wk.tables {
		if err := wk.prepareTable(ctx, i+1); err != nil {
			wk.Close()
			return nil, fmt.Errorf("%s: %w", w.kind.name(), err)
		}
	}
	return wk, nil
}

// prepareTable prepares the statements of table n that the plan uses.
func (wk *worker) prepareTable(ctx context.Context, n int) error {
	p, ts := wk.plan, &wk.tables[n-1]
	type want struct {
		use  bool
		dst  *driver.Stmt
		text string
	}
	for _, s := range []want{
		{p.pointSelects >= 0, &ts.point, sqlPointSelect},
		{p.ranges, &ts.ranges[simpleRange], sqlSimpleRange},
		{p.ranges, &ts.ranges[sumRange], sqlSumRange},
		{p.ranges, &ts.ranges[orderRange], sqlOrderRange},
		{p.ranges, &ts.ranges[distinctRange], sqlDistinctRange},
		{p.indexUpdates >= 0, &ts.indexUpdate, sqlIndexUpdate},
		{p.nonIndexUpdates >= 0, &ts.nonIndexUpdate, sqlNonIndexUpd},
		{p.deleteInserts >= 0 || p.deleteOnly, &ts.del, sqlDelete},
		{p.deleteInserts >= 0, &ts.ins, sqlInsert},
	} {
		if !s.use {
			continue
		}
		query := fmt.Sprintf(s.text, n)
		st, err := wk.conn.Prepare(ctx, query)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", query, err)
		}
		*s.dst = st
	}
	return nil
}

// insertTextPrefix returns oltp_insert's statement for table n up to its first
// value; omitID leaves the id column out (PostgreSQL, SQLite with --auto-inc).
func insertTextPrefix(n int, omitID bool) string {
	if omitID {
		return "INSERT INTO " + tableName(n) + " (k, c, pad) VALUES ("
	}
	return "INSERT INTO " + tableName(n) + " (id, k, c, pad) VALUES ("
}

// Rollback ends the open transaction, if any, after an ignored error.
func (wk *worker) Rollback(ctx context.Context) error {
	if !wk.inTrx {
		return nil
	}
	wk.inTrx = false
	if _, err := wk.conn.Exec(ctx, wk.rollback); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// Close releases every prepared statement (the connection stays open).
func (wk *worker) Close() error {
	var errs []error
	for i := range wk.tables {
		ts := &wk.tables[i]
		for _, st := range []*driver.Stmt{&ts.point, &ts.ranges[simpleRange], &ts.ranges[sumRange],
			&ts.ranges[orderRange], &ts.ranges[distinctRange], &ts.indexUpdate, &ts.nonIndexUpdate, &ts.del, &ts.ins} {
			if *st == nil {
				continue
			}
			if err := (*st).Close(); err != nil {
				errs = append(errs, err)
			}
			*st = nil
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close statements: %w", err)
	}
	return nil
}

// beginFor picks the statement that opens an event's transaction: the dialect's
// write form when the event writes (SQLite takes its write lock up front then).
func beginFor(p plan, d driver.Dialect) string {
	if p.indexUpdates > 0 || p.nonIndexUpdates > 0 || p.deleteInserts > 0 {
		return d.BeginWrite()
	}
	return d.Begin()
}
