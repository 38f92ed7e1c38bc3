package oltp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Event runs one event as the workload's sysbench script does: each statement
// group (execute_point_selects, execute_simple_ranges, …) draws its table uniformly
// once and its ids from the configured distribution.
func (wk *worker) Event(ctx context.Context, c *workload.Counts) error {
	p := &wk.plan
	switch {
	case p.insertOnly:
		return wk.insertText(ctx, c)
	case p.deleteOnly:
		return wk.deleteOne(ctx, c)
	}
	if p.trx {
		if err := wk.control(ctx, c, wk.begin); err != nil {
			return err
		}
		wk.inTrx = true
	}
	if p.pointSelects >= 0 {
		if err := wk.pointSelects(ctx, c, p.pointSelects); err != nil {
			return err
		}
	}
	if p.ranges {
		for r := range numRangeKinds {
			if err := wk.ranges(ctx, c, r, p.rangeCounts[r]); err != nil {
				return err
			}
		}
	}
	if p.indexUpdates >= 0 {
		if err := wk.indexUpdates(ctx, c, p.indexUpdates); err != nil {
			return err
		}
	}
	if p.nonIndexUpdates >= 0 {
		if err := wk.nonIndexUpdates(ctx, c, p.nonIndexUpdates); err != nil {
			return err
		}
	}
	if p.deleteInserts >= 0 {
		if err := wk.deleteInserts(ctx, c, p.deleteInserts); err != nil {
			return err
		}
	}
	if p.trx {
		if err := wk.control(ctx, c, wk.commit); err != nil {
			return err
		}
		wk.inTrx = false
	}
	return nil
}

// table draws a table uniformly (get_table_num) and returns its statements.
func (wk *worker) table() (int, *tableStmts) {
	n := int(wk.rng.Uniform(1, int64(len(wk.tables))))
	return n, &wk.tables[n-1]
}

// id draws an id from the configured distribution (get_id).
func (wk *worker) id() int64 { return wk.rng.Default(1, wk.tableSize) }

// pointSelects is execute_point_selects.
func (wk *worker) pointSelects(ctx context.Context, c *workload.Counts, n int) error {
	t, ts := wk.table()
	for range n {
		wk.args1[0] = wk.box.Int(wk.id())
		if err := wk.query(ctx, c, ts.point, wk.args1); err != nil {
			return stmtError("point select", t, err)
		}
	}
	return nil
}

// ranges is execute_range: n range selects over [id, id+range_size-1] (unclamped)
// on one table.
func (wk *worker) ranges(ctx context.Context, c *workload.Counts, r rangeKind, n int) error {
	t, ts := wk.table()
	st := ts.ranges[r]
	for range n {
		id := wk.id()
		wk.args2[0], wk.args2[1] = wk.box.Int(id), wk.box.Int(id+wk.rangeSize-1)
		if err := wk.query(ctx, c, st, wk.args2); err != nil {
			return stmtError(r.String(), t, err)
		}
	}
	return nil
}

// indexUpdates is execute_index_updates.
func (wk *worker) indexUpdates(ctx context.Context, c *workload.Counts, n int) error {
	t, ts := wk.table()
	for range n {
		wk.args1[0] = wk.box.Int(wk.id())
		if err := wk.execStmt(ctx, c, ts.indexUpdate, wk.args1); err != nil {
			return stmtError("index update", t, err)
		}
	}
	return nil
}

// nonIndexUpdates is execute_non_index_updates: a fresh c, then the id.
func (wk *worker) nonIndexUpdates(ctx context.Context, c *workload.Counts, n int) error {
	t, ts := wk.table()
	for range n {
		wk.rng.String(wk.c[:0], cTemplate)
		wk.argsCID[1] = wk.box.Int(wk.id())
		if err := wk.execStmt(ctx, c, ts.nonIndexUpdate, wk.argsCID); err != nil {
			return stmtError("non-index update", t, err)
		}
	}
	return nil
}

