package workload

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Shared is a thread's share of an OS thread with other threads (the
// runner's --jobs: their connections wait for replies in one poll). Its
// deliberate sleeps are timed by the share's poll, as a pgbench thread times
// its clients' sleeps: the thread must not sleep on its own, or the others'
// replies would wait for it. Sleep waits until t, or until ctx ends.
type Shared interface {
	Sleep(ctx context.Context, t time.Time) error
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
// and think times, pgbench's \sleep) or between them (the runner's --rate
// schedule), with one timer for all its sleeps. The zero Sleeper is ready to
// use.
//
// Go's timers alone wake a process that has nothing else to do through
// epoll, whose timeout counts whole milliseconds: a sleep of 200 µs lasted
// 1.09 ms (pgbench's: 0.30 ms), and a thread of a --rate schedule with
// events 200 µs apart fell behind it. So a Sleeper waits with the timer
// until 1 ms before the end and sleeps the rest in the kernel
// (nanosleep(2)), which wakes it within tens of µs. A thread that shares an
// OS thread with others (WithShared) sleeps in its share instead.
type Sleeper struct {
	timer *time.Timer
}

// kernelSleep is how much of the end of a sleep is slept in the kernel.
const kernelSleep = time.Millisecond

// Sleep waits for d, or returns ctx's error as soon as ctx ends.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	return s.Until(ctx, time.Now().Add(d))
}

// Until waits until t, or returns ctx's error as soon as ctx ends (within
// kernelSleep at the end of the wait).
func (s *Sleeper) Until(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	if shared, ok := ctx.Value(sharedKey{}).(Shared); ok {
		return shared.Sleep(ctx, t)
	}
	if timed := d - kernelSleep; timed > 0 {
		if s.timer == nil {
			s.timer = time.NewTimer(timed)
		} else {
			s.timer.Reset(timed)
		}
		select {
		case <-s.timer.C:
		case <-ctx.Done():
			s.timer.Stop()
			return ctx.Err()
		}
	}
	for {
		left := time.Until(t)
		if left <= 0 {
			return nil
		}
		ts := unix.NsecToTimespec(int64(left))
		if err := unix.Nanosleep(&ts, nil); err != nil && err != unix.EINTR {
			return fmt.Errorf("sleep: %w", err)
		}
	}
}

// Stop releases the timer.
func (s *Sleeper) Stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}
