package cost

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Figure is one system's throughput: either a single Value, or values by
// thread count of which the mean over Threads is taken (seed 003 averages
// tpmC over 300, 500 and 800 threads). The zero Figure means "no throughput":
// a cost-only comparison.
type Figure struct {
	Value     float64         `json:"value,omitempty"`
	ByThreads map[int]float64 `json:"by_threads,omitempty"`
	// Threads are the thread counts averaged; empty: all of ByThreads.
	Threads []int `json:"threads,omitempty"`
}

// IsZero reports whether the figure holds no throughput at all.
func (f Figure) IsZero() bool {
	return f.Value == 0 && len(f.ByThreads) == 0 && len(f.Threads) == 0
}

// Mean returns the throughput: Value, or the mean of ByThreads over Threads.
// It also returns the thread counts averaged (nil for a single Value).
func (f Figure) Mean() (float64, []int, error) {
	if f.Value != 0 {
		if len(f.ByThreads) > 0 || len(f.Threads) > 0 {
			return 0, nil, fmt.Errorf("a throughput figure has both a single value and values by thread count: give one or the other")
		}
		if !(f.Value > 0) || math.IsInf(f.Value, 0) {
			return 0, nil, fmt.Errorf("throughput %v: give a positive figure", f.Value)
		}
		return f.Value, nil, nil
	}
	if len(f.ByThreads) == 0 {
		return 0, nil, fmt.Errorf("no throughput figure: give a value or values by thread count")
	}
	threads := slices.Clone(f.Threads)
	if len(threads) == 0 {
		for t := range f.ByThreads {
			threads = append(threads, t)
		}
		sort.Ints(threads)
	}
	sum := 0.0
	for _, t := range threads {
		v, ok := f.ByThreads[t]
		if !ok {
			return 0, nil, fmt.Errorf("no throughput at %d threads to average: the figures are at %s threads; choose among those", t, JoinInts(sortedKeys(f.ByThreads)))
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, nil, fmt.Errorf("throughput %v at %d threads: give a positive figure", v, t)
		}
		sum += v
	}
	return sum / float64(len(threads)), threads, nil
}

// Input pairs a system of the sheet with its measured throughput.
type Input struct {
	System     string
	Throughput Figure
}

// Options shape an evaluation.
type Options struct {
	Workload string // label of the workload the throughput is for, e.g. "TPC-C 100 warehouses"
	// Mixed, when set, says that the systems' throughputs are of different
	// data sets, distributions or profiles and what they are ("data set:
	// x86 w10, arm w100"): the tables mark the figures as mixed.
	Mixed string
	// Outages, when set, says which throughputs include runs during which
	// the server went away ("B: 1 of 2 runs at 4 threads"): the tables mark
	// them (analysis.OutageMark).
	Outages string
	Metric  string // the throughput's unit, e.g. "tps" or "tpmC"; default "tps"
	// Center says which statistic of each thread count's rounds the
	// throughput figures are ("mean", "median"), to be told with them; ""
	// when they are not of rounds (figures given as such).
	Center string
	// Baseline is the system the others are compared with ("B vs A": A);
	// default the first input.
	Baseline string
	// PerDollar is the cost basis of throughput per dollar (seed 001: tps
	// per USD of yearly cost); default BasisYear.
	PerDollar Basis
	// PricePerf is the cost basis of price-performance, cost ÷ throughput
	// (seed 003: five-year cost per tpmC); default BasisPeriod.
	PricePerf Basis
}

func (o *Options) defaults() error {
	if o.Metric == "" {
		o.Metric = "tps"
	}
	if o.PerDollar == "" {
		o.PerDollar = BasisYear
	}
	if o.PricePerf == "" {
		o.PricePerf = BasisPeriod
	}
	for _, b := range []Basis{o.PerDollar, o.PricePerf} {
		if _, err := ParseBasis(string(b)); err != nil {
			return err
		}
	}
	return nil
}

// Evaluation compares systems' cost and, when throughput is given, their
// throughput per dollar and price-performance.
type Evaluation struct {
	Scenario string `json:"scenario,omitempty"` // "" or "equal compute"
	Workload string `json:"workload,omitempty"`
	// Mixed says what different things the throughputs measured (Options.Mixed).
	Mixed string `json:"mixed,omitempty"`
	// Outages says which throughputs include runs during which the server
	// went away (Options.Outages).
	Outages string `json:"outages,omitempty"`
	Metric  string `json:"metric"`
	// Center is the statistic of each thread count's rounds the throughputs
	// are (Options.Center).
	Center   string `json:"center,omitempty"`
	Baseline string `json:"baseline"`
	// PerDollar and PricePerf are the cost bases used; Period is the sheet's
	// period (the basis "period").
	PerDollar Basis  `json:"per_dollar_basis"`
	PricePerf Basis  `json:"price_performance_basis"`
	Period    string `json:"period"`
	Currency  string `json:"currency"`
	// HasThroughput is false for a cost-only comparison.
	HasThroughput bool  `json:"has_throughput"`
	Rows          []Row `json:"rows"`
}

