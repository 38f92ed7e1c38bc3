package sqlite

import (
	"context"
	"strings"
)

// Cancellation. modernc.org/sqlite honours a context by starting a goroutine
// per call that interrupts SQLite when the context ends; that costs four
// allocations and a goroutine hand-off per call (about a quarter of a point
// select). Reads in WAL mode never wait for a lock, so a SELECT runs with no
// context and finishes in the time the statement takes. Every other statement
// (writes, BEGIN, COMMIT) may wait up to busy_timeout for the write lock, so it
// gets the caller's context, and a run's hard deadline ends the wait.

// waitsForLock reports whether a statement may wait for the write lock: anything
// but a plain SELECT (or WITH … SELECT, VALUES, EXPLAIN).
func waitsForLock(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	if len(q) < 4 {
		return true
	}
	for _, kw := range [...]string{"SELECT", "VALUES", "EXPLAIN"} {
		if len(q) >= len(kw) && strings.EqualFold(q[:len(kw)], kw) {
			return false
		}
	}
	return true
}

// callContext is the context handed to modernc.org/sqlite for one call.
func callContext(ctx context.Context, wait bool) context.Context {
	if wait {
		return ctx
	}
	return context.Background()
}
