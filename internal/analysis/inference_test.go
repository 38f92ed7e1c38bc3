package analysis

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// referenceRatios reads testdata/reference/welch_log.txt, R's t.test on the
// logarithms of the cases of welch_log.R: name, ratio, lower and upper
// bound, t, df, p.
func referenceRatios(t *testing.T) map[string][6]float64 {
	t.Helper()
	f, err := os.Open("testdata/reference/welch_log.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][6]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "|")
		if parts[0] == "cell" {
			continue
		}
		var v [6]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(parts[i+1], 64); err != nil {
				t.Fatalf("%s: %v", sc.Text(), err)
			}
		}
		out[parts[0]] = v
	}
	return out
}

// TestWelchLogAgainstR checks WelchLog against R's t.test(log(a), log(b))
// (testdata/reference/welch_log.R and its output).
func TestWelchLogAgainstR(t *testing.T) {
	ref := referenceRatios(t)
	cases := []struct {
		name    string
		a, b    []float64
		claimed bool
	}{
		{"flush2 vs flush1, 3 rounds each, apart", []float64{568, 720, 899}, []float64{183, 350, 521}, false},
		{"4 rounds each, throughput-like", []float64{5259, 5270, 5262, 5281}, []float64{5222, 5230, 5215, 5240}, true},
		{"2 rounds each, overlapping", []float64{100, 130}, []float64{110, 90}, false},
		{"5 against 3, wide", []float64{1011, 1500, 600, 2200, 900}, []float64{1000, 1100, 1050}, false},
		{"latency, lower is better", []float64{2.1, 2.3, 2.2}, []float64{3.0, 3.4, 3.1, 3.3}, true},
	}
	if len(cases) != len(ref) {
		t.Fatalf("%d cases, the reference has %d", len(cases), len(ref))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := ref[tc.name]
			if !ok {
				t.Fatalf("no reference figures for %q", tc.name)
			}
			got := WelchLog(tc.a, tc.b, 0.05)
			if !got.Tested || got.Reason != "" {
				t.Fatalf("not tested: %+v", got)
			}
			for i, g := range []float64{got.Estimate, got.Lo, got.Hi, got.T, got.DF, got.P} {
				if math.Abs(g-want[i]) > 1e-7*math.Max(1, math.Abs(want[i])) {
					t.Errorf("figure %d (ratio, lo, hi, t, df, p) = %.10g, R says %.10g", i, g, want[i])
				}
			}
			if got.Claimed != tc.claimed || got.Claimed != (got.P < 0.05) {
				t.Errorf("claimed = %v with p = %v, want %v", got.Claimed, got.P, tc.claimed)
			}
			// The smallest change the rounds could show is the interval's
			// half width on the log scale.
			if w := math.Log(got.Hi / got.Lo / 1); math.Abs(math.Log1p(got.Detectable)-w/2) > 1e-9 {
				t.Errorf("detectable %v, half width %v", got.Detectable, w/2)
			}
		})
	}
}

// TestLogIntervalAgainstR checks the cells' interval half widths on the log
// scale against R's one-sample t.test(log(x)).
func TestLogIntervalAgainstR(t *testing.T) {
	f, err := os.ReadFile("testdata/reference/welch_log.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(f), "\n") {
		parts := strings.Split(line, "|")
		if parts[0] != "cell" {
			continue
		}
		var x []float64
		for _, v := range strings.Fields(parts[1]) {
			f, _ := strconv.ParseFloat(v, 64)
			x = append(x, f)
		}
		want, _ := strconv.ParseFloat(parts[2], 64)
		st := Describe(x)
		if got := math.Log(st.CIHi/st.CILo) / 2; math.Abs(got-want) > 1e-9 {
			t.Errorf("%v: half width %.10g on the log scale, R says %.10g", x, got, want)
		}
		if got := math.Sqrt(st.CILo * st.CIHi); math.Abs(got-st.Mean) > 1e-9*st.Mean {
			t.Errorf("%v: interval %v..%v is not centred on the mean %v", x, st.CILo, st.CIHi, st.Mean)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d cell references, want 3", n)
	}
}

func TestWelchLogEdges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []float64
		reason string
	}{
		{"one round", []float64{100}, []float64{90, 95}, NotTestedTooFew},
		{"no rounds", nil, []float64{90, 95}, NotTestedTooFew},
		{"a round of zero throughput", []float64{0, 100, 110}, []float64{90, 95}, NotTestedNonPositive},
		{"a negative round", []float64{100, 110}, []float64{-1, 95}, NotTestedNonPositive},
		{"every round equal", []float64{100, 100}, []float64{90, 90, 90}, NotTestedNoSpread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := WelchLog(tc.a, tc.b, 0)
			if got.Tested || got.Claimed || got.Reason != tc.reason || !math.IsNaN(got.Lo) || !math.IsNaN(got.P) {
				t.Errorf("got %+v, want untested for %q", got, tc.reason)
			}
		})
	}
	// One side without spread, the other with: tested on the other's
	// degrees of freedom.
	got := WelchLog([]float64{100, 100, 100}, []float64{90, 92, 91}, 0)
	if !got.Tested || math.Abs(got.DF-2) > 1e-9 {
		t.Errorf("one side without spread: %+v, want tested with 2 df", got)
	}
}

// Properties of WelchLog and the cells' intervals over random positive
// samples: bounds never below zero, the interval holds the observed ratio
// (and a cell's interval its mean), claimed exactly when p < α, and more
// rounds of the same spread never widen the interval.
func TestIntervalProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2026))
	sample := func(n int, mu, sigma float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			// Log-normal, and now and then a wild round far off.
			out[i] = math.Exp(mu + sigma*rng.NormFloat64())
			if rng.IntN(10) == 0 {
				out[i] *= 1 + 50*rng.Float64()
			}
		}
		return out
	}
	for i := 0; i < 3000; i++ {
		a := sample(2+rng.IntN(6), 3+4*rng.Float64(), 2*rng.Float64())
		b := sample(2+rng.IntN(6), 3+4*rng.Float64(), 2*rng.Float64())
		r := WelchLog(a, b, 0.05)
		if !r.Tested {
			t.Fatalf("%v vs %v: not tested (%s)", a, b, r.Reason)
		}
		if !(r.Lo > 0) || !(r.Lo <= r.Estimate) || !(r.Estimate <= r.Hi) {
			t.Fatalf("%v vs %v: interval %v..%v around %v", a, b, r.Lo, r.Hi, r.Estimate)
		}
		if r.Claimed != (r.P < 0.05) {
			t.Fatalf("%v vs %v: claimed %v with p %v", a, b, r.Claimed, r.P)
		}
		for _, x := range [][]float64{a, b} {
			st := Describe(x)
			if !(st.CILo > 0) || !(st.CILo <= st.Mean) || !(st.Mean <= st.CIHi) {
				t.Fatalf("%v: interval %v..%v, mean %v", x, st.CILo, st.CIHi, st.Mean)
			}
		}
		// The same rounds twice over: the same spread, more rounds.
		r2 := WelchLog(append(a, a...), append(b, b...), 0.05)
		if r2.Hi/r2.Lo > r.Hi/r.Lo*(1+1e-12) {
			t.Fatalf("%v vs %v: doubling the rounds widened %v..%v to %v..%v", a, b, r.Lo, r.Hi, r2.Lo, r2.Hi)
		}
		s1, s2 := Describe(a), Describe(append(a, a...))
		if s2.CIHi/s2.CILo > s1.CIHi/s1.CILo*(1+1e-12) {
			t.Fatalf("%v: doubling the rounds widened the cell's interval", a)
		}
	}
}
