package analysis

import (
	"math"
	"slices"
	"testing"
)

// TestDescribe checks the statistics against hand-computed values.
func TestDescribe(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		values []float64
		want   Stats
	}{{
		// The textbook sample 2,4,4,4,5,5,7,9: mean 5, sum of squares 32,
		// sd = √(32/7) = 2.1380899. The interval is on the log scale: R's
		// t.test(log(x)) gives a half width of 0.3729417743 (testdata/
		// reference/welch_log.R), so 5 ×/÷ exp(0.3729417743).
		name:   "eight values",
		values: []float64{9, 4, 2, 4, 5, 4, 7, 5},
		want: Stats{N: 8, Mean: 5, StdDev: 2.1380899, CV: 0.42761799, CILo: 5 / math.Exp(0.3729417743), CIHi: 5 * math.Exp(0.3729417743),
			Min: 2, Max: 9, Median: 4.5},
	}, {
		// Two values: sd = √2; R's half width on the log scale 1.158307514.
		name:   "two values",
		values: []float64{12, 10},
		want: Stats{N: 2, Mean: 11, StdDev: math.Sqrt2, CV: math.Sqrt2 / 11, CILo: 11 / math.Exp(1.158307514), CIHi: 11 * math.Exp(1.158307514),
			Min: 10, Max: 12, Median: 11},
	}, {
		// Three values: sd = 1; R's half width on the log scale 1.380058649.
		name:   "odd count median",
		values: []float64{3, 1, 2},
		want:   Stats{N: 3, Mean: 2, StdDev: 1, CV: 0.5, CILo: 2 / math.Exp(1.380058649), CIHi: 2 * math.Exp(1.380058649), Min: 1, Max: 3, Median: 2},
	}, {
		name:   "one value: no spread, no interval",
		values: []float64{42},
		want:   Stats{N: 1, Mean: 42, StdDev: nan, CV: nan, CILo: nan, CIHi: nan, NoInterval: NoIntervalOneRound, Min: 42, Max: 42, Median: 42},
	}, {
		name:   "a round of zero: no interval on the log scale",
		values: []float64{0, 10, 12},
		want:   Stats{N: 3, Mean: 22.0 / 3, StdDev: 6.4291005, CV: 6.4291005 / (22.0 / 3), CILo: nan, CIHi: nan, NoInterval: NoIntervalNonPositive, Min: 0, Max: 12, Median: 10},
	}, {
		name:   "all rounds equal: an interval of no width",
		values: []float64{7, 7, 7},
		want:   Stats{N: 3, Mean: 7, StdDev: 0, CV: 0, CILo: 7, CIHi: 7, Min: 7, Max: 7, Median: 7},
	}, {
		name: "no values",
		want: Stats{N: 0, Mean: nan, StdDev: nan, CV: nan, CILo: nan, CIHi: nan, Min: nan, Max: nan, Median: nan},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.values)
			got := Describe(in)
			if !slices.Equal(in, tt.values) {
				t.Errorf("Describe reordered its input: %v", in)
			}
			if got.N != tt.want.N || got.NoInterval != tt.want.NoInterval {
				t.Errorf("N = %d, NoInterval %q; want %d, %q", got.N, got.NoInterval, tt.want.N, tt.want.NoInterval)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"mean", got.Mean, tt.want.Mean}, {"sd", got.StdDev, tt.want.StdDev}, {"cv", got.CV, tt.want.CV},
				{"ci lo", got.CILo, tt.want.CILo}, {"ci hi", got.CIHi, tt.want.CIHi},
				{"min", got.Min, tt.want.Min}, {"max", got.Max, tt.want.Max}, {"median", got.Median, tt.want.Median},
			} {
				if !near7(f.got, f.want) {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
			if len(tt.values) > 0 && !slices.IsSorted(got.Values) {
				t.Errorf("Values not sorted: %v", got.Values)
			}
		})
	}
}

// near7 compares to the 7 or 8 digits the expected values are written with.
func near7(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-7*math.Max(1, math.Abs(b))
}

