package tpcc

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestTimings measures load and check times; it runs only when
// FAIRBENCH_TPCC_TIMING names the warehouse count (e.g. 2), and the targets
// one after the other so that the figures do not disturb each other.
// FAIRBENCH_TPCC_THREADS and FAIRBENCH_TPCC_PARTS set --threads and --parts.
func TestTimings(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FAIRBENCH_TPCC_TIMING"))
	if n < 1 {
		t.Skip("set FAIRBENCH_TPCC_TIMING=<warehouses> to measure load and check times")
	}
	threads := 2
	if s := os.Getenv("FAIRBENCH_TPCC_THREADS"); s != "" {
		threads, _ = strconv.Atoi(s)
	}
	parts := "1"
	if s := os.Getenv("FAIRBENCH_TPCC_PARTS"); s != "" {
		parts = s
	}
	for kind, cfg := range testdb.All(t) {
		ctx := context.Background()
		drv := openDriver(t, cfg)
		w := newWorkload(t, "--warehouses="+strconv.Itoa(n), "--no-check", "--parts="+parts)
		log := &syncbuf.Buffer{}
		start := time.Now()
		if err := w.Prepare(ctx, prepareEnv(t, drv, threads, log)); err != nil {
			t.Fatalf("%s: %v\n%s", kind, err, log)
		}
		load := time.Since(start)
		start = time.Now()
		failed, byID := checkResults(t, w, drv, true)
		check := time.Since(start)
		if len(failed) > 0 {
			t.Errorf("%s: failed %v", kind, failed)
		}
		slowest := ""
		var slow time.Duration
		for _, r := range byID {
			if r.Duration > slow {
				slow, slowest = r.Duration, r.Name
			}
		}
		t.Logf("%s: %d warehouses, %d threads: load+indexes %.1fs, check (12 conditions) %.2fs, slowest condition %q %.2fs",
			kind, n, threads, load.Seconds(), check.Seconds(), slowest, slow.Seconds())
	}
}
