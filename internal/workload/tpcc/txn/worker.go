package txn

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Worker is one emulated terminal bound to a home warehouse: it runs the
// transaction mix on one connection. It is used by one goroutine only.
type Worker struct {
	conn driver.Conn
	rng  *randgen.Source
	cfg  Config
	runC runConstants
	size sizes
	mix  mixTable
	st   statements

	begin, beginWrite, commit, rollback string
	inTrx                               bool

	home       int64
	homeArg    any              // home boxed once
	slDistrict int64            // the terminal's district for Stock-Level (clause 2.8.1.1)
	args       [12]any          // arguments of the statement being run
	no         newOrderState    // scratch of New-Order
	pay        paymentState     // scratch of Payment
	os         orderStatusState // scratch of Order-Status
	dl         deliveryState    // scratch of Delivery
	sl         stockLevelState  // scratch of Stock-Level
	ids        idCollector      // customer ids of a last-name lookup
	sleeper    workload.Sleeper // keying and think times
	sleep      func(context.Context, time.Duration) error
	now        func() time.Time // the clock of o_entry_d, h_date, ol_delivery_d
	nextThink  time.Duration    // think time owed from the previous transaction
	waited     time.Duration    // keying and think time of the last Event
	// mark is the runner's call mark (MarkCalls), set when a sleep ends;
	// nil without Config.Wait or a runner that asks for it.
	mark *atomic.Int64
}

// NewWorker prepares the worker's statements on conn. home is the worker's home warehouse (1-based).
func NewWorker(ctx context.Context, conn driver.Conn, d driver.Dialect, rng *randgen.Source, cfg Config, home int) (*Worker, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if home < 1 || home > cfg.Warehouses {
		return nil, fmt.Errorf("tpcc: home warehouse %d is outside 1..%d", home, cfg.Warehouses)
	}
	w := &Worker{
		conn:       conn,
		rng:        rng,
		cfg:        cfg,
		runC:       newRunConstants(cfg.CLoad),
		size:       specSizes,
		mix:        newMixTable(cfg.Mix),
		begin:      d.Begin(),
		beginWrite: d.BeginWrite(),
		commit:     d.Commit(),
		rollback:   d.Rollback(),
		home:       int64(home),
		homeArg:    int64(home),
		now:        time.Now,
	}
	w.sleep = w.sleeper.Sleep
	w.slDistrict = rng.Uniform(1, districtsPerWarehouse)
	w.no.init()
	w.pay.init()
	w.os.init()
	w.dl.init()
	w.sl.init()
	if err := w.st.prepare(ctx, conn, d.ForUpdate()); err != nil {
		w.st.close()
		return nil, err
	}
	return w, nil
}

// Event runs one transaction drawn from the mix (after its keying time and the
// previous transaction's think time when Config.Wait is set). It sets c.Kind
// first, so that an error is attributed to the transaction, and c.Rollback for
// New-Order's expected rollback.
func (w *Worker) Event(ctx context.Context, c *workload.Counts) error {
	kind := w.mix.draw(w.rng)
	c.Kind = kind
	c.Rollback = false
	w.waited = 0
	if w.cfg.Wait {
		wait := w.nextThink + keyingTimes[kind]
		w.nextThink = thinkTime(w.rng, meanThinkTimes[kind])
		if err := w.sleep(ctx, wait); err != nil {
			return err
		}
		w.waited = wait
		if w.mark != nil {
			w.mark.Store(time.Now().UnixNano()) // waiting for the server from now on
		}
	}
	var err error
	switch kind {
	case NewOrder:
		err = w.newOrder(ctx, c)
	case Payment:
		err = w.payment(ctx, c)
	case OrderStatus:
		err = w.orderStatus(ctx, c)
	case Delivery:
		err = w.delivery(ctx, c)
	default:
		err = w.stockLevel(ctx, c)
	}
	if err != nil {
		return fmt.Errorf("tpcc %s: %w", Kinds[kind], err)
	}
	return nil
}

// Waited returns the keying and think time the last Event slept before its
// transaction (zero without Config.Wait), for a runner that measures response
// times without them.
func (w *Worker) Waited() time.Duration { return w.waited }

// MarkCalls takes the runner's call mark (workload.CallMarker): with
// Config.Wait, Event stores the end of its keying and think time there, when
// the transaction's statements begin, and MarkCalls returns true; without
// it the worker never sleeps and leaves the mark to the runner.
func (w *Worker) MarkCalls(mark *atomic.Int64) bool {
	if !w.cfg.Wait {
		return false
	}
	w.mark = mark
	return true
}

// Rollback ends the open transaction, if any, after an error.
func (w *Worker) Rollback(ctx context.Context) error {
	if !w.inTrx {
		return nil
	}
	w.inTrx = false
	if _, err := w.conn.Exec(ctx, w.rollback); err != nil {
		return fmt.Errorf("tpcc: rollback: %w", err)
	}
	return nil
}

// Close releases the worker's statements (not the connection).
func (w *Worker) Close() error {
	w.sleeper.Stop()
	return w.st.close()
}

// startTx begins a transaction: BeginWrite when it will write.
func (w *Worker) startTx(ctx context.Context, c *workload.Counts, write bool) error {
	q := w.begin
	if write {
		q = w.beginWrite
	}
	if _, err := w.conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	w.inTrx = true
	c.Others++
	return nil
}

// endTx commits, or rolls back when rollback is set; either counts as other.
func (w *Worker) endTx(ctx context.Context, c *workload.Counts, rollback bool) error {
	q := w.commit
	if rollback {
		q = w.rollback
	}
	if _, err := w.conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	w.inTrx = false
	c.Others++
	return nil
}

// row runs a query that returns at most one row into dest: always a read.
func (w *Worker) row(ctx context.Context, c *workload.Counts, st driver.Stmt, dest []any, args []any) (bool, error) {
	ok, err := st.QueryRow(ctx, dest, args...)
	if err != nil {
		return false, err
	}
	c.Reads++
	return ok, nil
}

// rows runs a query calling fn for each row: always a read.
func (w *Worker) rows(ctx context.Context, c *workload.Counts, st driver.Stmt, dest []any, fn func() error, args []any) (int, error) {
	n, err := st.QueryRows(ctx, dest, fn, args...)
	if err != nil {
		return n, err
	}
	c.Reads++
	return n, nil
}

// exec runs DML: a write when it changed rows, other when not.
func (w *Worker) exec(ctx context.Context, c *workload.Counts, st driver.Stmt, args []any) (int64, error) {
	n, err := st.Exec(ctx, args...)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		c.Writes++
	} else {
		c.Others++
	}
	return n, nil
}

// argv fills the worker's argument slice with vals and returns it.
func (w *Worker) argv(vals ...any) []any {
	n := copy(w.args[:], vals)
	return w.args[:n]
}

// mustRow runs a query whose row must exist (what names it for the error).
func (w *Worker) mustRow(ctx context.Context, c *workload.Counts, what string, st driver.Stmt, dest []any, args []any) (bool, error) {
	ok, err := w.row(ctx, c, st, dest, args)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("%s row %v not found: is the database loaded? run 'fairbench check tpcc'", what, args)
	}
	return true, nil
}
