package randgen

import (
	"fmt"
	"math"
	"testing"
)

func TestUniformIsFlat(t *testing.T) {
	ranges := []struct{ a, b int64 }{{1, 100}, {-50, 49}, {0, 6}, {1000, 1099}}
	const draws = 200000
	s := mustFactory(t, seededConfig(TypeUniform)).Source(1)
	for _, r := range ranges {
		n := int(r.b - r.a + 1)
		counts := make([]int, n)
		for range draws {
			counts[s.Uniform(r.a, r.b)-r.a]++
		}
		expected := make([]float64, n)
		for i := range expected {
			expected[i] = float64(draws) / float64(n)
		}
		assertChiSquare(t, fmt.Sprintf("Uniform(%d,%d)", r.a, r.b), counts, expected)
	}
}

func TestGaussianIsTheMeanOfIterUniforms(t *testing.T) {
	const (
		a, b  = 1, 1000
		draws = 100000
	)
	for _, iter := range []int{12, 4, 1} {
		t.Run(fmt.Sprintf("iter=%d", iter), func(t *testing.T) {
			cfg := seededConfig(TypeGaussian)
			cfg.SpecialIter = iter
			s := mustFactory(t, cfg).Source(2)
			var sum, sumSq float64
			for range draws {
				x := float64(s.Default(a, b))
				sum += x
				sumSq += x * x
			}
			mean := sum / draws
			variance := (sumSq - sum*mean) / (draws - 1)

			// X = a + ⌊W·M⌋, W = b−a+1 and M the mean of iter uniforms: the mean is
			// the midpoint (flooring takes ½ off W/2), the variance that of the
			// mean of iter uniforms scaled by W², plus 1/12 for the flooring.
			w := float64(b - a + 1)
			wantVar := w*w/(12*float64(iter)) + 1.0/12
			// Var(sample variance) ≈ σ⁴(2 − 1.2/iter)/N: kurtosis of the mean of iter uniforms.
			varSE := wantVar * math.Sqrt((2-1.2/float64(iter))/draws)
			assertNear(t, "mean", mean, (a+b)/2.0, math.Sqrt(wantVar/draws), 0)
			assertNear(t, "variance", variance, wantVar, varSE, 0)
		})
	}
}

func TestSpecialPutsResPercentInTheMiddlePctWindow(t *testing.T) {
	const (
		a, b  = 1, 1000000
		draws = 100000
	)
	tests := []struct{ iter, pct, res int }{
		{12, 1, 75}, // sysbench 1.0's defaults
		{12, 10, 50},
		{12, 1, 0},   // only the gaussian part
		{12, 5, 100}, // only the special window
		{6, 2, 90},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("iter=%d,pct=%d,res=%d", tc.iter, tc.pct, tc.res), func(t *testing.T) {
			cfg := seededConfig(TypeSpecial)
			cfg.SpecialIter, cfg.SpecialPct, cfg.SpecialRes = tc.iter, tc.pct, tc.res
			s := mustFactory(t, cfg).Source(3)

			span := float64(b - a)
			half := span * float64(tc.pct) / 200
			lo, hi := math.Floor(span/2-half), math.Ceil(span/2+half) // offsets of the window
			in, below, above := 0, 0, 0
			for range draws {
				off := float64(s.Default(a, b) - a)
				switch {
				case off < lo:
					below++
				case off > hi:
					above++
				default:
					in++
				}
			}
			// The special share always lands in the window; the gaussian share
			// (the mean of iter uniforms, sd span/√(12·iter)) lands there with
			// probability P(|Z| < half/sd) by the normal approximation.
			res := float64(tc.res) / 100
			sd := span / math.Sqrt(12*float64(tc.iter))
			pGauss := math.Erf(half / sd / math.Sqrt2)
			want := res + (1-res)*pGauss
			frac := float64(in) / draws
			// Slack 0.003 covers the normal approximation of the gaussian share.
			assertNear(t, "fraction in the middle window", frac, want, proportionSE(want, draws), 0.003)
			// What misses the window is the symmetric gaussian part.
			if out := below + above; out > 1000 {
				assertNear(t, "share below the window", float64(below)/float64(out), 0.5, proportionSE(0.5, out), 0)
			}
		})
	}
}

