package cost

import (
	"fmt"
	"math"
	"strings"
)

// EqualCostOptions shape the equal-cost scenario.
type EqualCostOptions struct {
	Budget float64 // what may be spent on each system
	// Per is the budget's basis (a budget per month, per year…); default
	// BasisYear. Per-dollar figures use the same basis.
	Per Basis
	// AllowOver is the fraction by which the budget may be exceeded to fit
	// a whole system, e.g. 0.03: seed 001 compares a 3,432 and a 3,578 USD
	// instance "for 3,500 USD (yearly)". 0 means never exceed the budget.
	AllowOver float64
	Workload  string // label, as in Options
	Mixed     string // what different things the throughputs measured, as in Options
	Outages   string // which throughputs include an outage, as in Options
	Metric    string // default "tps"
	Center    string // the statistic of rounds the throughputs are, as in Options
	Baseline  string // default the first input
}

// EqualCost is the equal-cost scenario: for one budget, how many whole copies
// of each system fit, their vCPUs and compute power, and — given throughput —
// the throughput they deliver and the throughput per dollar (seed 001).
// TotalThroughput assumes that copies of a system add up their throughput,
// which is an upper bound for a database that must be sharded to use them.
type EqualCost struct {
	Workload      string         `json:"workload,omitempty"`
	Mixed         string         `json:"mixed,omitempty"`   // as in Evaluation
	Outages       string         `json:"outages,omitempty"` // as in Evaluation
	Metric        string         `json:"metric"`
	Center        string         `json:"center,omitempty"` // as in Evaluation
	Baseline      string         `json:"baseline"`
	Budget        float64        `json:"budget"`
	Per           Basis          `json:"per"`
	AllowOver     float64        `json:"allow_over,omitempty"`
	Period        string         `json:"period"`
	Currency      string         `json:"currency"`
	HasThroughput bool           `json:"has_throughput"`
	Rows          []EqualCostRow `json:"rows"`
}

// EqualCostRow is one system in the equal-cost scenario.
type EqualCostRow struct {
	System   string  `json:"system"`
	Arch     string  `json:"arch"`
	UnitCost float64 `json:"unit_cost"` // one copy of the system, on the budget's basis
	Count    int     `json:"count"`     // whole copies the budget buys (0: not even one)
	Spent    float64 `json:"spent"`     // Count × UnitCost
	Leftover float64 `json:"leftover"`  // Budget − Spent (negative when AllowOver was used)
	// VCPU and ComputePower add up over the copies.
	VCPU         int     `json:"vcpu"`
	ComputePower float64 `json:"compute_power,omitempty"`
	// Throughput is one copy's figure (its mean over Threads);
	// TotalThroughput is Count × Throughput.
	Throughput      float64 `json:"throughput,omitempty"`
	Threads         []int   `json:"threads,omitempty"`
	TotalThroughput float64 `json:"total_throughput,omitempty"`
	// PerDollar is TotalThroughput ÷ Spent.
	PerDollar float64 `json:"per_dollar,omitempty"`
	// Diff compares the row with the baseline; nil for the baseline itself
	// and when the baseline does not fit the budget.
	Diff *EqualCostDiff `json:"diff,omitempty"`
}

// EqualCostDiff holds percent differences of a row from the baseline.
type EqualCostDiff struct {
	Spent           float64 `json:"spent"`
	VCPU            float64 `json:"vcpu"`
	ComputePower    float64 `json:"compute_power,omitempty"`
	TotalThroughput float64 `json:"total_throughput,omitempty"`
	PerDollar       float64 `json:"per_dollar,omitempty"`
}

