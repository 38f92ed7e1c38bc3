package analysis

import (
	"fmt"
	"math"
)

// DefaultMinGain is the growth below which a thread step counts as adding
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
	// MinGain is the growth from one thread count to the next below which
	// throughput has stopped growing (0 = DefaultMinGain).
	MinGain float64
}

// Curve is how one system scales with threads on one workload (one key group:
// workload, rand type, profile, data set).
//
// Definitions: the base is the smallest thread count measured (1 when
// present); SpeedUp = value / base value; Efficiency = SpeedUp / (threads /
// base threads), 1 meaning perfectly linear. Gain is the growth from the
// previous thread count, value / previous value − 1. The knee (KneeThreads)
// is the first thread count whose next step gains less than MinGain: from
// there on throughput stops growing. When every step gains at least MinGain,
// Saturated is false and KneeThreads is 0 (still growing at the largest
// thread count measured).
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
	// KneeThreads is where throughput stops growing; Saturated says whether
	// it was reached.
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
	for i := 0; i+1 < len(c.Points); i++ {
		if g := c.Points[i+1].Gain; !math.IsNaN(g) && g < c.MinGain {
			c.KneeThreads, c.Saturated = c.Points[i].Threads, true
			break
		}
	}
}
