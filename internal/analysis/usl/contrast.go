package usl

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Contrast compares two systems' models in one sentence: their contention σ,
// their coherency κ and their peaks N*. A difference is stated only where
// the two estimates are apart beyond t·√(seA² + seB²) (Student's t on the
// smaller of the two fits' degrees of freedom, at a's confidence), N* on the
// log scale; otherwise the sentence says the rounds could not tell them
// apart. unit names N ("threads").
func Contrast(a, b *Model, labelA, labelB, unit string) string {
	df := float64(min(a.DF, b.DF))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-a.Confidence)/2)
	var parts []string
	coef := func(name string, pa, pb Param) string {
		apart := math.Abs(pa.Value-pb.Value) > t*math.Hypot(pa.SE, pb.SE)
		if !apart {
			return fmt.Sprintf("%s could not be told apart (%s %s, %s %s)", name, labelA, Coef(pa.Value), labelB, Coef(pb.Value))
		}
		lo, hi, loL, hiL := pa, pb, labelA, labelB
		if pa.Value > pb.Value {
			lo, hi, loL, hiL = pb, pa, labelB, labelA
		}
		s := fmt.Sprintf("%s is lower for %s (%s) than for %s (%s)", name, loL, Coef(lo.Value), hiL, Coef(hi.Value))
		if lo.Value > 0 {
			s += ": " + ratioWord(lo.Value/hi.Value)
		}
		return s
	}
	parts = append(parts, coef("contention σ", a.Sigma, b.Sigma), coef("coherency κ", a.Kappa, b.Kappa))
	switch {
	case a.Peak != nil && b.Peak != nil:
		la, lb := math.Log(a.Peak.Value), math.Log(b.Peak.Value)
		if math.Abs(la-lb) > t*math.Hypot(a.Peak.LogSE, b.Peak.LogSE) {
			parts = append(parts, fmt.Sprintf("the predicted peak is at %s %s for %s against %s for %s%s", Count(a.Peak.Value), unit, labelA, Count(b.Peak.Value), labelB, extrapolated(a, b)))
		} else {
			parts = append(parts, fmt.Sprintf("the peaks could not be told apart (%s %s, %s %s %s)", labelA, Count(a.Peak.Value), labelB, Count(b.Peak.Value), unit))
		}
	case a.Peak != nil || b.Peak != nil:
		with, without := labelA, labelB
		p := a.Peak
		if b.Peak != nil {
			with, without, p = labelB, labelA, b.Peak
		}
		parts = append(parts, fmt.Sprintf("only %s has a peak in the model (N* ≈ %s %s); for %s coherency cannot be told from zero", with, Count(p.Value), unit, without))
	}
	return strings.Join(parts, "; ")
}

// ratioWord names a ratio below 1: "half", "a third", "a quarter", or
// "0.62×".
func ratioWord(r float64) string {
	for _, w := range []struct {
		v    float64
		word string
	}{{0.5, "half"}, {1.0 / 3, "a third"}, {0.25, "a quarter"}} {
		if math.Abs(r-w.v) < 0.03 {
			return w.word
		}
	}
	return fmt.Sprintf("%.2f×", r)
}

// extrapolated notes when a peak being compared lies beyond its sweep.
func extrapolated(a, b *Model) string {
	if a.PeakBeyond || b.PeakBeyond {
		return " (a peak beyond its sweep is an extrapolation)"
	}
	return ""
}
