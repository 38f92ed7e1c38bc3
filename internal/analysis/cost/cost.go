package cost

import (
	"fmt"
	"math"
	"strings"
)

// Basis is the span a cost is counted over.
type Basis string

// The cost bases. BasisPeriod is the sheet's period (e.g. 5y).
const (
	BasisHour   Basis = "hour"
	BasisMonth  Basis = "month"
	BasisYear   Basis = "year"
	BasisPeriod Basis = "period"
)

// ParseBasis reads "hour", "month", "year" or "period" (also "hourly",
// "monthly", "yearly").
func ParseBasis(s string) (Basis, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "hour", "hourly", "h":
		return BasisHour, nil
	case "month", "monthly", "mo":
		return BasisMonth, nil
	case "year", "yearly", "y":
		return BasisYear, nil
	case "period":
		return BasisPeriod, nil
	}
	return "", fmt.Errorf("cost basis %q: write hour, month, year or period (the price sheet's period)", s)
}

// Line is one item of a system's cost: Count of one instance, volume or fee.
type Line struct {
	Role      string  `json:"role"`
	Kind      Kind    `json:"kind"`
	Name      string  `json:"name"`
	Count     int     `json:"count"`
	UnitPrice Price   `json:"unit_price"` // of one instance, volume or fee
	Hourly    float64 `json:"hourly"`
	Monthly   float64 `json:"monthly"` // rounded to the sheet's round_monthly_to
	Yearly    float64 `json:"yearly"`
	Period    float64 `json:"period"`
}

// SystemCost is what a system costs, itemised by role.
type SystemCost struct {
	System      string `json:"system"`
	Description string `json:"description,omitempty"`
	Arch        string `json:"arch"` // ArchARM64, ArchX8664 or ArchMixed
	// VCPU adds up the vCPUs of every instance in the system; 0 when an
	// instance's vcpu is not in the sheet.
	VCPU int `json:"vcpu"`
	// ComputePower is the sum of vCPU × base GHz (seed 001's "compute
	// power"); 0 when an instance's ghz is not in the sheet.
	ComputePower float64 `json:"compute_power,omitempty"`
	Currency     string  `json:"currency"`
	Period       string  `json:"period"` // e.g. "5y"
	PeriodMonths int     `json:"period_months"`
	Lines        []Line  `json:"lines"`

	// Monthly subtotals by kind of item.
	ComputeMonthly float64 `json:"compute_monthly"`
	StorageMonthly float64 `json:"storage_monthly"`
	FeesMonthly    float64 `json:"fees_monthly"`

	Hourly     float64 `json:"hourly"`
	Monthly    float64 `json:"monthly"`
	Yearly     float64 `json:"yearly"`
	PeriodCost float64 `json:"period_cost"`
}

// On returns the system's cost on basis b.
func (c *SystemCost) On(b Basis) float64 {
	switch b {
	case BasisHour:
		return c.Hourly
	case BasisMonth:
		return c.Monthly
	case BasisYear:
		return c.Yearly
	default:
		return c.PeriodCost
	}
}

// Cost prices the named system: each line's hourly, monthly, yearly and
// period cost, subtotals by kind and totals. With round_monthly_to set, each
// line's monthly cost is rounded and the yearly and period costs are the
// rounded monthly cost × 12 and × the period's months; otherwise every basis
// is computed from the unit price directly.
func (s *Sheet) Cost(system string) (*SystemCost, error) {
	sys, err := s.System(system)
	if err != nil {
		return nil, err
	}
	c := &SystemCost{System: sys.Name, Description: sys.Description, Currency: s.Currency,
		Period: s.Period.String(), PeriodMonths: s.Period.Months}
	power, powerKnown, vcpuKnown := 0.0, true, true
	for _, it := range sys.Items {
		ln := Line{Role: it.Role, Kind: it.Kind, Name: it.Name, Count: it.Count}
		size := 1.0
		switch it.Kind {
		case KindInstance:
			in, _ := s.Instance(it.Name)
			ln.UnitPrice = in.Price
			c.VCPU += in.VCPU * it.Count
			vcpuKnown = vcpuKnown && in.VCPU > 0
			if in.GHz > 0 && in.VCPU > 0 {
				power += float64(float64(in.VCPU*it.Count) * in.GHz) // no fused multiply-add: same sums on every architecture
			} else {
				powerKnown = false
			}
			switch {
			case c.Arch == "":
				c.Arch = in.Arch
			case c.Arch != in.Arch:
				c.Arch = ArchMixed
			}
		case KindVolume:
			vol, _ := s.Volume(it.Name)
			ln.UnitPrice = vol.Price
			size = vol.SizeGiB
		case KindFee:
			f, _ := s.Fee(it.Name)
			ln.UnitPrice = f.Price
		}
		s.price(&ln, size)
		c.Lines = append(c.Lines, ln)
		switch it.Kind {
		case KindInstance:
			c.ComputeMonthly += ln.Monthly
		case KindVolume:
			c.StorageMonthly += ln.Monthly
		case KindFee:
			c.FeesMonthly += ln.Monthly
		}
		c.Hourly += ln.Hourly
		c.Monthly += ln.Monthly
		c.Yearly += ln.Yearly
		c.PeriodCost += ln.Period
	}
	if !vcpuKnown {
		c.VCPU = 0
	}
	if powerKnown && c.VCPU > 0 {
		c.ComputePower = power
	}
	return c, nil
}

// price fills a line's costs from its unit price; size multiplies a
// GiB-month price.
func (s *Sheet) price(ln *Line, size float64) {
	h := s.HoursPerMonth
	months := float64(s.Period.Months)
	amount := ln.UnitPrice.Amount * float64(ln.Count)
	switch ln.UnitPrice.Per {
	case PerHour:
		ln.Hourly = amount
		ln.Monthly = amount * h
		ln.Yearly = amount * h * 12
		ln.Period = amount * h * months
	case PerYear:
		ln.Monthly = amount / 12
		ln.Hourly = amount / (12 * h)
		ln.Yearly = amount
		ln.Period = amount * months / 12
	default: // PerMonth, PerGiBMonth
		if ln.UnitPrice.Per == PerGiBMonth {
			amount *= size
		}
		ln.Monthly = amount
		ln.Hourly = amount / h
		ln.Yearly = amount * 12
		ln.Period = amount * months
	}
	if s.RoundMonthlyTo > 0 {
		ln.Monthly = roundTo(ln.Monthly, s.RoundMonthlyTo)
		ln.Yearly = ln.Monthly * 12
		ln.Period = ln.Monthly * months
	}
}

// roundTo rounds x to a multiple of unit, halves away from zero; a value a
// hair below a half because of binary floating point counts as a half.
func roundTo(x, unit float64) float64 {
	q := x / unit
	q = math.Round(q + math.Copysign(1e-9*math.Max(1, math.Abs(q)), q))
	if inv := 1 / unit; math.Abs(inv-math.Round(inv)) < 1e-9 {
		return q / math.Round(inv) // 88301/100 is nearer 883.01 than 88301*0.01
	}
	return q * unit
}

// PercentDiff is (value − base) ÷ base × 100: how much value is above (+) or
// below (−) base, in percent, as the seeds' "(ARM-x86)/x86" rows.
func PercentDiff(base, value float64) float64 {
	return (value - base) / base * 100
}
