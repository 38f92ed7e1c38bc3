package tpcc

import (
	"context"
	"io"
	"sync"

	"github.com/fairbench/fairbench/internal/driver"
)

// runParallel runs jobs 0..jobs-1 with one goroutine per connection, each taking
// the next job until none is left. The first error cancels the others and is
// returned.
func runParallel(ctx context.Context, conns []driver.Conn, jobs int, fn func(context.Context, driver.Conn, int) error) error {
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
		go func(c driver.Conn) {
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
		}(c)
	}
	wg.Wait()
	if firstErr == nil {
		return ctx.Err()
	}
	return firstErr
}

// syncWriter serialises the log lines of parallel loaders.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p whole under the lock.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
