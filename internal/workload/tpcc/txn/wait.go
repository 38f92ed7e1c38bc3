package txn

import (
	"math"
	"time"

	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// keyingTimes are the minimum keying times of clause 5.2.5.7, in Kinds order.
var keyingTimes = [numKinds]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}

// meanThinkTimes are the minimum mean think times of clause 5.2.5.7, in Kinds order.
var meanThinkTimes = [numKinds]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}

// thinkTime draws a think time from the negative exponential distribution of
// clause 5.2.5.4, Tt = −ln(r) × µ with r uniform in (0, 1], cut at 10 × µ.
func thinkTime(rng *randgen.Source, mean time.Duration) time.Duration {
	r := 1 - rng.Float64() // (0, 1]
	t := -math.Log(r) * float64(mean)
	if limit := 10 * float64(mean); t > limit {
		t = limit
	}
	return time.Duration(t)
}
