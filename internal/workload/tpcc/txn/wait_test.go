package txn

import (
	"context"
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
