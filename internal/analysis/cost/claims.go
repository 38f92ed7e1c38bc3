package cost

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// Claims tells each priced system's price-performance against the
// baseline's in one sentence, by the comparison's rule (analysis
// HeadlineRule): a system "costs N % less per tps" only when, at every
// thread count its throughput averages, the 95 % interval of its
// price-performance ratio excludes no change in that direction. Prices are
// the sheet's, known exactly, so that interval is the price ratio divided
// by the interval of the throughput ratio (analysis.Ratio). Otherwise the
// sentence gives the price-performance difference and says what the rounds
// could not tell, as the comparison's headline does. unit is the
// throughput's ("tps").
func (p *Pricing) Claims(labels []string, unit string) []string {
	ev := p.Eval
	base := slices.IndexFunc(ev.Rows, func(r Row) bool { return r.Diff == nil })
	if base < 0 || ev.Rows[base].PricePerformance == 0 {
		return nil
	}
	basis := "a " + string(ev.PricePerf)
	if ev.PricePerf == BasisPeriod {
		basis = ev.Period
	}
	var out []string
	for i, r := range ev.Rows {
		if r.Diff == nil || r.PricePerformance == 0 {
			continue
		}
		d := r.Diff.PricePerformance
		figures := fmt.Sprintf("price-performance %s per %s: %.4g against %.4g; throughput the %s over %s threads",
			ev.Currency, unit, r.PricePerformance, ev.Rows[base].PricePerformance, orMean(ev.Center), JoinInts(r.Threads))
		priceRatio := r.Cost.On(ev.PricePerf) / ev.Rows[base].Cost.On(ev.PricePerf)
		sys, bl := labels[i], labels[base]
		shown, why := p.ppIntervals(i, r.Threads, priceRatio, d)
		word := map[bool]string{true: "more", false: "less"}[d > 0]
		if shown != "" {
			out = append(out, fmt.Sprintf("Cost: %s costs %.0f %% %s per %s than %s over %s (95 %% confidence: %s at each thread count; %s).",
				sys, math.Abs(d), word, unit, bl, basis, shown, figures))
			continue
		}
		out = append(out, fmt.Sprintf("Cost: %s's price-performance is %.0f %% %s than %s's over %s (%s); %s.",
			sys, math.Abs(d), map[bool]string{true: "higher", false: "lower"}[d > 0], bl, basis, figures, why))
	}
	return out
}

// orMean is the center's name, "mean" when unset.
func orMean(center string) string {
	if center == "" {
		return "mean"
	}
	return center
}

// ppIntervals checks system i's price-performance ratio at every thread
// count of threads: shown is "at least 31 % less" when every interval
// excludes no change in the direction of d (the observed difference in %);
// otherwise why says what the rounds could not tell.
func (p *Pricing) ppIntervals(i int, threads []int, priceRatio, d float64) (shown, why string) {
	bound := math.Inf(1)
	var couldNot, tooFew, untested []string
	var lo, hi, detect float64 = math.Inf(1), math.Inf(-1), 0
	for _, t := range threads {
		k := slices.IndexFunc(p.Rows, func(r analysis.Row) bool { return r.Key.Threads == t })
		if k < 0 || i >= len(p.Rows[k].Cells) {
			untested = append(untested, fmt.Sprint(t))
			continue
		}
		rt := p.Rows[k].Cells[i].Ratio
		switch {
		case !rt.Tested && rt.Reason == analysis.NotTestedTooFew:
			tooFew = append(tooFew, fmt.Sprintf("%d (%d and %d rounds)", t, rt.N, rt.BaseN))
			continue
		case !rt.Tested:
			untested = append(untested, fmt.Sprintf("%d (%s)", t, rt.Reason))
			continue
		}
		// The price-performance ratio is priceRatio ÷ the throughput ratio.
		ppLo, ppHi := (priceRatio/rt.Hi-1)*100, (priceRatio/rt.Lo-1)*100
		lo, hi, detect = math.Min(lo, ppLo), math.Max(hi, ppHi), math.Max(detect, rt.Detectable*100)
		switch {
		case d < 0 && ppHi < 0:
			bound = math.Min(bound, -ppHi)
		case d > 0 && ppLo > 0:
			bound = math.Min(bound, ppLo)
		default:
			couldNot = append(couldNot, fmt.Sprint(t))
		}
	}
	if len(couldNot) == 0 && len(tooFew) == 0 && len(untested) == 0 && !math.IsInf(bound, 1) {
		return fmt.Sprintf("at least %.1f %% %s", bound, map[bool]string{true: "more", false: "less"}[d > 0]), ""
	}
	var parts []string
	if len(couldNot) > 0 {
		parts = append(parts, fmt.Sprintf("the rounds could not tell whether it costs less or more at %s threads (95 %% intervals of the price-performance %s: they could show only a difference beyond about ±%.1f %% of throughput)",
			strings.Join(couldNot, ", "), analysis.IntervalPct(lo, hi), detect))
	}
	if len(tooFew) > 0 {
		parts = append(parts, "too few rounds to tell at "+strings.Join(tooFew, ", ")+" threads")
	}
	if len(untested) > 0 {
		parts = append(parts, "not tested at "+strings.Join(untested, ", ")+" threads")
	}
	return "", strings.Join(parts, "; ")
}
