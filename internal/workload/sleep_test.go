package workload

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// shareRecorder is a Shared that records its calls.
type shareRecorder struct {
	entered bool
	calls   []string
}

func (s *shareRecorder) Leave() bool {
	s.calls = append(s.calls, "leave")
	was := s.entered
	s.entered = false
	return was
}

func (s *shareRecorder) Enter() {
	s.calls = append(s.calls, "enter")
	s.entered = true
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

// A sleep leaves the thread's share of an OS thread and enters it again
// after, only when the thread had entered; a zero sleep does neither.
func TestSleepLeavesItsShare(t *testing.T) {
	var s Sleeper
	defer s.Stop()
	sh := &shareRecorder{entered: true}
	ctx := WithShared(context.Background(), sh)
	if err := s.Sleep(ctx, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := len(sh.calls); got != 2 || sh.calls[0] != "leave" || sh.calls[1] != "enter" || !sh.entered {
		t.Fatalf("calls %v, entered %v; want leave, enter and entered", sh.calls, sh.entered)
	}
	sh.entered, sh.calls = false, nil
	if err := s.Sleep(ctx, time.Millisecond); err != nil || len(sh.calls) != 1 || sh.entered {
		t.Fatalf("not entered: err %v, calls %v, entered %v; want one leave only", err, sh.calls, sh.entered)
	}
	sh.calls = nil
	if err := s.Sleep(ctx, 0); err != nil || len(sh.calls) != 0 {
		t.Fatalf("zero sleep: err %v, calls %v; want none", err, sh.calls)
	}
	if WithShared(context.Background(), nil) != context.Background() {
		t.Fatal("WithShared(nil) must return ctx itself")
	}
}

// A sleep shorter than a millisecond lasts about what was asked: Go's
// timers alone wake an idle process through epoll, whose timeout counts whole
// milliseconds, so every such sleep lasted at least 1 ms (a 200 µs \sleep
// measured 1.09 ms, pgbench's 0.30 ms). The median of 21 is held under
// 800 µs, which a timer alone cannot reach however fast the machine; a
// thread that shares an OS thread (WithShared) keeps to the timer.
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
	sh := &shareRecorder{entered: true}
	if m := median(WithShared(context.Background(), sh)); m < 200*time.Microsecond {
		t.Errorf("a shared thread's 200 µs sleep took %v", m)
	}
	if len(sh.calls) != 42 {
		t.Errorf("%d calls to the share, want a leave and an enter per sleep", len(sh.calls))
	}
}
