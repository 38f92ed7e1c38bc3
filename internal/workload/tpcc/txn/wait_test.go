package txn

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// With Config.Wait each Event first sleeps the previous transaction's think
// time plus its own keying time; the sleep is injected, so nothing waits.
func TestWaitSleepsKeyingAndThinkTimes(t *testing.T) {
	f := loadFixture(t, testdb.SQLite(t))
	w := f.worker(t, 1, [numKinds]int{0, 0, 1, 0, 1}, 31)
	w.cfg.Wait = true
	var slept []time.Duration
	w.sleep = func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}
	var owed time.Duration
	for i := range 20 {
		var c workload.Counts
		if err := w.Event(context.Background(), &c); err != nil {
			t.Fatal(err)
		}
		want := owed + keyingTimes[c.Kind]
		if slept[i] != want || w.Waited() != want {
			t.Fatalf("event %d (%s) slept %v (Waited %v), want think %v + keying %v", i, Kinds[c.Kind], slept[i], w.Waited(), owed, keyingTimes[c.Kind])
		}
		if w.nextThink < 0 || w.nextThink > 10*meanThinkTimes[c.Kind] {
			t.Fatalf("think time %v outside [0, 10 × %v]", w.nextThink, meanThinkTimes[c.Kind])
		}
		owed = w.nextThink
	}
	w.cfg.Wait = false
	var c workload.Counts
	if err := w.Event(context.Background(), &c); err != nil || len(slept) != 20 || w.Waited() != 0 {
		t.Fatalf("without Wait: err %v, %d sleeps, Waited %v; want no sleep", err, len(slept), w.Waited())
	}
}

// A cancelled context ends a wait at once with the context's error.
func TestSleepReturnsWhenCancelled(t *testing.T) {
	var s sleeper
	defer s.stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.sleep(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep = %v, want context.Canceled", err)
	}
	if err := s.sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep on an ended context = %v, want context.Canceled", err)
	}
	if err := s.sleep(context.Background(), 0); err != nil {
		t.Fatalf("zero sleep = %v", err)
	}
}

// With Config.Wait the worker marks its calls itself (workload.CallMarker):
// the runner's mark moves to the end of each sleep, never while it sleeps,
// so that a stall detector sees the transaction's time in the database only;
// without Wait it leaves the mark to the runner.
func TestWaitMarksCalls(t *testing.T) {
	f := loadFixture(t, testdb.SQLite(t))
	w := f.worker(t, 1, [numKinds]int{0, 0, 1, 0, 1}, 31)
	var mark atomic.Int64
	if w.MarkCalls(&mark) {
		t.Fatal("MarkCalls without Wait took the mark: the runner would never set it")
	}
	w.cfg.Wait = true
	if !w.MarkCalls(&mark) {
		t.Fatal("MarkCalls with Wait left the mark to the runner: its sleeps would count as waits for the server")
	}
	var atSleep int64
	var woke time.Time
	w.sleep = func(ctx context.Context, d time.Duration) error {
		atSleep = mark.Load()
		woke = time.Now()
		return nil
	}
	for i := range 5 {
		before := mark.Load()
		var c workload.Counts
		if err := w.Event(context.Background(), &c); err != nil {
			t.Fatal(err)
		}
		if atSleep != before {
			t.Errorf("event %d: the mark moved to %d before the sleep ended (was %d)", i, atSleep, before)
		}
		if m := mark.Load(); m < woke.UnixNano() || m > time.Now().UnixNano() {
			t.Errorf("event %d: mark %d, want the end of the sleep (%d) or just after", i, m, woke.UnixNano())
		}
	}
}
