package workload

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// fakeConn is a distinct driver.Conn that RunParallel only hands on.
type fakeConn struct {
	driver.Conn
	id int
}

func fakeConns(n int) []driver.Conn {
	conns := make([]driver.Conn, n)
	for i := range conns {
		conns[i] = &fakeConn{id: i}
	}
	return conns
}

func TestRunParallelRunsEveryJobOnce(t *testing.T) {
	cases := []struct {
		name        string
		conns, jobs int
	}{
		{"more jobs than connections", 3, 100},
		{"fewer jobs than connections", 8, 2},
		{"one connection", 1, 10},
		{"no jobs", 4, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conns := fakeConns(tc.conns)
			runs := make([]atomic.Int32, tc.jobs)
			var mu sync.Mutex
			used := map[driver.Conn]bool{}
			err := RunParallel(context.Background(), conns, tc.jobs, func(ctx context.Context, c driver.Conn, job int) error {
				runs[job].Add(1)
				mu.Lock()
				used[c] = true
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Fatalf("RunParallel = %v, want nil", err)
			}
			for job := range runs {
				if n := runs[job].Load(); n != 1 {
					t.Errorf("job %d ran %d times, want once", job, n)
				}
			}
			for c := range used {
				if fc, ok := c.(*fakeConn); !ok || conns[fc.id] != c {
					t.Errorf("fn got connection %v, which is not one of conns", c)
				}
			}
		})
	}
}

// The failing job's error is returned although the jobs it cancels fail
// later with context.Canceled, and no job is handed out after it.
func TestRunParallelFirstErrorWinsAndCancelsTheRest(t *testing.T) {
	boom := errors.New("boom")
	conns := fakeConns(4)
	var started atomic.Int32
	err := RunParallel(context.Background(), conns, 100, func(ctx context.Context, _ driver.Conn, job int) error {
		started.Add(1)
		if job == 2 { // jobs 0..3 go one to each connection; 0, 1 and 3 wait
			return boom
		}
		<-ctx.Done() // returns only once RunParallel cancels the others
		return ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Fatalf("RunParallel = %v, want the first error %v", err, boom)
	}
	if n := started.Load(); n > int32(len(conns)) {
		t.Fatalf("%d jobs started, want at most %d: jobs were handed out after the error", n, len(conns))
	}
}

func TestRunParallelReportsCancellationOfItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var runs atomic.Int32
	err := RunParallel(ctx, fakeConns(2), 5, func(context.Context, driver.Conn, int) error {
		runs.Add(1)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunParallel = %v, want context.Canceled", err)
	}
	if runs.Load() != 5 {
		t.Fatalf("%d jobs ran, want all 5 (fn decides what a cancelled context means)", runs.Load())
	}
}

func TestSyncWriter(t *testing.T) {
	if n, err := SyncWriter(nil).Write([]byte("dropped")); n != 7 || err != nil {
		t.Fatalf("SyncWriter(nil).Write = %d, %v; want 7, nil", n, err)
	}
	var buf bytes.Buffer
	w := SyncWriter(&buf)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				w.Write([]byte("line\n"))
			}
		}()
	}
	wg.Wait()
	if got, want := buf.String(), strings.Repeat("line\n", 800); got != want {
		t.Fatalf("wrote %d bytes, want %d whole lines", len(got), 800)
	}
}
