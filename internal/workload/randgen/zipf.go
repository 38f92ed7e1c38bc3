package randgen

import "math"

// The helpers of the rejection-inversion Zipf sampler (Hörmann & Derflinger 1996,
// in the form of Apache Commons RNG that sysbench uses), for an exponent e >= 0.

// zipfHIntegral is H(x) = (x^(1−e) − 1)/(1−e), and ln x when e = 1; its derivative
// is zipfH.
func zipfHIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return expm1OverX((1-e)*logX) * logX
}

// zipfH is h(x) = x^−e, the unnormalised probability of rank x.
func zipfH(x, e float64) float64 {
	return math.Exp(-e * math.Log(x))
}

// zipfHIntegralInverse is H⁻¹(x).
func zipfHIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // only reachable through rounding; keeps log1p defined
	}
	return math.Exp(log1pOverX(t) * x)
}

// log1pOverX is ln(1+x)/x, by its Taylor series near 0 (limit 1).
func log1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1OverX is (eˣ−1)/x, by its Taylor series near 0 (limit 1).
func expm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
