package usl

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReading: each kind of model reads as what limits it, and a peak or a
// near-ceiling point beyond the sweep is called an extrapolation.
func TestReading(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	threads := []float64{1, 2, 4, 8, 16, 32, 64}
	for _, c := range []struct {
		name                 string
		sigma, kappa, lambda float64
		ns                   []float64
		want, not            []string
	}{
		{"peak inside", 0.05, 0.002, 1000, threads, []string{"coherency-limited (κ = 0.00", "peaks at N* ≈ 2", "threads (", "tps (", "falls past it"}, []string{"extrapolation"}},
		{"peak beyond", 0.02, 0.0008, 1000, []float64{1, 2, 3, 4, 6, 8, 12, 16}, []string{"coherency-limited", "beyond the largest count measured (16): an extrapolation"}, nil},
		{"contention", 0.1, 0, 1000, threads, []string{"contention-limited (σ = 0.", "approaches λ/σ ≈ ", "comes within 5 % of it at about "}, []string{"coherency-limited"}},
		{"linear", 0, 0, 1000, threads, []string{"close to linear over 1–64 threads", "σ ≤ 0.0", "κ ≤ "}, []string{"limited"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Fit(sweep(r, c.sigma, c.kappa, c.lambda, 0.02, c.ns, 3), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := m.Reading("threads", "tps")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("reading %q lacks %q", got, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("reading %q has %q", got, w)
				}
			}
		})
	}
}

// TestContrast: a difference the rounds carry is stated, one they do not is
// "could not be told apart".
func TestContrast(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	threads := []float64{1, 2, 4, 8, 16, 32, 64}
	fit := func(sigma, kappa float64) *Model {
		m, err := Fit(sweep(r, sigma, kappa, 1000, 0.02, threads, 3), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	arm, x86 := fit(0.02, 0.0005), fit(0.08, 0.002)
	got := Contrast(arm, x86, "arm", "x86", "threads")
	for _, w := range []string{"contention σ is lower for arm (0.0", ") than for x86 (0.0", "coherency κ is lower for arm", "the predicted peak is at 4", "threads for arm against 2"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	// Two sweeps of one model: a difference is stated about as often as the
	// level allows (5 %), not more than 10 % of 200 pairs for each part.
	var said [3]int
	const pairs = 200
	for range pairs {
		same := Contrast(fit(0.05, 0.001), fit(0.05, 0.001), "a", "b", "threads")
		for i, w := range []string{"contention σ could not be told apart", "coherency κ could not be told apart", "the peaks could not be told apart"} {
			if !strings.Contains(same, w) {
				said[i]++
			}
		}
	}
	t.Logf("of %d pairs of one model, a difference in σ, κ, N* was stated %v times", pairs, said)
	for i, n := range said {
		if n > pairs/10 {
			t.Errorf("part %d: a difference between sweeps of one model stated %d times of %d", i, n, pairs)
		}
	}
}

// TestFormats: coefficients, counts and figures print as the readings use
// them.
func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Coef(0.0812), "0.081"}, {Coef(0.0000034), "3.4e-06"}, {Coef(0.002), "0.0020"}, {Coef(0), "0"}, {Coef(0.5), "0.50"},
		{Count(22.4), "22"}, {Count(3.46), "3.5"}, {Count(1234.4), "1,234"},
		{Figure(12345), "12,300"}, {Figure(845.2), "845"}, {Figure(8.456), "8.46"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
