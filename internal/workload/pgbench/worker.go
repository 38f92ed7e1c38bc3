package pgbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/pgbench/script"
)

// The kinds of statement, as sysbench counts queries: one that returns rows
// is a read, DML a write, the rest (transaction control, SET …) other.
const (
	classOther = iota
	classRead
	classWrite
)

// The transaction-control statements a script may spell as pgbench's
// PostgreSQL does (BEGIN; … END;), sent in the target's dialect.
const (
	txnNone = iota
	txnBegin
	txnCommit
	txnRollback
)

// command is one SQL command of a script as a worker sends it.
type command struct {
	query string      // the text sent: the script's, or the dialect's transaction statement
	stmt  driver.Stmt // prepared on the worker's connection; nil when sent one-off (extended mode)
	class int
	txn   int
}

// worker runs a thread's pgbench client on one connection. It implements
// script.Executor for its client.
type worker struct {
	wl       *Workload
	conn     driver.Conn
	d        driver.Dialect
	state    *clientState
	describe func(error) driver.ErrorInfo
	maxTries int
	sleeper  workload.Sleeper // \sleep's timer

	cmds   [][]command     // per script, per command (zero for meta-commands)
	exec   script.Executor // the worker, or with --report-per-command the worker that also times meta-commands (set by NewWorker)
	counts *workload.Counts
	script int  // the script of the event in progress
	inTx   bool // a transaction the script began is open
	failed int  // the command whose error ended the last try, -1 for none
}

// prepare classifies the scripts' SQL commands and, unless statements are
// sent one-off (extended mode), prepares them on the connection.
func (wk *worker) prepare(ctx context.Context) error {
	oneOff := wk.wl.opts.QueryMode == "extended"
	wk.cmds = make([][]command, len(wk.wl.scripts))
	for i, s := range wk.wl.scripts {
		writes := scriptWrites(s)
		wk.cmds[i] = make([]command, len(s.Commands))
		for j := range s.Commands {
			cmd := &s.Commands[j]
			if cmd.Kind != script.KindSQL {
				continue
			}
			c := classify(cmd.SQL, wk.d, writes)
			if !oneOff && cmd.Store == script.StoreNone {
				st, err := wk.conn.Prepare(ctx, c.query)
				if err != nil {
					return fmt.Errorf("%s:%d: prepare %q: %w", s.Name, cmd.Line, cmd.Text, err)
				}
				c.stmt = st
			}
			wk.cmds[i][j] = c
		}
	}
	return nil
}

// Event runs one transaction: a script chosen by weight, run by the
// thread's client; a serialization failure or deadlock rolls it back and
// runs it again with the random numbers it began with, up to --max-tries
// tries in all (pgbench's retries).
func (wk *worker) Event(ctx context.Context, c *workload.Counts) error {
	st := wk.state
	wk.script = st.chooser.Choose()
	if len(wk.wl.scripts) > 1 {
		c.Kind = wk.script
	}
	wk.counts = c
	s := wk.wl.scripts[wk.script]
	st.stats.startEvent(wk.wl)
	if wk.maxTries != 1 {
		st.client.Mark() // a retry starts from the random numbers of the first try
	}
	for try := 1; ; try++ {
		wk.failed = -1
		err := st.client.Run(ctx, s, wk.exec)
		if err == nil {
			c.Retries = int64(try - 1)
			return nil
		}
		retryable := wk.describe != nil && wk.describe(err).Retryable && ctx.Err() == nil
		retry := retryable && (wk.maxTries == 0 || try < wk.maxTries)
		if retryable && wk.failed >= 0 {
			st.stats.failure(wk.script, wk.failed, retry)
		}
		if !retry {
			c.Retries = int64(try - 1)
			return err
		}
		if err := wk.Rollback(ctx); err != nil {
			return err
		}
		st.client.Rewind()
	}
}

// SQL runs command i of the current script with args (script.Executor).
func (wk *worker) SQL(ctx context.Context, i int, cmd *script.Command, args []any) (script.Row, error) {
	c := &wk.cmds[wk.script][i]
	stats := wk.state.stats
	var t0 time.Time
	if stats.timing {
		t0 = time.Now()
	}
	row, err := wk.send(ctx, c, cmd, args)
	if stats.timing {
		stats.add(wk.script, i, t0, time.Now())
	}
	if err != nil {
		wk.failed = i
		// The script's file and line, the server's error kept for Describe.
		return row, fmt.Errorf("%s:%d: %s: %w", wk.wl.scripts[wk.script].Name, cmd.Line, cmd.Text, err)
	}
	switch c.txn {
	case txnBegin:
		wk.inTx = true
	case txnCommit, txnRollback:
		wk.inTx = false
	}
	return row, nil
}

