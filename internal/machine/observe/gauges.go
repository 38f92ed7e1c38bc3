package observe

import (
	"context"
	"slices"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// gaugeSamples accumulates the samples of each gauge and the first sampling error.
type gaugeSamples struct {
	sum, max map[string]float64
	n        map[string]int
	err      error
}

func (g *gaugeSamples) add(values map[string]float64) {
	if g.sum == nil {
		g.sum, g.max, g.n = map[string]float64{}, map[string]float64{}, map[string]int{}
	}
	for name, v := range values {
		if g.n[name] == 0 || v > g.max[name] {
			g.max[name] = v
		}
		g.sum[name] += v
		g.n[name]++
	}
}

func (g *gaugeSamples) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// summary returns the gauges' means and maxima, nil when nothing was sampled.
func (g *gaugeSamples) summary() map[string]result.Gauge {
	if len(g.n) == 0 {
		return nil
	}
	out := make(map[string]result.Gauge, len(g.n))
	for name, n := range g.n {
		out[name] = result.Gauge{Mean: g.sum[name] / float64(n), Max: g.max[name], Samples: n}
	}
	return out
}

// sampleGauges samples the gauges on conn every interval until stop is closed,
// then sends what it gathered on done. It owns conn until then; a sample in
// flight when stop is closed is finished first (each is bounded by queryTimeout),
// so that the connection stays usable for the last snapshot.
func sampleGauges(ctx context.Context, sp serverProbe, conn driver.Conn, interval time.Duration, stop <-chan struct{}, done chan<- gaugeSamples) {
	var g gaugeSamples
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			done <- g
			return
		case <-tick.C:
			qctx, qcancel := context.WithTimeout(ctx, queryTimeout)
			values, err := sp.gauges(qctx, conn)
			qcancel()
			if err != nil {
				g.fail(err)
			} else {
				g.add(values)
			}
		}
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