// EqualCost runs the equal-cost scenario over the inputs' systems. Either
// every input has a throughput figure or none has.
func (s *Sheet) EqualCost(in []Input, opt EqualCostOptions) (*EqualCost, error) {
	if opt.Per == "" {
		opt.Per = BasisYear
	}
	if _, err := ParseBasis(string(opt.Per)); err != nil {
		return nil, err
	}
	if !(opt.Budget > 0) || math.IsInf(opt.Budget, 0) {
		return nil, fmt.Errorf("equal cost: budget %v: give a positive amount of %s per %s", opt.Budget, s.Currency, opt.Per)
	}
	if !(opt.AllowOver >= 0 && opt.AllowOver < 1) {
		return nil, fmt.Errorf("equal cost: allowed overspend %v: give a fraction from 0 up to 1, e.g. 0.05 for 5%%", opt.AllowOver)
	}
	ev, err := s.Evaluate(in, Options{Workload: opt.Workload, Mixed: opt.Mixed, Outages: opt.Outages, Metric: opt.Metric, Center: opt.Center, Baseline: opt.Baseline, PerDollar: opt.Per, PricePerf: opt.Per})
	if err != nil {
		return nil, fmt.Errorf("equal cost: %w", err)
	}
	out := &EqualCost{Workload: ev.Workload, Mixed: ev.Mixed, Outages: ev.Outages, Metric: ev.Metric, Center: ev.Center, Baseline: ev.Baseline, Budget: opt.Budget, Per: opt.Per,
		AllowOver: opt.AllowOver, Period: ev.Period, Currency: ev.Currency, HasThroughput: ev.HasThroughput}
	limit := opt.Budget * (1 + opt.AllowOver)
	base := 0
	for i, r := range ev.Rows {
		unit := r.Cost.On(opt.Per)
		if !(unit > 0) {
			return nil, fmt.Errorf("equal cost: system %q costs nothing per %s in the sheet: price its instances", r.System, opt.Per)
		}
		// A hair of tolerance, so that a budget of exactly n copies buys n.
		n := int(math.Floor(limit/unit + 1e-9))
		row := EqualCostRow{System: r.System, Arch: r.Arch, UnitCost: unit, Count: n, Spent: float64(n) * unit,
			VCPU: n * r.VCPU, ComputePower: float64(n) * r.ComputePower, Throughput: r.Throughput, Threads: r.Threads}
		row.Leftover = opt.Budget - row.Spent
		if ev.HasThroughput {
			row.TotalThroughput = float64(n) * r.Throughput
			if n > 0 {
				row.PerDollar = row.TotalThroughput / row.Spent
			}
		}
		if r.System == ev.Baseline {
			base = i
		}
		out.Rows = append(out.Rows, row)
	}
	b := out.Rows[base]
	if b.Count == 0 {
		return out, nil // nothing to compare with; the rows say why
	}
	for i := range out.Rows {
		r := &out.Rows[i]
		if i == base || r.Count == 0 {
			continue
		}
		r.Diff = &EqualCostDiff{Spent: pct(b.Spent, r.Spent), VCPU: pct(float64(b.VCPU), float64(r.VCPU)),
			ComputePower:    pct(b.ComputePower, r.ComputePower),
			TotalThroughput: pct(b.TotalThroughput, r.TotalThroughput), PerDollar: pct(b.PerDollar, r.PerDollar)}
	}
	return out, nil
}

// DoesNotFit lists the systems of which not one copy fits the budget, for a
// message such as "raise the budget or allow overspend".
func (e *EqualCost) DoesNotFit() []string {
	var out []string
	for _, r := range e.Rows {
		if r.Count == 0 {
			out = append(out, r.System)
		}
	}
	return out
}

// String summarises the scenario's budget as "3,500.00 USD per year (up to 3% over)".
func (e *EqualCost) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s per %s", money(e.Budget), e.Currency, e.Per)
	if e.Per == BasisPeriod {
		fmt.Fprintf(&b, " (%s)", e.Period)
	}
	if e.AllowOver > 0 {
		fmt.Fprintf(&b, " (up to %s%% over)", trimFloat(e.AllowOver*100))
	}
	return b.String()
}
