package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
)

func TestDescribeServerErrors(t *testing.T) {
	cfg := freshDB(t, true)
	d := openDriver(t, cfg)
	a, b := connectTo(t, cfg), connectTo(t, cfg)
	ctx := testContext(t)
	createAndLoad(t, a, "sbtest1", 10)

	t.Run("unique violation", func(t *testing.T) {
		_, err := a.Exec(ctx, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, 0, '', '')", 1)
		if info := d.Describe(err); info.Code != "23505" || info.ConnectionLost {
			t.Errorf("Describe(%v) = %+v, want code 23505", err, info)
		}
		if _, err := a.Query(ctx, "SELECT 1"); err != nil {
			t.Errorf("connection unusable after a unique violation: %v", err)
		}
	})

	t.Run("deadlock", func(t *testing.T) {
		for _, c := range []driver.Conn{a, b} {
			if _, err := c.Exec(ctx, "SET deadlock_timeout = '100ms'"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.Exec(ctx, "UPDATE sbtest1 SET k = 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Exec(ctx, "UPDATE sbtest1 SET k = 1 WHERE id = 2"); err != nil {
			t.Fatal(err)
		}
		errA := make(chan error, 1)
		go func() {
			_, err := a.Exec(ctx, "UPDATE sbtest1 SET k = 2 WHERE id = 2")
			errA <- err
		}()
		waitFor(t, b, "a to wait for b's lock", "SELECT count(*) > 0 FROM pg_locks WHERE NOT granted")
		_, errB := b.Exec(ctx, "UPDATE sbtest1 SET k = 2 WHERE id = 1")
		codes := map[string]bool{d.Describe(<-errA).Code: true, d.Describe(errB).Code: true}
		if !codes["40P01"] {
			t.Errorf("codes %v of the two updates lack 40P01", codes)
		}
		for _, c := range []driver.Conn{a, b} {
			if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("serialization failure", func(t *testing.T) {
		for _, c := range []driver.Conn{a, b} {
			if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Query(ctx, "SELECT k FROM sbtest1 WHERE id = 3"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.Exec(ctx, "UPDATE sbtest1 SET k = k + 1 WHERE id = 3"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Exec(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		_, err := b.Exec(ctx, "UPDATE sbtest1 SET k = k + 1 WHERE id = 3")
		if info := d.Describe(err); info.Code != "40001" || info.ConnectionLost {
			t.Errorf("Describe(%v) = %+v, want code 40001", err, info)
		}
		if _, err := b.Exec(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	})

	if got := d.DefaultIgnorable(); fmt.Sprint(got) != "[40P01 40001 23505]" {
		t.Errorf("DefaultIgnorable = %v", got)
	}
}

func TestTerminatedBackendIsConnectionLost(t *testing.T) {
	cfg := freshDB(t, true)
	d := openDriver(t, cfg)
	victim, killer := connectTo(t, cfg), connectTo(t, cfg)
	ctx := testContext(t)
	stmt, err := victim.Prepare(ctx, "SELECT ?::int")
	if err != nil {
		t.Fatal(err)
	}
	pid := queryOne(t, victim, "SELECT pg_backend_pid()")
	if got := queryOne(t, killer, "SELECT pg_terminate_backend(?)", pid); got != "t" {
		t.Fatalf("pg_terminate_backend = %s", got)
	}
	_, err = stmt.Query(ctx, 1)
	if info := d.Describe(err); err == nil || !info.ConnectionLost {
		t.Errorf("after pg_terminate_backend: err %v, Describe %+v; want ConnectionLost", err, info)
	}
	_, err = victim.Exec(ctx, "SELECT 1")
	if info := d.Describe(err); err == nil || !info.ConnectionLost {
		t.Errorf("next call: err %v, Describe %+v; want ConnectionLost", err, info)
	}
	if err := stmt.Close(); err != nil {
		t.Errorf("Stmt.Close on a lost connection: %v", err)
	}
}

func TestDescribeClientErrors(t *testing.T) {
	d := &Driver{}
	cases := []struct {
		name string
		err  error
		want driver.ErrorInfo
	}{
		{"nil", nil, driver.ErrorInfo{}},
		{"eof", fmt.Errorf("read: %w", io.EOF), driver.ErrorInfo{ConnectionLost: true}},
		{"unusable", errUnusable, driver.ErrorInfo{ConnectionLost: true}},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), driver.ErrorInfo{}},
		{"other", errors.New("unsupported argument type"), driver.ErrorInfo{}},
	}
	for _, tc := range cases {
		if got := d.Describe(tc.err); got != tc.want {
			t.Errorf("%s: Describe = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestCancelledContextInterruptsAHungCall(t *testing.T) {
	cfg := freshDB(t, true)
	d := openDriver(t, cfg)
	observer := connectTo(t, cfg)
	modes(t, func(t *testing.T, prepared bool) {
		cfg.Prepared = prepared
		c := connectTo(t, cfg)
		stmt, err := c.Prepare(testContext(t), "SELECT pg_sleep(?)")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// A quick call first, so the context is being watched before the hang.
		if _, err := stmt.Query(ctx, 0); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := stmt.Query(ctx, 30)
			done <- err
		}()
		waitFor(t, observer, "pg_sleep to run", "SELECT count(*) > 0 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(%' AND state = 'active'")
		cancel()
		cancelled := time.Now()
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("the call was still running 15s after its context was cancelled")
		}
		t.Logf("returned %v after cancel", time.Since(cancelled))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if info := d.Describe(err); info.ConnectionLost {
			t.Errorf("Describe(%v) = %+v: an interruption must not look like a lost connection", err, info)
		}
		waitFor(t, observer, "the server to stop sleeping", "SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(%' AND state = 'active'")
		if _, err := c.Query(context.Background(), "SELECT 1"); !d.Describe(err).ConnectionLost {
			t.Errorf("call after the interruption: %v, want a lost connection", err)
		}
	})
}

func TestCancelledContextLeavesAnIdleConnectionUsable(t *testing.T) {
	c := connectTo(t, freshDB(t, true))
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := c.Query(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := c.Query(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Errorf("call under a cancelled context: %v, want context.Canceled", err)
	}
	if n, err := c.Query(testContext(t), "SELECT 1"); err != nil || n != 1 {
		t.Errorf("call under a new context: %d, %v", n, err)
	}
}

// waitFor polls query (one boolean) on c until it is true.
func waitFor(t *testing.T, c driver.Conn, what, query string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		if queryOne(t, c, query) == "t" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}
