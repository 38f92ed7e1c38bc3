package mysql

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// TestDeadlineInterruptsHangingCall runs SELECT SLEEP(30) and cancels the
// context shortly after: the call must come back long before the 30 seconds.
func TestDeadlineInterruptsHangingCall(t *testing.T) {
	cases := []struct {
		name     string
		prepared bool
		run      func(ctx context.Context, c driver.Conn) error
	}{
		{"prepared Stmt.Query", true, stmtQuery},
		{"text Stmt.Query", false, stmtQuery},
		{"Conn.Query", true, func(ctx context.Context, c driver.Conn) error {
			_, err := c.Query(ctx, "SELECT SLEEP(30)")
			return err
		}},
		{"Conn.Exec", true, func(ctx context.Context, c driver.Conn) error {
			_, err := c.Exec(ctx, "DO SLEEP(30)")
			return err
		}},
	}
	cfg := mysqlTarget(t, true)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg.Prepared = tc.prepared
			d := openDriver(t, cfg)
			c := drivertest.Connect(t, d, 0)
			ctx, cancel := context.WithCancel(context.Background())
			// A first call with the same context starts the watcher, as a worker's does.
			if _, err := c.Query(ctx, "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(300*time.Millisecond, cancel)
			defer timer.Stop()
			start := time.Now()
			err := tc.run(ctx, c)
			elapsed := time.Since(start)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if elapsed > 15*time.Second {
				t.Fatalf("call returned after %v, want well before SLEEP(30) ends", elapsed)
			}
			if info := d.Describe(err); info.Code != "" || info.ConnectionLost {
				t.Errorf("Describe(%v) = %+v, want neither code nor connection loss", err, info)
			}
		})
	}
}

func stmtQuery(ctx context.Context, c driver.Conn) error {
	s, err := c.Prepare(ctx, "SELECT SLEEP(30)")
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = s.Query(ctx)
	return err
}

// TestDeadlineBetweenCallsKeepsConnection: a context that ends while the
// connection is idle fails the calls made with it, not the connection.
func TestDeadlineBetweenCallsKeepsConnection(t *testing.T) {
	d := openDriver(t, mysqlTarget(t, true))
	c := drivertest.Connect(t, d, 0)
	s, err := c.Prepare(context.Background(), "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	phase, endPhase := context.WithCancel(context.Background())
	if n, err := s.Query(phase); err != nil || n != 1 {
		t.Fatalf("Query = %d, %v", n, err)
	}
	endPhase()
	if _, err := s.Query(phase); !errors.Is(err, context.Canceled) {
		t.Fatalf("Query with the ended context: %v, want context.Canceled", err)
	}
	next, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{next, context.Background()} {
		if n, err := s.Query(ctx); err != nil || n != 1 {
			t.Fatalf("Query with a live context after the first ended = %d, %v", n, err)
		}
	}
}
