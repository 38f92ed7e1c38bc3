package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/workload"
)

// startProgress reports loading progress on w until the returned stop is called:
// a line redrawn in place on a terminal, a plain line every 10 s otherwise.
func startProgress(w io.Writer, terminal bool, p *workload.Progress) (stop func()) {
	every := 10 * time.Second
	if terminal {
		every = 500 * time.Millisecond
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		drew := false
		for {
			select {
			case <-quit:
				if drew {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-t.C:
				line := progressLine(p.Snapshot())
				if terminal {
					fmt.Fprintf(w, "\r\033[K%s", line)
					drew = true
				} else {
					fmt.Fprintln(w, line)
				}
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// progressLine renders rows done, rate and ETA.
func progressLine(done, total int64, elapsed time.Duration) string {
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	if total <= 0 {
		return fmt.Sprintf("loaded %d rows (%.0f rows/s)", done, rate)
	}
	eta := "?"
	if rate > 0 && done < total {
		eta = (time.Duration(float64(total-done)/rate) * time.Second / time.Second).Round(time.Second).String()
	} else if done >= total {
		eta = "0s"
	}
	return fmt.Sprintf("loaded %d/%d rows (%.1f%%), %.0f rows/s, ETA %s", done, total, 100*float64(done)/float64(total), rate, eta)
}
