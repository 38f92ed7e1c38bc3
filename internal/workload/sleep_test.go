package workload

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// shareRecorder is a Shared that records the sleeps it was given and sleeps
// them with time.Sleep.
type shareRecorder struct{ sleeps int }

func (s *shareRecorder) Sleep(ctx context.Context, t time.Time) error {
	s.sleeps++
	time.Sleep(time.Until(t))
	return ctx.Err()
}

// A cancelled context ends a sleep at once with the context's error.
func TestSleepReturnsWhenCancelled(t *testing.T) {
	var s Sleeper
	defer s.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Sleep(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
	if err := s.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on an ended context = %v, want context.Canceled", err)
	}
	if err := s.Sleep(context.Background(), 0); err != nil {
		t.Fatalf("zero Sleep = %v", err)
	}
}

// A thread that shares an OS thread sleeps in its share, not on its own; a
// zero sleep does not reach it.
func TestSleepGoesThroughTheShare(t *testing.T) {
	var s Sleeper
	defer s.Stop()
	sh := &shareRecorder{}
	ctx := WithShared(context.Background(), sh)
	start := time.Now()
	if err := s.Sleep(ctx, 2*time.Millisecond); err != nil || sh.sleeps != 1 || time.Since(start) < 2*time.Millisecond {
		t.Fatalf("err %v, %d sleeps in the share, took %v; want one of 2 ms", err, sh.sleeps, time.Since(start))
	}
	if err := s.Sleep(ctx, 0); err != nil || sh.sleeps != 1 {
		t.Fatalf("zero sleep: err %v, %d sleeps in the share; want none", err, sh.sleeps)
	}
	if WithShared(context.Background(), nil) != context.Background() {
		t.Fatal("WithShared(nil) must return ctx itself")
	}
}

// A sleep shorter than a millisecond lasts about what was asked: Go's
// timers alone wake an idle process through epoll, whose timeout counts whole
// milliseconds, so every such sleep lasted at least 1 ms (a 200 µs \sleep
// measured 1.09 ms, pgbench's 0.30 ms). The median of 21 is held under
// 800 µs, which a timer alone cannot reach however fast the machine.
func TestShortSleepIsNotRoundedToAMillisecond(t *testing.T) {
	median := func(ctx context.Context) time.Duration {
		var s Sleeper
		defer s.Stop()
		took := make([]time.Duration, 21)
		for i := range took {
			start := time.Now()
			if err := s.Sleep(ctx, 200*time.Microsecond); err != nil {
				t.Fatal(err)
			}
			took[i] = time.Since(start)
		}
		slices.Sort(took)
		return took[len(took)/2]
	}
	if m := median(context.Background()); m < 200*time.Microsecond || m >= 800*time.Microsecond {
		t.Errorf("a 200 µs sleep took %v (median of 21), want 200 µs to 800 µs", m)
	}
}
