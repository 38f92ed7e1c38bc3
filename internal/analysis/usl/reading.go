package usl

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fairbench/fairbench/internal/workload"
)

// Reading says in plain language what limits the model, with the intervals
// it rests on; unit names N ("threads", "CPUs") and x the throughput's unit
// ("tps"):
//
//   - coherency-limited (κ told): where it peaks and that it falls past the
//     peak, marked an extrapolation when the peak lies beyond the sweep;
//   - contention-limited (σ told, κ not): the ceiling λ/σ it approaches and
//     from where it is within 5 % of it;
//   - neither told: close to linear over the range measured when the model
//     stays within 10 % of λN there (LinearShare), else how far below linear
//     it ends and that the rounds cannot tell which term holds it back; with
//     the most σ and κ the rounds allow.
func (m *Model) Reading(unit, x string) string {
	s := m.reading(unit, x)
	if m.Rough != "" {
		s += " — a rough summary: " + m.Rough
	}
	return s
}

func (m *Model) reading(unit, x string) string {
	pct := fmt.Sprintf("%.0f %%", m.Confidence*100)
	switch {
	case m.Peak != nil:
		s := fmt.Sprintf("coherency-limited (κ = %s, %s interval %s–%s): throughput peaks at N* ≈ %s %s (%s–%s) at %s %s (%s–%s) and falls past it",
			Coef(m.Kappa.Value), pct, Coef(m.Kappa.Lo), Coef(m.Kappa.Hi), Count(m.Peak.Value), unit, Count(m.Peak.Lo), Count(m.Peak.Hi),
			Figure(m.PeakX.Value), x, Figure(m.PeakX.Lo), Figure(m.PeakX.Hi))
		if m.PeakBeyond {
			s += fmt.Sprintf(" — beyond the largest count measured (%s): an extrapolation", Count(m.MaxN))
		}
		return s
	case m.Ceiling != nil:
		s := fmt.Sprintf("contention-limited (σ = %s, %s interval %s–%s): throughput approaches λ/σ ≈ %s %s (%s–%s) and comes within 5 %% of it at about %s %s",
			Coef(m.Sigma.Value), pct, Coef(m.Sigma.Lo), Coef(m.Sigma.Hi), Figure(m.Ceiling.Value), x, Figure(m.Ceiling.Lo), Figure(m.Ceiling.Hi),
			Count(m.Near), unit)
		if m.Near > m.MaxN {
			s += fmt.Sprintf(" (beyond the largest count measured, %s: an extrapolation)", Count(m.MaxN))
		}
		return s
	default:
		if eff := m.X(m.MaxN) / m.Linear(m.MaxN); eff < LinearShare {
			return fmt.Sprintf("grows to %.0f %% of linear at %s %s, but the rounds cannot tell whether contention (σ ≤ %s) or coherency (κ ≤ %s) holds it back: either could be zero on its own",
				eff*100, Count(m.MaxN), unit, Coef(m.Sigma.Hi), Coef(m.Kappa.Hi))
		}
		return fmt.Sprintf("close to linear over %s–%s %s: neither contention (σ ≤ %s) nor coherency (κ ≤ %s) can be told from zero",
			Count(m.MinN), Count(m.MaxN), unit, Coef(m.Sigma.Hi), Coef(m.Kappa.Hi))
	}
}

// LinearShare is the share of λN at the largest count above which a model
// with neither term told reads as close to linear.
const LinearShare = 0.9

// Coef prints a coefficient (σ, κ) with two significant digits: 0.081,
// 0.0020, 3.4e-06 below 0.0001, 0.
func Coef(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	if math.Abs(v) < 1e-4 {
		return strconv.FormatFloat(v, 'e', 1, 64)
	}
	d := max(2-int(math.Floor(math.Log10(math.Abs(v))))-1, 0)
	return strconv.FormatFloat(v, 'f', d, 64)
}

// Count prints a count of units: whole from 10 on and when whole, else
// with one decimal; "∞" for +Inf.
func Count(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case math.IsNaN(v):
		return "-"
	case v >= 10 || v == math.Trunc(v):
		return workload.GroupDigits(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Figure prints a throughput with three significant digits and thousands
// separated: 12,300; 845; 8.45.
func Figure(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	if math.Abs(v) >= 100 {
		p := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-2)
		return workload.GroupDigits(int64(math.Round(v/p) * p))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
