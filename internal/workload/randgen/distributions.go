package randgen

import "math"

// Gaussian returns an integer in [a,b] as sysbench 1.0's gaussian distribution:
// a + ⌊Σ(i=1..iter) U·(b−a+1) / iter⌋ with iter = --rand-spec-iter (12), the mean
// of iter uniforms. If b < a the bounds are swapped.
func (s *Source) Gaussian(a, b int64) int64 {
	a, span := bounds(a, b)
	t := width(span)
	sum := 0.0
	for range s.p.iter {
		sum += s.Float64() * t
	}
	return a + int64(clampOffset(sum*s.p.iterMult, span))
}

// Special returns an integer in [a,b] as sysbench's 'special' distribution: with
// t = b−a and one uniform r, a fraction 1−res/100 of draws (r·100/(100−res) < 1)
// are the mean of iter uniforms over [a, b); the others fall uniformly in a window
// of pct percent of the range centred on the middle:
// a + ⌊r·(t·pct/100+1) + t/2 − t·pct/200⌋. With the defaults (iter 12, pct 1,
// res 75) about 75% of draws hit the middle 1% of the range. If b < a the bounds
// are swapped.
func (s *Source) Special(a, b int64) int64 {
	a, span := bounds(a, b)
	t := float64(span)
	rnd := s.Float64()
	if rnd*(t*s.p.resMult) < t { // res = rnd·range_size, range_size = t·100/(100−res)
		sum := 0.0
		for range s.p.iter {
			sum += s.Float64()
		}
		return a + int64(clampOffset(sum*t*s.p.iterMult, span))
	}
	d := t * s.p.pctMult
	res := rnd*(d+1) + t/2 - t*s.p.pct2Mult
	return a + int64(clampOffset(res, span))
}

// Pareto returns an integer in [a,b] as sysbench's Pareto distribution:
// a + ⌊(b−a+1)·U^(ln h / ln(1−h))⌋ with h = --rand-pareto-h, so with h = 0.2 about
// 80% of draws fall in the first 20% of the range. If b < a the bounds are swapped.
func (s *Source) Pareto(a, b int64) int64 {
	a, span := bounds(a, b)
	return a + int64(clampOffset(width(span)*math.Pow(s.Float64(), s.p.paretoPower), span))
}

// Zipfian returns an integer in [a,b] whose offset k = 1..n (n = b−a+1) has
// probability ∝ k^−θ, θ = --rand-zipfian-exp, by rejection-inversion sampling
// (Hörmann–Derflinger, as sysbench master): a is the hottest value, a+1 the next
// (not scrambled). The per-range constant is cached for the last range, so
// repeated draws from one range cost no setup. If b < a the bounds are swapped.
func (s *Source) Zipfian(a, b int64) int64 {
	a, span := bounds(a, b)
	e := s.p.zipfExp
	n := width(span)
	if !s.zipfSet || s.zipfN != span {
		s.zipfN, s.zipfHN, s.zipfSet = span, zipfHIntegral(n+0.5, e), true
	}
	hN, hX1 := s.zipfHN, s.p.zipfHX1
	for {
		// u is uniform in (hX1, hN]
		u := hN + s.Float64()*(hX1-hN)
		x := zipfHIntegralInverse(u, e)
		k := math.Floor(x + 0.5)
		// Keep k in [1, n] when rounding pushed it out.
		if !(k >= 1) {
			k = 1
		} else if k > n {
			k = n
		}
		// P(k accepted) ∝ h(k) = k^−θ; the first test is a cheap sufficient one.
		if k-x <= s.p.zipfS || u >= zipfHIntegral(k+0.5, e)-zipfH(k, e) {
			return a + int64(clampOffset(k-1, span))
		}
	}
}

// NURand returns TPC-C's non-uniform random integer in [x,y] (clause 2.1.6):
// (((Uniform(0,A) | Uniform(x,y)) + C) mod (y−x+1)) + x, where A is 255, 1023 or
// 8191 and C is the run's constant for that A, drawn once in [0,A]. It expects
// 0 <= x <= y.
func (s *Source) NURand(A, C, x, y int64) int64 {
	return ((s.Uniform(0, A)|s.Uniform(x, y))+C)%(y-x+1) + x
}