// exactUTestP is the exact two-sided p-value of the Mann-Whitney U test for
// samples without ties, by enumerating every way to split the pooled values:
// 2 × min(P(U ≤ u), P(U ≥ u)), capped at 1. It is the reference the benchmath
// result is checked against.
func exactUTestP(a, b []float64) float64 {
	u := func(x, y []float64) int {
		n := 0
		for _, xi := range x {
			for _, yi := range y {
				if xi > yi {
					n++
				}
			}
		}
		return n
	}
	obs := u(a, b)
	pool := append(slices.Clone(a), b...)
	var le, ge, total int
	var rec func(start int, chosen []int)
	rec = func(start int, chosen []int) {
		if len(chosen) == len(a) {
			var x, y []float64
			for i, v := range pool {
				if slices.Contains(chosen, i) {
					x = append(x, v)
				} else {
					y = append(y, v)
				}
			}
			k := u(x, y)
			total++
			if k <= obs {
				le++
			}
			if k >= obs {
				ge++
			}
			return
		}
		for i := start; i < len(pool); i++ {
			rec(i+1, append(chosen, i))
		}
	}
	rec(0, nil)
	return math.Min(1, 2*float64(min(le, ge))/float64(total))
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		wantP       float64 // NaN: not tested
		significant bool
		powered     bool
		reason      string
	}{{
		// Every value of b above every value of a: the most extreme of the
		// 252 splits on each side, p = 2/252.
		name: "clearly different", a: []float64{1, 2, 3, 4, 5}, b: []float64{6, 7, 8, 9, 10},
		wantP: 2.0 / 252, significant: true, powered: true,
	}, {
		name: "clearly different, throughput-like", a: []float64{5222, 5230, 5215, 5240, 5219, 5228}, b: []float64{5259, 5270, 5262, 5281, 5266, 5275},
		wantP: 2.0 / 924, significant: true, powered: true,
	}, {
		// Interleaved: U = 10 of 25, p = 0.6905 (R: wilcox.test gives 0.6905).
		name: "interleaved", a: []float64{1, 3, 5, 7, 9}, b: []float64{2, 4, 6, 8, 10},
		wantP: 0.6904762, powered: true, reason: ReasonNotSignificant,
	}, {
		// Three rounds each can reach p = 0.1 at best: separated, and the
		// test has no power to say so at 0.05.
		name: "too few rounds to reach 0.05", a: []float64{1, 2, 3}, b: []float64{4, 5, 6},
		wantP: 0.1, reason: ReasonNoPower,
	}, {
		name: "one round: no test", a: []float64{1}, b: []float64{4, 5, 6},
		wantP: math.NaN(), reason: ReasonTooFew,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MannWhitney(tt.a, tt.b, 0)
			if !math.IsNaN(tt.wantP) {
				if ref := exactUTestP(tt.a, tt.b); !near7(ref, tt.wantP) {
					t.Fatalf("reference p = %v, test table says %v", ref, tt.wantP)
				}
			}
			if !near7(got.P, tt.wantP) || got.Tested == math.IsNaN(tt.wantP) {
				t.Errorf("P = %v (tested %v), want %v", got.P, got.Tested, tt.wantP)
			}
			if got.Significant != tt.significant || got.Powered != tt.powered || got.Reason != tt.reason || got.Alpha != DefaultAlpha {
				t.Errorf("got significant=%v powered=%v reason=%q alpha=%v, want %v %v %q %v",
					got.Significant, got.Powered, got.Reason, got.Alpha, tt.significant, tt.powered, tt.reason, DefaultAlpha)
			}
		})
	}
}

// MannWhitneyPowered and MannWhitneyMinP against the exact enumeration:
// the most extreme split of n and m rounds is the smallest p.
func TestMannWhitneyPower(t *testing.T) {
	for _, tc := range []struct {
		n, m    int
		powered bool
	}{{2, 2, false}, {3, 3, false}, {3, 4, false}, {4, 4, true}, {3, 5, true}, {2, 8, true}, {2, 7, false}, {1, 30, false}} {
		a, b := make([]float64, tc.n), make([]float64, tc.m)
		for i := range a {
			a[i] = float64(i)
		}
		for i := range b {
			b[i] = float64(100 + i)
		}
		if got, want := MannWhitneyMinP(tc.n, tc.m), exactUTestP(a, b); !near7(got, want) {
			t.Errorf("MannWhitneyMinP(%d, %d) = %v, exact %v", tc.n, tc.m, got, want)
		}
		if got := MannWhitneyPowered(tc.n, tc.m, 0.05); got != tc.powered {
			t.Errorf("MannWhitneyPowered(%d, %d) = %v, want %v", tc.n, tc.m, got, tc.powered)
		}
	}
}

func TestParseCenter(t *testing.T) {
	for in, want := range map[string]Center{"": CenterMean, "mean": CenterMean, "median": CenterMedian} {
		if got, err := ParseCenter(in); err != nil || got != want {
			t.Errorf("ParseCenter(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCenter("mode"); err == nil {
		t.Error("ParseCenter(mode) did not fail")
	}
}
