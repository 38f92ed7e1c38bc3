package analysis

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of the confidence intervals (95%).
const Confidence = 0.95

// DefaultAlpha is the significance level of comparisons (benchstat's 0.05).
const DefaultAlpha = 0.05

// Stats sums up the rounds of one cell.
//
// Method: Mean is the arithmetic mean; StdDev the sample standard deviation
// (divisor n−1); CV the coefficient of variation StdDev/Mean; CILo..CIHi the
// 95% confidence interval of the mean from Student's t distribution with n−1
// degrees of freedom (mean ± t·StdDev/√n, computed by
// benchmath.AssumeNormal); Median is the sample median (benchmath.AssumeNothing).
// With fewer than two values StdDev, CV and the interval are undefined (NaN).
type Stats struct {
	N      int
	Mean   float64
	StdDev float64
	CV     float64 // a fraction: 0.02 is 2%
	CILo   float64
	CIHi   float64
	Min    float64
	Max    float64
	Median float64
	Values []float64 // ascending
}

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
		return st
	}
	st.CILo, st.CIHi = mean.Lo, mean.Hi
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

// Significance is the outcome of testing whether a system's rounds differ from
// the baseline's.
//
// The test is benchstat's: the two-sided Mann-Whitney U test
// (benchmath.AssumeNothing.Compare), which assumes nothing about the
// distribution of the rounds. It needs at least two rounds on each side; with
// equal sample sizes a p-value below 0.05 needs at least 4 rounds each (3 give
// at best p=0.1).
type Significance struct {
	// Tested is false when either side has fewer than two rounds: no test is
	// possible and P is NaN.
	Tested bool
	// P is the test's p-value; Alpha the level it is compared with.
	P     float64
	Alpha float64
	// Significant is true when the test ran and P < Alpha.
	Significant bool
	// Mark is "" for a significant difference and "~" otherwise (as benchstat
	// marks "no difference"); Reason says why: "n<2" when no test was
	// possible, "p≥α" when the difference is not significant.
	Mark   string
	Reason string
	// Warnings are benchmath's (e.g. "need >= 4 samples to detect a difference
	// at alpha level 0.05", "all samples are equal").
	Warnings []string
}

// The reasons of a "~" mark.
const (
	ReasonTooFew         = "n<2" // a side has fewer than two rounds: no test possible
	ReasonNotSignificant = "p≥α" // tested, not significant
)

// MannWhitney tests whether samples a and b differ (two-sided Mann-Whitney U
// test via benchmath) at level alpha (0 = DefaultAlpha).
func MannWhitney(a, b []float64, alpha float64) Significance {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	sig := Significance{P: math.NaN(), Alpha: alpha, Mark: "~"}
	if len(a) < 2 || len(b) < 2 {
		sig.Reason = ReasonTooFew
		return sig
	}
	cmp := benchmath.AssumeNothing.Compare(newSample(a, alpha), newSample(b, alpha))
	sig.Tested, sig.P = true, cmp.P
	for _, w := range cmp.Warnings {
		sig.Warnings = append(sig.Warnings, w.Error())
	}
	if cmp.P < alpha {
		sig.Significant, sig.Mark = true, ""
	} else {
		sig.Reason = ReasonNotSignificant
	}
	return sig
}
