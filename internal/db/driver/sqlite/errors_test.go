package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

func TestDefaultIgnorable(t *testing.T) {
	got := (&Driver{}).DefaultIgnorable()
	if fmt.Sprint(got) != "[SQLITE_BUSY SQLITE_LOCKED]" {
		t.Fatalf("DefaultIgnorable = %v", got)
	}
	if info := (&Driver{}).Describe(errors.New("other")); info != (driver.ErrorInfo{}) {
		t.Errorf("Describe(plain error) = %+v, want empty", info)
	}
}

func TestDescribeRealErrors(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, sqliteTarget(t, true))
	a := drivertest.Connect(t, d, 0)
	b := drivertest.Connect(t, d, 1)
	drivertest.LoadSbtest(t, d, a, "sbtest1", 10)

	t.Run("duplicate key", func(t *testing.T) {
		_, err := a.Exec(ctx, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", 1, 1, "c", "pad")
		if got := d.Describe(err); got.Code != "SQLITE_CONSTRAINT" || got.ConnectionLost {
			t.Fatalf("Describe(%v) = %+v, want SQLITE_CONSTRAINT", err, got)
		}
	})

	t.Run("second writer is busy", func(t *testing.T) {
		if _, err := a.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		defer a.Exec(ctx, "ROLLBACK")
		if _, err := a.Exec(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=1"); err != nil {
			t.Fatal(err)
		}
		// Without a wait the second writer fails at once instead of after 10 s.
		if _, err := b.Exec(ctx, "PRAGMA busy_timeout=0"); err != nil {
			t.Fatal(err)
		}
		defer b.Exec(ctx, "PRAGMA busy_timeout=10000")
		_, err := b.Exec(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=2")
		if got := d.Describe(err); got.Code != "SQLITE_BUSY" {
			t.Fatalf("Describe(%v) = %+v, want SQLITE_BUSY", err, got)
		}
	})

	t.Run("stale snapshot upgrade is busy", func(t *testing.T) {
		// a reads in a deferred transaction, b commits a write, a's write can no
		// longer upgrade: SQLITE_BUSY_SNAPSHOT, whatever the busy timeout.
		if _, err := a.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		defer a.Exec(ctx, "ROLLBACK")
		if n, err := a.Query(ctx, "SELECT c FROM sbtest1 WHERE id=?", 3); err != nil || n != 1 {
			t.Fatalf("read = %d, %v", n, err)
		}
		if _, err := b.Exec(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=4"); err != nil {
			t.Fatal(err)
		}
		_, err := a.Exec(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=3")
		got := d.Describe(err)
		if got.Code != "SQLITE_BUSY" {
			t.Fatalf("Describe(%v) = %+v, want SQLITE_BUSY", err, got)
		}
		ignorable := false
		for _, c := range d.DefaultIgnorable() {
			ignorable = ignorable || c == got.Code
		}
		if !ignorable {
			t.Errorf("%s is not ignorable by default", got.Code)
		}
	})
}
