package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

func TestWaitsForLock(t *testing.T) {
	cases := []struct {
		query string
		want  bool
	}{
		{"SELECT c FROM sbtest1 WHERE id=?", false},
		{"  select 1", false},
		{"(SELECT 1)", false},
		{"VALUES (1)", false},
		{"EXPLAIN QUERY PLAN SELECT 1", false},
		{"UPDATE sbtest1 SET k=k+1 WHERE id=?", true},
		{"INSERT INTO t VALUES (1)", true},
		{"BEGIN", true},
		{"COMMIT", true},
		{"WITH x AS (SELECT 1) DELETE FROM t", true},
		{"", true},
	}
	for _, tc := range cases {
		if got := waitsForLock(tc.query); got != tc.want {
			t.Errorf("waitsForLock(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestDeadlineEndsLockWait: a writer waiting (busy_timeout 10 s) for another
// connection's write lock returns soon after its context is cancelled.
func TestDeadlineEndsLockWait(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, sqliteTarget(t, true))
	holder := drivertest.Connect(t, d, 0)
	waiter := drivertest.Connect(t, d, 1)
	drivertest.LoadSbtest(t, d, holder, "sbtest1", 10)
	if _, err := holder.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer holder.Exec(ctx, "ROLLBACK")
	update, err := waiter.Prepare(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	defer update.Close()

	run, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(300*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	_, err = update.Exec(run, 1)
	if elapsed := time.Since(start); elapsed > 8*time.Second {
		t.Fatalf("Exec returned after %v, want well before the 10 s busy timeout", elapsed)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The connection stays usable.
	if n, err := waiter.Query(ctx, "SELECT c FROM sbtest1 WHERE id=?", 1); err != nil || n != 1 {
		t.Fatalf("Query after the cancelled wait = %d, %v", n, err)
	}
}