// send runs c and counts it.
func (wk *worker) send(ctx context.Context, c *command, cmd *script.Command, args []any) (script.Row, error) {
	if cmd.Store != script.StoreNone {
		cols, rows, err := wk.conn.QueryColumns(ctx, c.query, args...)
		if err != nil {
			return script.Row{}, err
		}
		wk.counts.Reads++
		row := script.Row{Rows: len(rows), Columns: cols}
		if len(rows) > 0 {
			last := rows[len(rows)-1]
			row.Values = make([]any, len(last))
			for k, v := range last {
				row.Values[k] = v
			}
		}
		return row, nil
	}
	var err error
	switch {
	case c.class == classRead && c.stmt != nil:
		err = c.stmt.Drain(ctx, args...)
	case c.class == classRead:
		_, err = wk.conn.Query(ctx, c.query, args...)
	case c.stmt != nil:
		_, err = c.stmt.Exec(ctx, args...)
	default:
		_, err = wk.conn.Exec(ctx, c.query, args...)
	}
	if err != nil {
		return script.Row{}, err
	}
	switch c.class {
	case classRead:
		wk.counts.Reads++
	case classWrite:
		wk.counts.Writes++
	default:
		wk.counts.Others++
	}
	return script.Row{}, nil
}

// timedWorker is a worker that also times the meta-commands (pgbench -r
// lists every command), so that a run without -r reads no clock for them.
type timedWorker struct{ *worker }

// Meta counts a run of meta-command i (script.MetaTimer).
func (t timedWorker) Meta(i int, start, end time.Time) {
	t.state.stats.add(t.script, i, start, end)
}

// Sleep waits d, or until ctx is done (script.Executor: pgbench's \sleep).
func (wk *worker) Sleep(ctx context.Context, d time.Duration) error {
	return wk.sleeper.Sleep(ctx, d)
}

// Rollback ends the transaction a failed script left open.
func (wk *worker) Rollback(ctx context.Context) error {
	if !wk.inTx {
		return nil
	}
	wk.inTx = false
	if _, err := wk.conn.Exec(ctx, wk.d.Rollback()); err != nil {
		if wk.describe != nil && wk.describe(err).ConnectionLost {
			return err
		}
		// The server may have ended the transaction itself (PostgreSQL after a
		// failed COMMIT); nothing is left open either way.
		if ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// Close releases the prepared statements.
func (wk *worker) Close() error {
	wk.sleeper.Stop()
	var errs []error
	for _, cmds := range wk.cmds {
		for _, c := range cmds {
			if c.stmt != nil {
				errs = append(errs, c.stmt.Close())
			}
		}
	}
	return errors.Join(errs...)
}

// scriptWrites reports whether a script has a command that writes, so that
// its transactions begin as writing ones where the target must know (SQLite).
func scriptWrites(s *script.Script) bool {
	for _, cmd := range s.Commands {
		if cmd.Kind == script.KindSQL && classOf(firstWord(cmd.SQL)) == classWrite {
			return true
		}
	}
	return false
}

// classify returns how a worker sends an SQL command: its class, whether
// it begins or ends a transaction, and for the bare transaction statements
// pgbench's scripts use (BEGIN, END, COMMIT, ROLLBACK and their
// TRANSACTION/WORK forms) the dialect's own; a statement with more words
// (BEGIN ISOLATION LEVEL SERIALIZABLE) is sent as written.
func classify(sql string, d driver.Dialect, writes bool) command {
	c := command{query: sql, class: classOf(firstWord(sql))}
	words := strings.Fields(strings.ToUpper(strings.TrimRight(strings.TrimSpace(sql), "; \t\n")))
	if len(words) == 0 {
		return c
	}
	bare := len(words) == 1 || (len(words) == 2 && (words[1] == "TRANSACTION" || words[1] == "WORK"))
	switch words[0] {
	case "BEGIN", "START":
		if words[0] == "START" && (len(words) < 2 || words[1] != "TRANSACTION") {
			return c
		}
		c.txn = txnBegin
		if bare {
			c.query = d.Begin()
			if writes {
				c.query = d.BeginWrite()
			}
		}
	case "END", "COMMIT":
		c.txn = txnCommit
		if bare {
			c.query = d.Commit()
		}
	case "ROLLBACK", "ABORT":
		if bare {
			c.txn, c.query = txnRollback, d.Rollback()
		}
	}
	return c
}

// firstWord is sql's first keyword, upper-cased.
func firstWord(sql string) string {
	s := strings.TrimLeft(sql, " \t\r\n(")
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end >= 0 {
		s = s[:end]
	}
	return strings.ToUpper(s)
}

// classOf is the class of a statement that begins with keyword.
func classOf(keyword string) int {
	switch keyword {
	case "SELECT", "WITH", "VALUES", "SHOW", "TABLE", "EXPLAIN":
		return classRead
	case "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "COPY", "UPSERT":
		return classWrite
	}
	return classOther
}
