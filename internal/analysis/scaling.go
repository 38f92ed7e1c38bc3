package analysis

import (
	"fmt"
	"math"
	"strconv"
)

// DefaultMinGain is the growth below which more threads count as adding
// nothing: 5%.
const DefaultMinGain = 0.05

// ScalingOptions choose what a scalability analysis looks at.
type ScalingOptions struct {
	// Metric is the throughput analysed (zero value: DefaultMetricOf the
	// system, tpmC for TPC-C alone and tps otherwise). Latency metrics are
	// refused: speed-up is a throughput notion.
	Metric Metric
	// Center is the statistic that stands for a cell ("" = mean).
	Center Center
	// MinGain is the growth over a thread count's figure that some larger
	// thread count must reach for throughput to still be growing there
	// (0 = DefaultMinGain; see Curve).
	MinGain float64
}

// Curve is how one system scales with threads on one workload (one key group:
// workload, rand type, profile, data set).
//
// Definitions: the base is the smallest thread count measured (1 when
// present); SpeedUp = value / base value; Efficiency = SpeedUp / (threads /
// base threads), 1 meaning perfectly linear. Gain is the growth from the
// previous thread count, value / previous value − 1. Throughput stops growing
// (KneeThreads, the knee) at the smallest thread count T from which no larger
// thread count's figure is MinGain or more above T's: small steps that add up
// to more than MinGain further on do not stop it (gains of 2 %, 2 %, then 6 %
// keep it growing). The peak (PeakThreads) is the highest figure: it is
// never before the knee, and when it is after it, it is less than MinGain
// above the knee's figure. When the largest thread count is the only one
// that qualifies, Saturated is false and KneeThreads is 0 (still growing at
// the largest thread count measured).
type Curve struct {
	System string // the system's label
	Group  Key    // Threads is 0
	Points []ScalePoint
	// BaseThreads is the thread count speed-up is relative to.
	BaseThreads int
	// PeakThreads is the thread count with the highest value, PeakValue that
	// value.
	PeakThreads int
	PeakValue   float64
	// KneeThreads is where throughput stops growing (at or before
	// PeakThreads); Saturated says whether it was reached.
	KneeThreads int
	Saturated   bool
	// MinGain is the threshold used for the knee.
	MinGain float64
}

// ScalePoint is one thread count of a curve.
type ScalePoint struct {
	Threads    int
	Value      float64 // the cell's center
	N          int     // rounds
	SpeedUp    float64
	Efficiency float64
	// Gain is the growth from the previous thread count (NaN for the first).
	Gain float64
	// Stats are the point's rounds; Vague is true when its interval or the
	// base point's is wider than its figure (Stats.Vague): the speed-up,
	// efficiency and gain then tell nothing, and renderings mark them
	// VagueMark.
	Stats Stats
	Vague bool
}

// Scalability describes how system s scales with threads, one curve per key
// group, in key order.
func Scalability(s *System, opts ScalingOptions) ([]Curve, error) {
	if opts.Metric.Name == "" {
		opts.Metric = DefaultMetricOf([]*System{s}, CompareOptions{})
	}
	if opts.Metric.LowerIsBetter {
		return nil, fmt.Errorf("scalability of %s: speed-up needs a throughput: use tps, qps or tpmc", opts.Metric.Name)
	}
	if opts.MinGain == 0 {
		opts.MinGain = DefaultMinGain
	}
	if opts.MinGain < 0 || math.IsNaN(opts.MinGain) {
		return nil, fmt.Errorf("minimum gain %g: give a fraction above 0, such as 0.05 for 5%%", opts.MinGain)
	}
	center, err := ParseCenter(string(opts.Center))
	if err != nil {
		return nil, err
	}
	var curves []Curve
	for _, k := range s.Keys() {
		vals := s.Values(k, opts.Metric)
		if len(vals) == 0 {
			continue
		}
		st := Describe(vals)
		n := len(curves)
		if n == 0 || curves[n-1].Group != k.Group() {
			curves = append(curves, Curve{System: s.Label, Group: k.Group(), MinGain: opts.MinGain})
			n++
		}
		curves[n-1].Points = append(curves[n-1].Points, ScalePoint{Threads: k.Threads, Value: center.Of(st), N: st.N, Stats: st})
	}
	if len(curves) == 0 {
		return nil, fmt.Errorf("%s: the results have no %s: choose a metric they record (tps, qps; tpmc for TPC-C)", s.Label, opts.Metric.Name)
	}
	for i := range curves {
		curves[i].fill()
	}
	return curves, nil
}

// fill computes speed-up, efficiency, gains, peak and knee of points sorted by
// threads.
func (c *Curve) fill() {
	base := c.Points[0]
	c.BaseThreads = base.Threads
	for i := range c.Points {
		p := &c.Points[i]
		p.SpeedUp, p.Efficiency, p.Gain = math.NaN(), math.NaN(), math.NaN()
		p.Vague = p.Stats.Vague() || base.Stats.Vague() || (i > 0 && c.Points[i-1].Stats.Vague())
		if base.Value != 0 {
			p.SpeedUp = p.Value / base.Value
			p.Efficiency = p.SpeedUp / (float64(p.Threads) / float64(base.Threads))
		}
		if i > 0 && c.Points[i-1].Value != 0 {
			p.Gain = p.Value/c.Points[i-1].Value - 1
		}
		if i == 0 || p.Value > c.PeakValue {
			c.PeakThreads, c.PeakValue = p.Threads, p.Value
		}
	}
	// The knee: the first point no later point beats by MinGain. Scanning
	// from the end, best is the highest figure after point i.
	knee, best := len(c.Points)-1, math.Inf(-1)
	for i := len(c.Points) - 1; i >= 0; i-- {
		if i < len(c.Points)-1 && best < c.Points[i].Value*(1+c.MinGain) {
			knee = i
		}
		best = math.Max(best, c.Points[i].Value)
	}
	if knee < len(c.Points)-1 {
		c.KneeThreads, c.Saturated = c.Points[knee].Threads, true
	}
}

// StopsGrowing says where throughput stops growing, with the peak when it is
// further on: "8 (peak at 16, +3 %)", "8" (the peak), "still growing", or
// "one thread count" (which tells nothing).
func (c Curve) StopsGrowing() string {
	if len(c.Points) < 2 {
		return "one thread count"
	}
	if !c.Saturated {
		return "still growing"
	}
	s := strconv.Itoa(c.KneeThreads)
	if c.PeakThreads != c.KneeThreads {
		s += fmt.Sprintf(" (peak at %d, %s)", c.PeakThreads, c.PeakOverKnee())
	}
	return s
}

// PeakOverKnee is how far the peak's figure is above the knee's: "+3 %"
// ("under +5 %" rather than a rounding up to MinGain, which it is below).
func (c Curve) PeakOverKnee() string {
	for _, p := range c.Points {
		if p.Threads == c.KneeThreads && p.Value != 0 {
			g := (c.PeakValue/p.Value - 1) * 100
			if math.Round(g) >= c.MinGain*100 {
				return fmt.Sprintf("under %+.0f %%", c.MinGain*100)
			}
			return fmt.Sprintf("%+.0f %%", g)
		}
	}
	return "-"
}
