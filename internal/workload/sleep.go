package workload

import (
	"context"
	"time"
)

// Shared is a thread's share of an OS thread with other threads (the
// runner's --jobs: their connections wait for replies in one poll). A thread
// that sleeps on purpose leaves first, or the others' replies would wait for
// it; Leave reports whether it must Enter again when it wakes.
type Shared interface {
	Leave() bool
	Enter()
}

type sharedKey struct{}

// WithShared returns ctx carrying the thread's share s (nil: ctx).
func WithShared(ctx context.Context, s Shared) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, sharedKey{}, s)
}

// Sleeper is a worker's deliberate sleep inside its events (TPC-C's keying
// and think times, pgbench's \sleep), with one timer for all its sleeps.
// The zero Sleeper is ready to use.
type Sleeper struct {
	timer *time.Timer
}

// Sleep waits for d, or returns ctx's error as soon as ctx ends. While it
// waits, the thread's share of an OS thread (WithShared) is left to the
// others.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	if sh, ok := ctx.Value(sharedKey{}).(Shared); ok && sh.Leave() {
		defer sh.Enter()
	}
	if s.timer == nil {
		s.timer = time.NewTimer(d)
	} else {
		s.timer.Reset(d)
	}
	select {
	case <-s.timer.C:
		return nil
	case <-ctx.Done():
		s.timer.Stop()
		return ctx.Err()
	}
}

// Stop releases the timer.
func (s *Sleeper) Stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}
