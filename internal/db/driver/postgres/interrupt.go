package postgres

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// stateIdle and stateInterrupted are the interrupter's states besides "busy",
// which is the positive generation of the context the call runs under.
const (
	stateIdle        int64 = 0
	stateInterrupted int64 = -1
)

// cancelRequestTimeout bounds the cancel request sent to the server after a
// call was interrupted, so that a hung server cannot hold anything for long.
const cancelRequestTimeout = 2 * time.Second

// interrupter ends a call in flight when its context is cancelled, without any
// per-call allocation. The runner hands a worker one long-lived context, so the
// interrupter registers a context.AfterFunc once per context rather than once
// per call (as pgconn would), and each call only sets and clears an atomic state.
//
// When the context ends during a call, the socket's deadline is set to now, so
// the call returns at once even if the server hangs; pgconn then closes the
// connection and a cancel request asks the server to stop the statement. An idle
// connection is left alone and stays usable under another context.
type interrupter struct {
	pg   *pgconn.PgConn
	sock net.Conn
	// state is stateIdle, stateInterrupted, or the generation of the context
	// of the call in flight.
	state atomic.Int64
	// mu orders an interruption against the rare paths that undo one.
	mu sync.Mutex

	watched context.Context
	gen     int64
	stop    func() bool
}

// watch makes ctx the context whose cancellation interrupts calls.
func (in *interrupter) watch(ctx context.Context) {
	in.release()
	in.gen++
	in.watched = ctx
	if ctx.Done() != nil {
		gen := in.gen
		in.stop = context.AfterFunc(ctx, func() { in.interrupt(gen) })
	}
}

// interrupt is run by context.AfterFunc when the context of generation gen
// ends. It acts only on a call in flight under that context.
func (in *interrupter) interrupt(gen int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.state.CompareAndSwap(gen, stateInterrupted) {
		_ = in.sock.SetDeadline(time.Now())
	}
}

// undo clears an interruption that hit a call which no longer needs it.
func (in *interrupter) undo() {
	in.mu.Lock()
	defer in.mu.Unlock()
	_ = in.sock.SetDeadline(time.Time{})
	in.state.Store(stateIdle)
}

// enter marks the start of a call under ctx. It fails when ctx is already done.
func (in *interrupter) enter(ctx context.Context) error {
	if ctx != in.watched {
		in.watch(ctx)
	}
	in.state.Store(in.gen)
	if err := ctx.Err(); err != nil {
		// Nothing was sent: an interruption that raced with this check is undone.
		if !in.state.CompareAndSwap(in.gen, stateIdle) {
			in.undo()
		}
		return err
	}
	return nil
}

// leave marks the end of a call and reports whether its context interrupted it.
// A call that was interrupted but got its answer anyway leaves the connection
// usable; after one that lost the connection, a cancel request is sent.
func (in *interrupter) leave(lost bool) (interrupted bool) {
	if in.state.CompareAndSwap(in.gen, stateIdle) {
		return false
	}
	in.undo()
	if lost {
		go cancelOnServer(in.pg)
	}
	return true
}

// cancelOnServer asks the server to stop the statement of a connection that was
// closed while it ran. The connection runs nothing else afterwards, so the
// request cannot hit another statement.
func cancelOnServer(pg *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelRequestTimeout)
	defer cancel()
	_ = pg.CancelRequest(ctx)
}

// release stops watching the current context.
func (in *interrupter) release() {
	if in.stop != nil {
		in.stop()
		in.stop = nil
	}
	in.watched = nil
}
