package tpcc

import (
	"context"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// runWorkers runs events transactions on each of workers connections through
// NewWorker, as the runner does (an error is rolled back and counted), and
// returns the events per kind and the errors.
func runWorkers(t *testing.T, w *tpcc, drv driver.Driver, workers, events int) (perKind []int64, errs int64) {
	t.Helper()
	ctx := context.Background()
	perKind = make([]int64, len(w.Kinds()))
	var mu sync.Mutex
	var wg sync.WaitGroup
	failures := make(chan error, workers)
	for i := 0; i < workers; i++ {
		conn := connect(t, drv)
		wk, err := w.NewWorker(ctx, conn, drv.Dialect(), testFactory(t).Source(uint64(100+i)))
		if err != nil {
			t.Fatalf("NewWorker: %v", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer wk.Close()
			local := make([]int64, len(perKind))
			var localErrs int64
			for e := 0; e < events; e++ {
				var c workload.Counts
				if err := wk.Event(ctx, &c); err != nil {
					localErrs++
					if drv.Describe(err).Code == "" {
						failures <- err
						return
					}
					if err := wk.Rollback(ctx); err != nil {
						failures <- err
						return
					}
					continue
				}
				local[c.Kind]++
			}
			mu.Lock()
			defer mu.Unlock()
			for k, n := range local {
				perKind[k] += n
			}
			errs += localErrs
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Fatalf("worker: %v", err)
	}
	return perKind, errs
}
