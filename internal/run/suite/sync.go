package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/run/setup"
)

// The clients of a plan with clients: meet through the target database
// itself, so that nothing but the database has to be reachable from every
// client (the pods of a Kubernetes Indexed Job share only the server). A small
// table holds one row per run id, meeting point and client:
//
//   - every client writes its row at a meeting point (the start of the run,
//     the preparation of a data set, each cell, a cleanup, the end);
//   - the leader (client 0) waits until all clients have, at most
//     clients.wait, runs the steps that change data, and writes its decision
//     (client -1): the cells to run, a cell's start in the server's clock, or
//     the error of its steps;
//   - the others wait for the decision as long as the leader shows signs of
//     life (its "alive" row changes every second while it waits or works),
//     at most clients.wait without one;
//   - a client that stops writes an "abort" row, so that the others stop at
//     once instead of waiting out clients.wait.
//
// The table is read only between cells, never during a measured phase.
const (
	syncTable = "fairbench_sync"

	// decisionID is the client column of the leader's decisions.
	decisionID = -1
	leaderID   = 0

	// startLead is how far ahead the leader sets a cell's start once all
	// clients are ready: long enough for every client to read it.
	startLead = 2 * time.Second
	// pollEvery is how often a waiting client reads the table.
	pollEvery = 150 * time.Millisecond
	// beatEvery is how often the leader marks itself alive while others wait.
	beatEvery = time.Second
	// syncRowsKept is how long rows of other runs are kept (an aborted run's
	// rows tell late clients that it was stopped).
	syncRowsKept = 7 * 24 * time.Hour
	// cellClockSamples are the round trips that measure the clock offset
	// before each cell (setup.ClockSamples at the start).
	cellClockSamples = 3
	// maxPayload bounds what a row carries (an error message).
	maxPayload = 8000
)

// Meeting points with fixed names; the others are "prep D", "cell N" and
// "cleanup D".
const (
	pointHello = "hello"
	pointEnd   = "end"
	pointAbort = "abort"
	pointAlive = "alive"
)

// syncDDL creates the table; the same text works on MySQL and PostgreSQL.
const syncDDL = `CREATE TABLE IF NOT EXISTS ` + syncTable + ` (
  run_id VARCHAR(100) NOT NULL,
  point VARCHAR(40) NOT NULL,
  client INT NOT NULL,
  payload TEXT NOT NULL,
  written BIGINT NOT NULL,
  PRIMARY KEY (run_id, point, client))`

// decision is what the leader publishes at a meeting point.
type decision struct {
	Start  time.Time `json:"start,omitzero"`   // a cell's start, in the server's clock
	Todo   []int     `json:"todo,omitempty"`   // at hello: the cells every client runs
	Detail string    `json:"detail,omitempty"` // what the leader's steps did
	Error  string    `json:"error,omitempty"`  // the leader's steps failed
}

// syncRow is one row of the table.
type syncRow struct {
	point   string
	client  int
	payload string
}

// coordinator is one client's side of the meetings.
type coordinator struct {
	drv        driver.Driver
	kind       string
	id, n      int
	runID      string
	wait       time.Duration
	poll, lead time.Duration
	out        io.Writer
	conn       driver.Conn     // nil until connected, or after an error
	clock      dbclock.Reading // the server's clock as last measured (measureClock)
	// busyUntil is when the cell under way ends (our clock): the leader gives
	// no sign of life while it runs one, and is not silent before then.
	busyUntil time.Time
}

// CoordinationError says the coordinated clients could not keep in step: one
// did not come within clients.wait, stopped, or runs another plan. Every
// client keeps the cells it completed.
type CoordinationError struct{ Err error }

func (e *CoordinationError) Error() string { return e.Err.Error() }
func (e *CoordinationError) Unwrap() error { return e.Err }

