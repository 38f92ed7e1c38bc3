package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The inference of a comparison (docs/statistics.md says why this method):
// a system's rounds are compared with the baseline's by Welch's t test on the
// logarithms of the rounds. The difference of the log means is the log of
// the ratio of the geometric means; its interval, brought back by exp, is a
// confidence interval of that ratio that stays positive, is exact when the
// rounds are log-normal and needs no equal spreads. A difference is claimed
// when the interval excludes 1 (no change), which is the same as p < α.
// Mann-Whitney's U test stays as a second, distribution-free opinion, where
// the rounds give it power (MannWhitneyPowered).

// MethodWelchLog names the method of Ratio in result files and reports.
const MethodWelchLog = "Welch's t test on log values, a ratio of geometric means"

// The reasons a ratio was not tested.
const (
	// NotTestedTooFew: a side has fewer than two rounds.
	NotTestedTooFew = "too few rounds"
	// NotTestedNonPositive: a round is zero or negative: no logarithm.
	NotTestedNonPositive = "a round is zero"
	// NotTestedNoSpread: every round of both sides is equal: no spread to
	// judge a difference by.
	NotTestedNoSpread = "every round equal"
)

// Ratio is a system's figure against the baseline's: the ratio of their
// geometric means with its confidence interval (MethodWelchLog). Figures
// that do not apply are NaN.
type Ratio struct {
	// N and BaseN are the rounds of the system and of the baseline.
	N, BaseN int
	// Tested is false when no interval could be made; Reason says why (one
	// of the NotTested constants).
	Tested bool
	Reason string
	// Estimate is the ratio of the geometric means (system / baseline);
	// Lo..Hi its interval at level Confidence.
	Estimate, Lo, Hi float64
	// Confidence is the interval's level (1 − Alpha).
	Confidence float64
	// T is Welch's t statistic of the log values, DF its Welch–Satterthwaite
	// degrees of freedom, P the two-sided p value.
	T, DF, P float64
	// Alpha is the level P is compared with.
	Alpha float64
	// Claimed is true when the interval excludes 1: the rounds show a
	// difference (P < Alpha).
	Claimed bool
	// Detectable is the smallest change, as a fraction, that these rounds
	// could have shown: a ratio of exp(±t·se) — the interval's half-width
	// on the log scale — would just have reached P = Alpha. NaN when not
	// tested.
	Detectable float64
}

// Pct is the interval of the change in % (Lo − 1, Hi − 1, × 100).
func (r Ratio) Pct() (lo, hi float64) { return (r.Lo - 1) * 100, (r.Hi - 1) * 100 }

// WelchLog compares the rounds of a system with the baseline's (both
// positive quantities) at level alpha (0 = DefaultAlpha).
func WelchLog(rounds, base []float64, alpha float64) Ratio {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	r := untestedRatio(len(rounds), len(base), alpha)
	if len(rounds) < 2 || len(base) < 2 {
		r.Reason = NotTestedTooFew
		return r
	}
	m1, v1, ok1 := logMoments(rounds)
	m2, v2, ok2 := logMoments(base)
	if !ok1 || !ok2 {
		r.Reason = NotTestedNonPositive
		return r
	}
	d := m1 - m2
	r.Estimate = math.Exp(d)
	a, b := v1/float64(len(rounds)), v2/float64(len(base))
	se2 := a + b
	if se2 == 0 || se2 < 1e-24*d*d {
		// Every round of both sides alike (to rounding): a t statistic
		// would be infinite and tell nothing about repeatability.
		r.Reason = NotTestedNoSpread
		return r
	}
	se := math.Sqrt(se2)
	r.DF = se2 * se2 / (a*a/float64(len(rounds)-1) + b*b/float64(len(base)-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	q := t.Quantile(1 - alpha/2)
	r.Tested = true
	r.T = d / se
	r.P = math.Min(1, 2*t.Survival(math.Abs(r.T)))
	r.Lo, r.Hi = math.Exp(d-q*se), math.Exp(d+q*se)
	r.Claimed = r.Lo > 1 || r.Hi < 1
	r.Detectable = math.Expm1(q * se)
	return r
}

// untestedRatio is a Ratio of n rounds against baseN with no figures yet
// (every one NaN), at level alpha.
func untestedRatio(n, baseN int, alpha float64) Ratio {
	nan := math.NaN()
	return Ratio{N: n, BaseN: baseN, Estimate: nan, Lo: nan, Hi: nan, Confidence: 1 - alpha,
		T: nan, DF: nan, P: nan, Alpha: alpha, Detectable: nan}
}

// logMoments returns the mean and sample variance (divisor n−1) of the
// logarithms of values; ok is false when a value is not positive.
func logMoments(values []float64) (mean, variance float64, ok bool) {
	for _, v := range values {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, 0, false
		}
		mean += math.Log(v)
	}
	mean /= float64(len(values))
	for _, v := range values {
		d := math.Log(v) - mean
		variance += d * d
	}
	if len(values) > 1 {
		variance /= float64(len(values) - 1)
	}
	return mean, variance, true
}

// logInterval is the interval of the mean of values at level conf: mean
// ×/÷ exp(t · s / √n), s the standard deviation of the values' logarithms
// and t Student's quantile with n−1 degrees of freedom. It is a t interval
// on the log scale carried to the mean, so it is never below zero and
// always holds the mean; ok is false with fewer than two values or a value
// that is not positive.
func logInterval(values []float64, mean, conf float64) (lo, hi float64, ok bool) {
	if len(values) < 2 {
		return 0, 0, false
	}
	_, v, pos := logMoments(values)
	if !pos {
		return 0, 0, false
	}
	n := float64(len(values))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-conf)/2)
	f := math.Exp(q * math.Sqrt(v/n))
	return mean / f, mean * f, true
}

// MannWhitneyPowered reports whether the two-sided Mann-Whitney U test can
// reach p < alpha with n and m rounds at all: its smallest p value is
// 2 / C(n+m, n) (every round of one side above every round of the other).
// Three rounds a side give 0.1 at best, so it cannot tell at 0.05.
func MannWhitneyPowered(n, m int, alpha float64) bool {
	if n < 1 || m < 1 {
		return false
	}
	return MannWhitneyMinP(n, m) < alpha
}

// MannWhitneyMinP is the smallest two-sided p value the Mann-Whitney U test
// can give with n and m rounds: 2 / C(n+m, n).
func MannWhitneyMinP(n, m int) float64 {
	// C(n+m, n) by the product formula, in floating point.
	c := 1.0
	for i := 1; i <= n; i++ {
		c = c * float64(m+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// roundCounts names the rounds of a comparison that cannot be told for
// lack of them: "2 per side", "1 round of ARM, 3 of x86".
func roundCounts(sys, base string, n, baseN int) string {
	if n == baseN {
		return fmt.Sprintf("%d per side", n)
	}
	return fmt.Sprintf("%s of %s, %d of %s", rounds(n), sys, baseN, base)
}

// rounds is "1 round", "3 rounds".
func rounds(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}
