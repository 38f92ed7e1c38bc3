package workload

import (
	"context"
	"io"
	"sync"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// RunParallel runs fn for every job 0..jobs-1 exactly once, with one goroutine
// per connection (at most jobs of them), each taking the next job until none
// is left. The first error cancels the context of the others, stops handing
// out jobs and is returned; without one, RunParallel returns ctx.Err(), so that
// a cancelled caller learns of it. It serves prepare-time loaders, which need
// no connection of their own when conns holds nils: conns then only counts the
// goroutines.
func RunParallel(ctx context.Context, conns []driver.Conn, jobs int, fn func(ctx context.Context, c driver.Conn, job int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= jobs || firstErr != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	for _, c := range conns[:min(len(conns), jobs)] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := fn(ctx, c, i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		return ctx.Err()
	}
	return firstErr
}

// SyncWriter returns a writer that serialises the writes of parallel
// goroutines (loaders logging progress) to w, each Write whole under a lock; a
// nil w discards them.
func SyncWriter(w io.Writer) io.Writer {
	if w == nil {
		w = io.Discard
	}
	return &syncWriter{w: w}
}

// syncWriter is what SyncWriter returns.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p whole, under the lock.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Deal splits clients among jobs in contiguous blocks as pgbench deals its
// clients to its -j threads: job i takes (clients left + jobs left - 1) /
// jobs left of them, in order, so the first jobs take the larger shares. It
// returns each job's share; jobs is at least 1 and at most clients.
func Deal(clients, jobs int) []int {
	shares := make([]int, jobs)
	dealt := 0
	for i := range shares {
		shares[i] = (clients - dealt + jobs - i - 1) / (jobs - i)
		dealt += shares[i]
	}
	return shares
}