// openCoordinator connects to the target, creates the sync table when it is
// not there and measures the clock offset.
func openCoordinator(ctx context.Context, cfg driver.Config, p *Plan, c *ClientOptions, out io.Writer) (*coordinator, error) {
	drv, err := open.Driver(cfg)
	if err != nil {
		return nil, err
	}
	co := &coordinator{
		drv: drv, kind: cfg.Kind, id: c.ID, n: p.Clients.Count, runID: c.RunID, wait: p.Clients.Wait.D(),
		poll: cmpOrDur(c.poll, pollEvery), lead: cmpOrDur(c.lead, startLead), out: out,
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := co.createTable(cctx); err != nil {
		co.close()
		return nil, fmt.Errorf("creating the clients' sync table %s in %s: %w (the user needs CREATE, INSERT, UPDATE, DELETE and SELECT on it)", syncTable, cfg.Describe(), err)
	}
	if err := co.measureClock(cctx, setup.ClockSamples); err != nil {
		co.close()
		return nil, fmt.Errorf("reading the database server's clock: %w", err)
	}
	return co, nil
}

func cmpOrDur(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (co *coordinator) leader() bool { return co.id == leaderID }

// close releases the connection and the driver.
func (co *coordinator) close() {
	if co.conn != nil {
		co.conn.Close()
		co.conn = nil
	}
	co.drv.Close()
}

// connection returns the open connection, connecting when there is none.
func (co *coordinator) connection(ctx context.Context) (driver.Conn, error) {
	if co.conn != nil {
		return co.conn, nil
	}
	conn, err := co.drv.Connect(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	co.conn = conn
	return conn, nil
}

// drop forgets a connection that failed; the next call reconnects.
func (co *coordinator) drop() {
	if co.conn != nil {
		co.conn.Close()
		co.conn = nil
	}
}

// exec runs one statement; a failed connection is dropped.
func (co *coordinator) exec(ctx context.Context, query string, args ...any) (int64, error) {
	conn, err := co.connection(ctx)
	if err != nil {
		return 0, err
	}
	n, err := conn.Exec(ctx, query, args...)
	if err != nil {
		co.drop()
	}
	return n, err
}

// query runs one query; a failed connection is dropped.
func (co *coordinator) query(ctx context.Context, query string, args ...any) ([][]string, error) {
	conn, err := co.connection(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryStrings(ctx, query, args...)
	if err != nil {
		co.drop()
	}
	return rows, err
}

// createTable creates the sync table. Clients starting together may race to
// create it (PostgreSQL then fails one CREATE ... IF NOT EXISTS): a failed
// attempt is retried once the others have had a moment.
func (co *coordinator) createTable(ctx context.Context) error {
	var err error
	for try := 0; try < 3; try++ {
		if _, err = co.exec(ctx, syncDDL); err == nil {
			return nil
		}
		if setup.Sleep(ctx, 300*time.Millisecond) != nil {
			return ctx.Err()
		}
	}
	return err
}

// rows reads this run's rows at the given points.
func (co *coordinator) rows(ctx context.Context, points ...string) ([]syncRow, error) {
	args := []any{co.runID}
	marks := make([]string, len(points))
	for i, pt := range points {
		args = append(args, pt)
		marks[i] = "?"
	}
	res, err := co.query(ctx, "SELECT point, client, payload FROM "+syncTable+" WHERE run_id = ? AND point IN ("+strings.Join(marks, ", ")+")", args...)
	if err != nil {
		return nil, err
	}
	out := make([]syncRow, 0, len(res))
	for _, r := range res {
		if len(r) != 3 {
			continue
		}
		id, err := strconv.Atoi(r[1])
		if err != nil {
			continue
		}
		out = append(out, syncRow{point: r[0], client: id, payload: r[2]})
	}
	return out, nil
}

// errTaken is a row that is there already with another payload.
var errTaken = errors.New("the row is taken")

// put writes this run's row (point, client). A row already there with the same
// payload is taken as this client's own (a retried write); with another one
// it is errTaken.
func (co *coordinator) put(ctx context.Context, point string, client int, payload string) error {
	payload = truncate(payload, maxPayload)
	insert := "INSERT INTO " + syncTable + " (run_id, point, client, payload, written) VALUES (?, ?, ?, ?, ?)"
	var err error
	for try := 0; try < 2; try++ {
		if _, err = co.exec(ctx, insert, co.runID, point, client, payload, time.Now().Unix()); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		got, qerr := co.query(ctx, "SELECT payload FROM "+syncTable+" WHERE run_id = ? AND point = ? AND client = ?", co.runID, point, client)
		if qerr == nil && len(got) > 0 {
			if got[0][0] == payload {
				return nil
			}
			return errTaken
		}
	}
	return fmt.Errorf("writing to %s: %w", syncTable, err)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// beat marks the leader alive every second on a connection of its own until
// the returned function is called.
func (co *coordinator) beat(ctx context.Context) (stop func()) {
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conn driver.Conn
		defer func() {
			if conn != nil {
				conn.Close()
			}
		}()
		tick := time.NewTicker(beatEvery)
		defer tick.Stop()
		for {
			if conn == nil {
				if c, err := co.drv.Connect(bctx, 0); err == nil {
					conn = c
				}
			}
			if conn != nil && co.markAlive(bctx, conn) != nil {
				conn.Close()
				conn = nil
			}
			select {
			case <-bctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// markAlive writes the leader's alive row with the time now.
func (co *coordinator) markAlive(ctx context.Context, conn driver.Conn) error {
	now := time.Now()
	stamp := strconv.FormatInt(now.UnixNano(), 10)
	n, err := conn.Exec(ctx, "UPDATE "+syncTable+" SET payload = ?, written = ? WHERE run_id = ? AND point = ? AND client = ?",
		stamp, now.Unix(), co.runID, pointAlive, co.id)
	if err != nil || n > 0 {
		return err
	}
	_, err = conn.Exec(ctx, "INSERT INTO "+syncTable+" (run_id, point, client, payload, written) VALUES (?, ?, ?, ?, ?)",
		co.runID, pointAlive, co.id, stamp, now.Unix())
	return err
}
