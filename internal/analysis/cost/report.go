package cost

import (
	"fmt"
	"strconv"
)

// SheetInfo is what a report says about the price sheet it used.
type SheetInfo struct {
	File           string  `json:"file"`
	Source         string  `json:"source"`
	URL            string  `json:"url,omitempty"`
	Date           string  `json:"date,omitempty"`
	Currency       string  `json:"currency"`
	Notes          string  `json:"notes,omitempty"`
	HoursPerMonth  float64 `json:"hours_per_month"`
	Period         string  `json:"period"`
	PeriodMonths   int     `json:"period_months"`
	RoundMonthlyTo float64 `json:"round_monthly_to,omitempty"`
}

// Info describes the sheet for a report.
func (s *Sheet) Info() SheetInfo {
	return SheetInfo{File: s.File, Source: s.Source, URL: s.URL, Date: s.Date, Currency: s.Currency, Notes: s.Notes,
		HoursPerMonth: s.HoursPerMonth, Period: s.Period.String(), PeriodMonths: s.Period.Months, RoundMonthlyTo: s.RoundMonthlyTo}
}

// Report gathers the cost tables that the renderers write: the systems'
// costs, evaluations (one per workload, plain or equal compute) and
// equal-cost scenarios. Any part may be empty.
type Report struct {
	Sheet       SheetInfo     `json:"sheet"`
	Costs       []*SystemCost `json:"costs,omitempty"`
	Evaluations []*Evaluation `json:"evaluations,omitempty"`
	EqualCosts  []*EqualCost  `json:"equal_costs,omitempty"`
	// Warnings say where what was priced may not be what ran (a recorded
	// vCPU count that differs from the sheet's); every writer shows them.
	Warnings []string `json:"warnings,omitempty"`
	// Claims are what the price-performance comparison concludes, in the
	// comparison headline's words (Pricing.Claims); every writer shows them.
	Claims []string `json:"claims,omitempty"`
}

// NewReport starts a report on the sheet with the costs of the named
// systems, or of all its systems when none is named. Callers append
// evaluations and equal-cost scenarios.
func NewReport(s *Sheet, systems ...string) (*Report, error) {
	if len(systems) == 0 {
		systems = s.SystemNames()
	}
	r := &Report{Sheet: s.Info()}
	for _, name := range systems {
		c, err := s.Cost(name)
		if err != nil {
			return nil, err
		}
		r.Costs = append(r.Costs, c)
	}
	return r, nil
}

// basisLabel names a basis in headings: the period as "5y".
func basisLabel(b Basis, period string) string {
	if b == BasisPeriod {
		return period
	}
	return string(b)
}

// money writes an amount with thousands separators and two decimals.
func money(x float64) string { return group(strconv.FormatFloat(x, 'f', 2, 64)) }

// hourly writes an hourly amount with four decimals (unit prices such as
// 0.4032/hour need them).
func hourly(x float64) string { return group(strconv.FormatFloat(x, 'f', 4, 64)) }

// figure writes a throughput with thousands separators and two decimals.
func figure(x float64) string { return group(strconv.FormatFloat(x, 'f', 2, 64)) }

// ratio writes a per-dollar or price-performance figure: two decimals from
// 1 up, three significant digits below 1 (0.0811).
func ratio(x float64) string {
	if x == 0 || x >= 1 || x <= -1 {
		return group(strconv.FormatFloat(x, 'f', 2, 64))
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// percent writes a signed percentage with two decimals: "+42.01%".
func percent(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	if x >= 0 || s == "-0.00" {
		s = "+" + trimSign(s)
	}
	return s + "%"
}

func trimSign(s string) string {
	if len(s) > 0 && s[0] == '-' {
		return s[1:]
	}
	return s
}

// trimFloat writes x with as few digits as it needs.
func trimFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// raw writes x for machines: plain digits, at most 12 significant, so that
// binary noise (883.0079999999999) does not show.
func raw(x float64) string {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// group puts thousands separators into a formatted number.
func group(s string) string {
	sign := ""
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		sign, s = s[:1], s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i:]
			break
		}
	}
	var b []byte
	for i := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, intPart[i])
	}
	return sign + string(b) + frac
}

// describe writes what a figure's throughput is: "tpmC, mean of 300, 500, 800 threads".
func describe(metric string, threads []int) string {
	if len(threads) == 0 {
		return metric
	}
	if len(threads) == 1 {
		return fmt.Sprintf("%s at %d threads", metric, threads[0])
	}
	return fmt.Sprintf("%s, mean of %s threads", metric, JoinInts(threads))
}
