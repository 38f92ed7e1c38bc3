package mysql

import (
	"context"
	"sync/atomic"
)

// deadline makes a call in flight return soon after its context is cancelled,
// without the per-call goroutine hand-off that go-sql-driver's context methods
// pay. The runner passes one long-lived context per worker, so a callback is
// registered once per distinct context (compared by its Done channel) with
// context.AfterFunc, which costs no goroutine while it waits; each call then
// only flips an atomic flag.
//
// When the watched context ends while a call is in flight, the callback closes
// the network connection, which unblocks the read at once; the connection is
// then lost. A context that ends between calls only fails the next call made
// with it and leaves the connection usable with another context.
type deadline struct {
	kill     func()                // closes the network connection
	done     <-chan struct{}       // Done channel of the watched context
	cur      atomic.Pointer[watch] // the current watch; older callbacks must not kill
	inFlight atomic.Bool
	stop     func() bool // unregisters the current callback
}

// watch is the state of one watched context.
type watch struct {
	fired atomic.Bool // the context ended
}

// enter marks the start of a call made with ctx. It returns ctx's error when
// ctx has already ended; the caller must call leave after a nil return.
func (d *deadline) enter(ctx context.Context) error {
	done := ctx.Done()
	if done != d.done {
		d.rewatch(ctx, done)
		if done != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if done == nil {
		return nil
	}
	d.inFlight.Store(true)
	// A non-blocking receive on an open channel takes no lock.
	select {
	case <-done:
		d.inFlight.Store(false)
		return ctx.Err()
	default:
	}
	return nil
}

// leave marks the end of a call.
func (d *deadline) leave() { d.inFlight.Store(false) }

// fired reports whether the current watch saw its context end (so a failed
// call should report the context's error rather than a lost connection).
func (d *deadline) fired() bool {
	w := d.cur.Load()
	return w != nil && w.fired.Load()
}

// rewatch unregisters the current callback and registers one on ctx, whose
// Done channel is done (none when nil).
func (d *deadline) rewatch(ctx context.Context, done <-chan struct{}) {
	d.unwatch()
	d.done = done
	if done == nil {
		return
	}
	w := &watch{}
	d.cur.Store(w)
	d.stop = context.AfterFunc(ctx, func() {
		w.fired.Store(true)
		// Either enter sees done closed, or we see the call in flight.
		if d.inFlight.Load() && d.cur.Load() == w {
			d.kill()
		}
	})
}

// unwatch unregisters the current callback.
func (d *deadline) unwatch() {
	if d.stop != nil {
		d.stop()
		d.stop = nil
	}
	d.cur.Store(nil)
}

// close unregisters the callback.
func (d *deadline) close() {
	d.unwatch()
	d.done = nil
}
