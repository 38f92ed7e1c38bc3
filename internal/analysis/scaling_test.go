package analysis

import (
	"math"
	"strings"
	"testing"
)

// curveSystem builds a system with one oltp_read_only curve: values[i] tps at
// threads[i] (one round each, or several when a value list is longer).
func curveSystem(t *testing.T, threads []int, values [][]float64) *System {
	t.Helper()
	var runs []fakeRun
	for i, th := range threads {
		for _, v := range values[i] {
			runs = append(runs, fakeRun{machine: n1Machine, server: mariadb, workload: "oltp_read_only", threads: th, tps: v})
		}
	}
	return mustSystem(t, "s", runs...)
}

func one(vs ...float64) [][]float64 {
	out := make([][]float64, len(vs))
	for i, v := range vs {
		out[i] = []float64{v}
	}
	return out
}

func TestScalability(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		threads    []int
		values     [][]float64
		base       int
		peak       int
		peakValue  float64
		knee       int
		saturated  bool
		speedup    []float64
		efficiency []float64
		gain       []float64
		stops      string // Curve.StopsGrowing
	}{{
		// Gains 90%, 89%, 67%, then 3.3% (< 5%): the knee is 8 threads; the
		// peak is 16 threads, just above.
		name:    "knee before the peak",
		threads: []int{1, 2, 4, 8, 16, 32}, values: one(100, 190, 360, 600, 620, 610),
		base: 1, peak: 16, peakValue: 620, knee: 8, saturated: true,
		speedup:    []float64{1, 1.9, 3.6, 6, 6.2, 6.1},
		efficiency: []float64{1, 0.95, 0.9, 0.75, 0.3875, 0.190625},
		gain:       []float64{nan, 0.9, 360.0/190 - 1, 600.0/360 - 1, 620.0/600 - 1, 610.0/620 - 1},
		stops:      "8 (peak at 16, +3 %)",
	}, {
		name:    "still growing",
		threads: []int{1, 2, 4}, values: one(100, 200, 400),
		base: 1, peak: 4, peakValue: 400, knee: 0, saturated: false,
		speedup: []float64{1, 2, 4}, efficiency: []float64{1, 1, 1}, gain: []float64{nan, 1, 1},
		stops: "still growing",
	}, {
		// Steps of 2 %, 2 % and 6 %: no step gains 5 %, but 8 threads are
		// 5 % or more above 1, 2 and 4 threads' figures, so throughput grows
		// until 8, its peak; it falls at 16.
		name:    "small steps that add up",
		threads: []int{1, 2, 4, 8, 16}, values: one(100, 102, 104, 110, 108),
		base: 1, peak: 8, peakValue: 110, knee: 8, saturated: true,
		speedup:    []float64{1, 1.02, 1.04, 1.1, 1.08},
		efficiency: []float64{1, 0.51, 0.26, 0.1375, 0.0675},
		gain:       []float64{nan, 0.02, 104.0/102 - 1, 110.0/104 - 1, 108.0/110 - 1},
		stops:      "8",
	}, {
		// Gains of 2 % and 2 % then a fall: the peak at 4 threads is only
		// 4 % above 1 thread, where throughput stopped growing.
		name:    "stops before a peak less than the minimum gain above it",
		threads: []int{1, 2, 4, 8}, values: one(100, 102, 104, 98),
		base: 1, peak: 4, peakValue: 104, knee: 1, saturated: true,
		speedup:    []float64{1, 1.02, 1.04, 0.98},
		efficiency: []float64{1, 0.51, 0.26, 0.1225},
		gain:       []float64{nan, 0.02, 104.0/102 - 1, 98.0/104 - 1},
		stops:      "1 (peak at 4, +4 %)",
	}, {
		// Still growing by 6 % at the last step, after a step of 2 %.
		name:    "grows again at the largest count",
		threads: []int{1, 2, 4}, values: one(100, 102, 108.12),
		base: 1, peak: 4, peakValue: 108.12, knee: 0, saturated: false,
		speedup: []float64{1, 1.02, 1.0812}, efficiency: []float64{1, 0.51, 0.2703}, gain: []float64{nan, 0.02, 0.06},
		stops: "still growing",
	}, {
		name:    "flat",
		threads: []int{1, 2, 4, 8}, values: one(100, 101, 100, 99),
		base: 1, peak: 2, peakValue: 101, knee: 1, saturated: true,
		speedup:    []float64{1, 1.01, 1, 0.99},
		efficiency: []float64{1, 0.505, 0.25, 0.12375},
		gain:       []float64{nan, 0.01, 100.0/101 - 1, 99.0/100 - 1},
		stops:      "1 (peak at 2, +1 %)",
	}, {
		// 4.96 % above the knee would round to +5 %: it is told as under.
		name:    "peak just under the minimum gain",
		threads: []int{1, 2, 4}, values: one(1000, 1049.6, 1000),
		base: 1, peak: 2, peakValue: 1049.6, knee: 1, saturated: true,
		speedup: []float64{1, 1.0496, 1}, efficiency: []float64{1, 0.5248, 0.25}, gain: []float64{nan, 0.0496, 1000/1049.6 - 1},
		stops: "1 (peak at 2, under +5 %)",
	}, {
		// Without 1 thread the base is the smallest thread count measured;
		// efficiency is relative to it. Rounds are averaged (mean 200).
		name:    "smallest thread count is the base",
		threads: []int{2, 8, 32}, values: [][]float64{{190, 210}, {640}, {660}},
		base: 2, peak: 32, peakValue: 660, knee: 8, saturated: true,
		speedup: []float64{1, 3.2, 3.3}, efficiency: []float64{1, 0.8, 0.20625}, gain: []float64{nan, 2.2, 0.03125},
		stops: "8 (peak at 32, +3 %)",
	}, {
		// A fall counts as not growing: the knee is the peak, where it starts.
		name:    "throughput falls after the peak",
		threads: []int{1, 4, 16}, values: one(100, 300, 250),
		base: 1, peak: 4, peakValue: 300, knee: 4, saturated: true,
		speedup: []float64{1, 3, 2.5}, efficiency: []float64{1, 0.75, 0.15625}, gain: []float64{nan, 2, 250.0/300 - 1},
		stops: "4",
	}, {
		// One thread count: nothing tells whether throughput stopped.
		name:    "one thread count",
		threads: []int{8}, values: one(500),
		base: 8, peak: 8, peakValue: 500, knee: 0, saturated: false,
		speedup: []float64{1}, efficiency: []float64{1}, gain: []float64{nan},
		stops: "one thread count",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			curves, err := Scalability(curveSystem(t, tt.threads, tt.values), ScalingOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(curves) != 1 {
				t.Fatalf("%d curves, want 1", len(curves))
			}
			c := curves[0]
			if c.BaseThreads != tt.base || c.PeakThreads != tt.peak || !near(c.PeakValue, tt.peakValue) ||
				c.KneeThreads != tt.knee || c.Saturated != tt.saturated || c.MinGain != DefaultMinGain {
				t.Errorf("base %d peak %d (%v) knee %d saturated %v min gain %v; want %d %d (%v) %d %v %v",
					c.BaseThreads, c.PeakThreads, c.PeakValue, c.KneeThreads, c.Saturated, c.MinGain,
					tt.base, tt.peak, tt.peakValue, tt.knee, tt.saturated, DefaultMinGain)
			}
			if got := c.StopsGrowing(); got != tt.stops {
				t.Errorf("stops growing %q, want %q", got, tt.stops)
			}
			if c.Saturated && (c.KneeThreads > c.PeakThreads || c.PeakValue >= kneeValue(c)*(1+c.MinGain)) {
				t.Errorf("knee t%d and peak t%d (%v) contradict each other", c.KneeThreads, c.PeakThreads, c.PeakValue)
			}
			if c.System != "s" || c.Group.Workload != "oltp_read_only" || c.Group.Threads != 0 {
				t.Errorf("system %q group %+v", c.System, c.Group)
			}
			for i, p := range c.Points {
				if p.Threads != tt.threads[i] || !near(p.SpeedUp, tt.speedup[i]) || !near(p.Efficiency, tt.efficiency[i]) || !near(p.Gain, tt.gain[i]) {
					t.Errorf("point %d: t%d speed-up %v efficiency %v gain %v; want t%d %v %v %v",
						i, p.Threads, p.SpeedUp, p.Efficiency, p.Gain, tt.threads[i], tt.speedup[i], tt.efficiency[i], tt.gain[i])
				}
			}
		})
	}
}

