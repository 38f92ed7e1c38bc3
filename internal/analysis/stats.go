package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of the confidence intervals (95%).
const Confidence = 0.95

// DefaultAlpha is the significance level of comparisons (benchstat's 0.05).
const DefaultAlpha = 0.05

// Stats sums up the rounds of one cell.
//
// Method: Mean is the arithmetic mean; StdDev the sample standard deviation
// (divisor n−1); CV the coefficient of variation StdDev/Mean; Median the
// sample median (benchmath.AssumeNothing). CILo..CIHi is the 95% confidence
// interval of the mean on the log scale, mean ×/÷ exp(t·s/√n) with s the
// standard deviation of the values' logarithms and t Student's quantile with
// n−1 degrees of freedom: the figures are positive quantities (throughput,
// latency, cost), and so is every bound of their interval (docs/statistics.md).
// With fewer than two values StdDev, CV and the interval are undefined (NaN);
// so is the interval when a value is zero or negative. NoInterval says why
// there is no interval.
type Stats struct {
	N      int
	Mean   float64
	StdDev float64
	CV     float64 // a fraction: 0.02 is 2%
	CILo   float64
	CIHi   float64
	// NoInterval is why CILo..CIHi is NaN ("one round", "a round is zero");
	// "" when there is an interval (or no value at all).
	NoInterval string
	Min        float64
	Max        float64
	Median     float64
	Values     []float64 // ascending
}

// Vague reports whether the interval is wider than the mean itself: the
// rounds then tell next to nothing about the figure, and every rendering
// marks it VagueMark (and so any speed-up or efficiency derived from it).
func (st Stats) Vague() bool {
	return st.N > 1 && !math.IsNaN(st.CILo) && st.CIHi-st.CILo > st.Mean
}

// VagueMark marks a figure whose interval is wider than the figure itself.
const VagueMark = "≈"

// The reasons a cell has no interval.
const (
	NoIntervalOneRound    = "one round"
	NoIntervalNonPositive = "a round is zero"
)

// Describe computes the statistics of values (which it does not change). With
// no values, N is 0 and every figure is NaN.
func Describe(values []float64) Stats {
	nan := math.NaN()
	st := Stats{N: len(values), Mean: nan, StdDev: nan, CV: nan, CILo: nan, CIHi: nan, Min: nan, Max: nan, Median: nan}
	if len(values) == 0 {
		return st
	}
	smp := newSample(values, DefaultAlpha)
	st.Values = smp.Values
	st.Min, st.Max = smp.Values[0], smp.Values[len(smp.Values)-1]
	st.Median = benchmath.AssumeNothing.Summary(smp, Confidence).Center
	mean := benchmath.AssumeNormal.Summary(smp, Confidence)
	st.Mean = mean.Center
	if st.N < 2 {
		st.NoInterval = NoIntervalOneRound
		return st
	}
	if lo, hi, ok := logInterval(smp.Values, st.Mean, Confidence); ok {
		st.CILo, st.CIHi = lo, hi
	} else {
		st.NoInterval = NoIntervalNonPositive
	}
	var ss float64
	for _, v := range smp.Values {
		ss += (v - st.Mean) * (v - st.Mean)
	}
	st.StdDev = math.Sqrt(ss / float64(st.N-1))
	if st.Mean != 0 {
		st.CV = st.StdDev / math.Abs(st.Mean)
	}
	return st
}

// newSample makes a benchmath sample of a copy of values (NewSample sorts in
// place).
func newSample(values []float64, alpha float64) *benchmath.Sample {
	return benchmath.NewSample(slices.Clone(values), &benchmath.Thresholds{CompareAlpha: alpha})
}

// Center is the statistic that stands for a cell in comparisons and scalability.
type Center string

// The centers.
const (
	CenterMean   Center = "mean"   // the default: what a throughput table usually shows
	CenterMedian Center = "median" // robust to an outlying round, as benchstat shows
)

// Of returns the center of st.
func (c Center) Of(st Stats) float64 {
	if c == CenterMedian {
		return st.Median
	}
	return st.Mean
}

// ParseCenter parses "mean" or "median" ("" is DefaultCenter, the mean).
func ParseCenter(s string) (Center, error) {
	switch Center(s) {
	case "":
		return DefaultCenter, nil
	case CenterMean:
		return CenterMean, nil
	case CenterMedian:
		return CenterMedian, nil
	}
	return "", fmt.Errorf("unknown center %q: use mean or median", s)
}

// Significance is the outcome of the Mann-Whitney U test of a system's rounds
// against the baseline's: a comparison's second, distribution-free opinion
// beside its Ratio (the claim rests on the Ratio's interval).
//
// The test is benchstat's: the two-sided Mann-Whitney U test
// (benchmath.AssumeNothing.Compare), which assumes nothing about the
// distribution of the rounds. It needs at least two rounds on each side, and
// it has power at level α only when its smallest possible p value,
// 2 / C(n+m, n), is below α: with 0.05, 4 rounds a side (or 3 and 5); three a
// side give 0.1 at best.
type Significance struct {
	// Tested is false when either side has fewer than two rounds: no test is
	// possible and P is NaN.
	Tested bool
	// Powered is true when the test could reach P < Alpha with these rounds
	// (MannWhitneyPowered); a test without power says nothing when P ≥
	// Alpha.
	Powered bool
	// P is the test's p-value; Alpha the level it is compared with.
	P     float64
	Alpha float64
	// Significant is true when the test ran and P < Alpha.
	Significant bool
	// Reason says why it is not significant: ReasonTooFew when no test was
	// possible, ReasonNoPower when the rounds are too few for the test to
	// reach Alpha, ReasonNotSignificant when it could have and did not.
	Reason string
	// Warnings are benchmath's (e.g. "all samples are equal").
	Warnings []string
}

// The reasons a Mann-Whitney test is not significant.
const (
	ReasonTooFew         = "n<2"      // a side has fewer than two rounds: no test possible
	ReasonNoPower        = "no power" // too few rounds to reach α at all
	ReasonNotSignificant = "p≥α"      // tested with power, not significant
)

// MannWhitney tests whether samples a and b differ (two-sided Mann-Whitney U
// test via benchmath) at level alpha (0 = DefaultAlpha).
func MannWhitney(a, b []float64, alpha float64) Significance {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	sig := Significance{P: math.NaN(), Alpha: alpha}
	if len(a) < 2 || len(b) < 2 {
		sig.Reason = ReasonTooFew
		return sig
	}
	cmp := benchmath.AssumeNothing.Compare(newSample(a, alpha), newSample(b, alpha))
	sig.Tested, sig.P, sig.Powered = true, cmp.P, MannWhitneyPowered(len(a), len(b), alpha)
	for _, w := range cmp.Warnings {
		// benchmath's "need >= 4 samples" is what Powered says.
		if sig.Powered || !strings.HasPrefix(w.Error(), "need >=") {
			sig.Warnings = append(sig.Warnings, w.Error())
		}
	}
	switch {
	case cmp.P < alpha:
		sig.Significant = true
	case !sig.Powered:
		sig.Reason = ReasonNoPower
	default:
		sig.Reason = ReasonNotSignificant
	}
	return sig
}