// deleteInserts is execute_delete_inserts: delete a row and insert it back with
// the same id and a fresh k, c and pad.
func (wk *worker) deleteInserts(ctx context.Context, c *workload.Counts, n int) error {
	t, ts := wk.table()
	for range n {
		id := wk.id()
		k := wk.id()
		wk.rng.String(wk.c[:0], cTemplate)
		wk.rng.String(wk.pad[:0], padTemplate)
		wk.args1[0] = wk.box.Int(id)
		if err := wk.execStmt(ctx, c, ts.del, wk.args1); err != nil {
			return stmtError("delete", t, err)
		}
		wk.argsIns[0], wk.argsIns[1] = wk.box.Int(id), wk.box.Int(k)
		if err := wk.execStmt(ctx, c, ts.ins, wk.argsIns); err != nil {
			return stmtError("insert", t, err)
		}
	}
	return nil
}

// deleteOne is oltp_delete's event.
func (wk *worker) deleteOne(ctx context.Context, c *workload.Counts) error {
	t, ts := wk.table()
	wk.args1[0] = wk.box.Int(wk.id())
	if err := wk.execStmt(ctx, c, ts.del, wk.args1); err != nil {
		return stmtError("delete", t, err)
	}
	return nil
}

// insertText is oltp_insert's event: one INSERT sent as text, as sysbench does,
// with id 0 for the server to assign (or no id column where the dialect needs
// that), or a unique client-generated id with --auto-inc=off.
func (wk *worker) insertText(ctx context.Context, c *workload.Counts) error {
	t, ts := wk.table()
	k := wk.rng.Default(1, wk.tableSize)
	wk.rng.String(wk.c[:0], cTemplate)
	wk.rng.String(wk.pad[:0], padTemplate)
	q := append(wk.textStmt[:0], ts.insertText...)
	switch {
	case !wk.autoInc:
		q = strconv.AppendInt(q, wk.ids.id(), 10)
		q = append(q, ", "...)
	case !wk.omitID:
		q = append(q, "0, "...)
	}
	q = strconv.AppendInt(q, k, 10)
	q = append(q, ", '"...)
	q = append(q, wk.c...)
	q = append(q, "', '"...)
	q = append(q, wk.pad...)
	q = append(q, "')"...)
	wk.textStmt = q
	if err := wk.exec(ctx, c, string(q)); err != nil {
		return stmtError("insert", t, err)
	}
	return nil
}

// query runs a SELECT and receives its rows (Drain): always a read, whatever
// it returned.
func (wk *worker) query(ctx context.Context, c *workload.Counts, st driver.Stmt, args []any) error {
	if err := st.Drain(ctx, args...); err != nil {
		return err
	}
	c.Reads++
	return nil
}

// execStmt runs prepared DML: a write when it changed rows, other when not.
func (wk *worker) execStmt(ctx context.Context, c *workload.Counts, st driver.Stmt, args []any) error {
	n, err := st.Exec(ctx, args...)
	if err != nil {
		return err
	}
	count(c, n)
	return nil
}

// control runs BEGIN or COMMIT: always other, whatever row count the driver
// reports (SQLite repeats the count of the last DML for them).
func (wk *worker) control(ctx context.Context, c *workload.Counts, query string) error {
	if _, err := wk.conn.Exec(ctx, query); err != nil {
		return err
	}
	c.Others++
	return nil
}

// exec runs a text DML statement (oltp_insert's INSERT).
func (wk *worker) exec(ctx context.Context, c *workload.Counts, query string) error {
	n, err := wk.conn.Exec(ctx, query)
	if err != nil {
		return err
	}
	count(c, n)
	return nil
}

// count adds one statement that changed n rows: a write if n > 0, else other.
func count(c *workload.Counts, n int64) {
	if n > 0 {
		c.Writes++
	} else {
		c.Others++
	}
}

// stmtError names the statement and table of a failed statement; the driver's
// error stays in the chain for the runner to classify.
func stmtError(what string, table int, err error) error {
	return fmt.Errorf("%s on %s: %w", what, tableName(table), err)
}
