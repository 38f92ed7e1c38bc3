package randgen

import (
	"math"
	"testing"
)

// Statistical helpers for the shape tests. Every threshold is about five standard
// errors, so a correct generator fails with probability well under 1e-5 for any
// seed, while a wrong shape (wrong parameter, off-by-one range) fails by far.

const zLimit = 5.0

// mustFactory builds a factory or fails the test.
func mustFactory(t testing.TB, cfg Config) *Factory {
	t.Helper()
	f, err := NewFactory(cfg)
	if err != nil {
		t.Fatalf("NewFactory(%+v): %v", cfg, err)
	}
	return f
}

// seededConfig is DefaultConfig with a fixed seed and the given type.
func seededConfig(typ string) Config {
	c := DefaultConfig()
	c.Type = typ
	c.Seed = 20240601
	return c
}

// chiSquare returns Pearson's statistic of observed counts against expected
// counts, its degrees of freedom, and the Wilson–Hilferty normal score of the
// statistic (≈ N(0,1) under the null hypothesis).
func chiSquare(observed []int, expected []float64) (chi2 float64, df int, z float64) {
	for i, o := range observed {
		d := float64(o) - expected[i]
		chi2 += d * d / expected[i]
	}
	df = len(observed) - 1
	k := float64(df)
	z = (math.Cbrt(chi2/k) - (1 - 2/(9*k))) / math.Sqrt(2/(9*k))
	return chi2, df, z
}

// assertChiSquare fails unless the counts fit the expected ones.
func assertChiSquare(t *testing.T, what string, observed []int, expected []float64) {
	t.Helper()
	for i, e := range expected {
		if e < 5 {
			t.Fatalf("%s: expected count %.2f in cell %d is too small for a chi-square test", what, e, i)
		}
	}
	chi2, df, z := chiSquare(observed, expected)
	if z > zLimit {
		t.Errorf("%s: chi-square %.1f with %d df (z=%.2f) rejects the expected distribution", what, chi2, df, z)
	}
}

// assertNear fails unless |got−want| <= zLimit·se + slack.
func assertNear(t *testing.T, what string, got, want, se, slack float64) {
	t.Helper()
	if d := math.Abs(got - want); d > zLimit*se+slack {
		t.Errorf("%s = %.6g, want %.6g ± %.3g (%.1f standard errors off)", what, got, want, zLimit*se+slack, d/se)
	}
}

// proportionSE is the standard error of an observed proportion p over n draws.
func proportionSE(p float64, n int) float64 { return math.Sqrt(p * (1 - p) / float64(n)) }

// zipfPMF returns the exact normalised pmf of ranks 1..n for exponent theta.
func zipfPMF(n int, theta float64) []float64 {
	p := make([]float64, n)
	sum := 0.0
	for k := 1; k <= n; k++ {
		p[k-1] = math.Pow(float64(k), -theta)
		sum += p[k-1]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// TestChiSquareHelperRejects checks the helper itself: a clearly wrong
// expectation must be rejected and an exact one accepted.
func TestChiSquareHelperRejects(t *testing.T) {
	obs := []int{1000, 1000, 1000, 1000}
	if _, _, z := chiSquare(obs, []float64{1000, 1000, 1000, 1000}); z > zLimit {
		t.Errorf("exact fit rejected: z=%.2f", z)
	}
	if _, _, z := chiSquare(obs, []float64{1300, 900, 900, 900}); z <= zLimit {
		t.Errorf("wrong fit accepted: z=%.2f", z)
	}
}