func TestParetoMatchesItsCDF(t *testing.T) {
	const (
		a, b  = 1, 1000
		draws = 100000
	)
	for _, h := range []float64{0.2, 0.1, 0.35, 0.5} {
		t.Run(fmt.Sprintf("h=%v", h), func(t *testing.T) {
			cfg := seededConfig(TypePareto)
			cfg.ParetoH = h
			s := mustFactory(t, cfg).Source(4)
			n := b - a + 1
			counts := make([]int, n)
			for range draws {
				counts[s.Default(a, b)-a]++
			}
			// Offset k = ⌊n·U^p⌋ with p = ln h/ln(1−h), so P(offset < k) = (k/n)^(1/p).
			invPower := math.Log(1-h) / math.Log(h)
			cdf := func(k int) float64 { return math.Pow(float64(k)/float64(n), invPower) }

			// The 80/20 rule: with h = 0.2, 80% of draws fall in the first 20% of
			// the range (other h give their own share, (1/5)^(1/p)).
			first20 := 0
			for k := range n / 5 {
				first20 += counts[k]
			}
			want := cdf(n / 5)
			if h == 0.2 && math.Abs(want-0.8) > 1e-9 {
				t.Fatalf("analytic share of the first 20%% is %v, want 0.8", want)
			}
			assertNear(t, "share of the first 20% of the range", float64(first20)/draws, want, proportionSE(want, draws), 0)

			// Kolmogorov–Smirnov distance between the empirical and analytic CDFs.
			// 2.3/√N is the continuous critical value at p ≈ 5e-5; for a discrete
			// distribution it is conservative.
			cum, d := 0, 0.0
			for k := range n {
				cum += counts[k]
				d = max(d, math.Abs(float64(cum)/draws-cdf(k+1)))
			}
			if limit := 2.3 / math.Sqrt(draws); d > limit {
				t.Errorf("KS distance %.5f exceeds %.5f", d, limit)
			}
		})
	}
}

func TestZipfianFrequencyFollowsPowerLaw(t *testing.T) {
	const (
		n     = 50
		draws = 200000
	)
	for _, theta := range []float64{0, 0.5, 0.8, 0.99, 1.0, 1.2, 2.0} {
		t.Run(fmt.Sprintf("theta=%v", theta), func(t *testing.T) {
			cfg := seededConfig(TypeZipfian)
			cfg.ZipfianExp = theta
			s := mustFactory(t, cfg).Source(5)
			counts := make([]int, n)
			for range draws {
				counts[s.Default(101, 100+n)-101]++ // not scrambled: 101 is rank 1
			}
			pmf := zipfPMF(n, theta)
			if theta <= 1.2 {
				expected := make([]float64, n)
				for i, p := range pmf {
					expected[i] = p * draws
				}
				assertChiSquare(t, "rank counts", counts, expected)
			} else {
				// Tail cells are too thin for chi-square: test the head.
				for k := 1; k <= 3; k++ {
					assertNear(t, fmt.Sprintf("P(rank %d)", k), float64(counts[k-1])/draws, pmf[k-1], proportionSE(pmf[k-1], draws), 0)
				}
			}
			// f(1)/f(k) ≈ k^θ; by the delta method ln(c1/ck) has standard error
			// √(1/c1 + 1/ck).
			for _, k := range []int{2, 5, 10} {
				c1, ck := float64(counts[0]), float64(counts[k-1])
				if ck == 0 {
					t.Fatalf("rank %d never drawn", k)
				}
				assertNear(t, fmt.Sprintf("ln(f(1)/f(%d))", k), math.Log(c1/ck), theta*math.Log(float64(k)), math.Sqrt(1/c1+1/ck), 0)
			}
		})
	}
}

func TestZipfianLargeRange(t *testing.T) {
	const (
		n     = 1000000
		draws = 100000
	)
	for _, theta := range []float64{0.8, 1.0} {
		cfg := seededConfig(TypeZipfian)
		cfg.ZipfianExp = theta
		s := mustFactory(t, cfg).Source(6)
		head := make([]int, 10)
		for range draws {
			if v := s.Zipfian(1, n); v <= 10 {
				head[v-1]++
			}
		}
		pmf := zipfPMF(n, theta)
		top10 := 0.0
		for k := 1; k <= 10; k++ {
			top10 += pmf[k-1]
		}
		got := 0
		for _, c := range head {
			got += c
		}
		assertNear(t, fmt.Sprintf("θ=%v P(rank 1)", theta), float64(head[0])/draws, pmf[0], proportionSE(pmf[0], draws), 0)
		assertNear(t, fmt.Sprintf("θ=%v P(rank ≤ 10)", theta), float64(got)/draws, top10, proportionSE(top10, draws), 0)
	}
}

// TestZipfianRangeCacheFollowsTheRange alternates two ranges on one Source: a
// stale per-range constant would skew the small range's counts.
func TestZipfianRangeCacheFollowsTheRange(t *testing.T) {
	const draws = 100000
	s := mustFactory(t, seededConfig(TypeZipfian)).Source(7)
	small := make([]int, 10)
	bigFirst := 0
	for range draws {
		small[s.Default(1, 10)-1]++
		if s.Default(1, 1000) == 1 {
			bigFirst++
		}
	}
	pmf := zipfPMF(10, 0.8)
	expected := make([]float64, 10)
	for i, p := range pmf {
		expected[i] = p * draws
	}
	assertChiSquare(t, "Zipfian(1,10) interleaved with Zipfian(1,1000)", small, expected)
	p1 := zipfPMF(1000, 0.8)[0]
	assertNear(t, "P(rank 1) of Zipfian(1,1000)", float64(bigFirst)/draws, p1, proportionSE(p1, draws), 0)
}