// kneeValue is the figure of c's knee.
func kneeValue(c Curve) float64 {
	for _, p := range c.Points {
		if p.Threads == c.KneeThreads {
			return p.Value
		}
	}
	return math.NaN()
}

func TestScalabilityOptions(t *testing.T) {
	s := curveSystem(t, []int{1, 2, 4, 8}, one(100, 190, 350, 380))
	// Gains 90%, 84%, 8.6%: 5% finds no knee, 10% finds it at 4 threads.
	for _, tt := range []struct {
		minGain float64
		knee    int
	}{{0.05, 0}, {0.10, 4}} {
		curves, err := Scalability(s, ScalingOptions{Metric: MetricTPS, MinGain: tt.minGain})
		if err != nil {
			t.Fatal(err)
		}
		if curves[0].KneeThreads != tt.knee {
			t.Errorf("min gain %v: knee %d, want %d", tt.minGain, curves[0].KneeThreads, tt.knee)
		}
	}
	for _, tt := range []struct {
		opts ScalingOptions
		want string
	}{
		{ScalingOptions{Metric: LatencyMetric("95")}, "needs a throughput"},
		{ScalingOptions{MinGain: -0.1}, "give a fraction above 0"},
		{ScalingOptions{Metric: MetricTpmC}, "have no tpmc"},
		{ScalingOptions{Center: "mode"}, "unknown center"},
	} {
		if _, err := Scalability(s, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one containing %q", tt.opts, err, tt.want)
		}
	}
}