// Row is one system in an evaluation.
type Row struct {
	System       string      `json:"system"`
	Arch         string      `json:"arch"`
	VCPU         int         `json:"vcpu"`
	ComputePower float64     `json:"compute_power,omitempty"`
	Cost         *SystemCost `json:"cost"`
	// Throughput is the figure's mean; Threads the thread counts averaged.
	Throughput float64 `json:"throughput,omitempty"`
	Threads    []int   `json:"threads,omitempty"`
	// PerDollar is Throughput ÷ the cost on the PerDollar basis.
	PerDollar float64 `json:"per_dollar,omitempty"`
	// PricePerformance is the cost on the PricePerf basis ÷ Throughput:
	// lower is better.
	PricePerformance float64 `json:"price_performance,omitempty"`
	// Diff compares the row with the baseline; nil for the baseline itself.
	Diff *Diff `json:"diff,omitempty"`
}

// Diff holds percent differences of a row from the baseline:
// (row − baseline) ÷ baseline × 100.
type Diff struct {
	Cost             float64 `json:"cost"` // on the PricePerf basis
	Throughput       float64 `json:"throughput,omitempty"`
	PerDollar        float64 `json:"per_dollar,omitempty"`
	PricePerformance float64 `json:"price_performance,omitempty"`
}

// Evaluate prices each input's system and relates it to its throughput.
// Either every input has a throughput figure or none has (cost only).
func (s *Sheet) Evaluate(in []Input, opt Options) (*Evaluation, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("nothing to evaluate: name at least one system of %s (%s)", s.File, strings.Join(s.SystemNames(), ", "))
	}
	ev := &Evaluation{Workload: opt.Workload, Mixed: opt.Mixed, Outages: opt.Outages, Metric: opt.Metric, Center: opt.Center, PerDollar: opt.PerDollar, PricePerf: opt.PricePerf,
		Period: s.Period.String(), Currency: s.Currency, HasThroughput: !in[0].Throughput.IsZero()}
	seen := map[string]bool{}
	for _, x := range in {
		if seen[x.System] {
			return nil, fmt.Errorf("system %q is listed twice: list each system once", x.System)
		}
		seen[x.System] = true
		c, err := s.Cost(x.System)
		if err != nil {
			return nil, err
		}
		r := Row{System: c.System, Arch: c.Arch, VCPU: c.VCPU, ComputePower: c.ComputePower, Cost: c}
		if x.Throughput.IsZero() == ev.HasThroughput {
			return nil, fmt.Errorf("system %q has no throughput figure while %q has one: give one for every system, or none for a cost-only comparison", pick(ev.HasThroughput, x.System, in[0].System), pick(ev.HasThroughput, in[0].System, x.System))
		}
		if ev.HasThroughput {
			mean, threads, err := x.Throughput.Mean()
			if err != nil {
				return nil, fmt.Errorf("system %q: %w", x.System, err)
			}
			r.Throughput, r.Threads = mean, threads
			if c.On(opt.PerDollar) > 0 {
				r.PerDollar = mean / c.On(opt.PerDollar)
			}
			r.PricePerformance = c.On(opt.PricePerf) / mean
		}
		ev.Rows = append(ev.Rows, r)
	}
	ev.Baseline = opt.Baseline
	if ev.Baseline == "" {
		ev.Baseline = ev.Rows[0].System
	}
	base := -1
	for i, r := range ev.Rows {
		if r.System == ev.Baseline {
			base = i
		}
	}
	if base < 0 {
		return nil, fmt.Errorf("baseline %q is not among the systems compared (%s): pick one of them", ev.Baseline, strings.Join(rowNames(ev.Rows), ", "))
	}
	b := ev.Rows[base]
	for i := range ev.Rows {
		if i == base {
			continue
		}
		r := &ev.Rows[i]
		d := &Diff{Cost: pct(b.Cost.On(opt.PricePerf), r.Cost.On(opt.PricePerf))}
		if ev.HasThroughput {
			d.Throughput = PercentDiff(b.Throughput, r.Throughput)
			d.PerDollar = pct(b.PerDollar, r.PerDollar)
			d.PricePerformance = pct(b.PricePerformance, r.PricePerformance)
		}
		r.Diff = d
	}
	return ev, nil
}

// EqualCompute compares systems that have the same number of vCPUs and whose
// cost is allowed to differ (seed 004): the evaluation of Evaluate, marked as
// the equal-compute scenario. Systems whose vCPU counts differ are refused.
func (s *Sheet) EqualCompute(in []Input, opt Options) (*Evaluation, error) {
	ev, err := s.Evaluate(in, opt)
	if err != nil {
		return nil, err
	}
	for _, r := range ev.Rows {
		if r.VCPU == 0 {
			return nil, fmt.Errorf("equal compute: the price sheet gives no vcpu for an instance of system %q: add vcpu to its instances", r.System)
		}
	}
	for _, r := range ev.Rows[1:] {
		if r.VCPU != ev.Rows[0].VCPU {
			var counts []string
			for _, r := range ev.Rows {
				counts = append(counts, fmt.Sprintf("%s has %d", r.System, r.VCPU))
			}
			return nil, fmt.Errorf("equal compute needs systems with the same vCPU count, but %s: pick systems with equal vCPUs, or compare them at equal cost or without a scenario", strings.Join(counts, ", "))
		}
	}
	ev.Scenario = "equal compute"
	return ev, nil
}

// pct is PercentDiff, or 0 when the base is 0.
func pct(base, value float64) float64 {
	if base == 0 {
		return 0
	}
	return PercentDiff(base, value)
}

func pick(first bool, a, b string) string {
	if first {
		return a
	}
	return b
}

func rowNames(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.System
	}
	return out
}

func sortedKeys(m map[int]float64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// JoinInts prints integers (thread counts) as "1, 2, 4".
func JoinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
