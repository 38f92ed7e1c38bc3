package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// generatedSweep fits a sweep of 8 CPU sets × 3 rounds drawn from a known
// model with 2 % log-normal noise.
func generatedSweep(t *testing.T, r *rand.Rand, system, series string, sigma, kappa float64) ScaleFit {
	t.Helper()
	counts := []int{1, 2, 3, 4, 6, 8, 12, 16}
	rounds := make([][]float64, len(counts))
	for i, n := range counts {
		x := 1000 * float64(n) / (1 + sigma*float64(n-1) + kappa*float64(n*(n-1)))
		for range 3 {
			rounds[i] = append(rounds[i], x*math.Exp(0.02*r.NormFloat64()))
		}
	}
	f := fitSweep(system, series, counts, rounds, 0.95)
	if f.Model == nil {
		t.Fatalf("%s %s: no model: %s", system, series, f.NoModel)
	}
	return f
}

// TestContrastsOfACoreSweep: in a by-CPUs section, each system is contrasted
// with the baseline in the same series, and a system's one-per-core series
// with its series of SMT siblings — what seed 002 asks of Hyper-Threading.
func TestContrastsOfACoreSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 32))
	c := &Comparison{Systems: []*System{{Label: "x86"}, {Label: "arm"}}}
	sec := ScaleSection{Over: SweepCPUs, Fits: []ScaleFit{
		generatedSweep(t, r, "x86", "with SMT siblings", 0.08, 0.003),
		generatedSweep(t, r, "x86", "one per core", 0.02, 0.0005),
		generatedSweep(t, r, "arm", "with SMT siblings", 0.08, 0.003),
	}}
	c.contrast(&sec)
	if len(sec.Contrasts) != 2 {
		t.Fatalf("%d contrasts, want arm against x86 and x86's two series:\n%s", len(sec.Contrasts), strings.Join(sec.Contrasts, "\n"))
	}
	for i, want := range []string{"arm against x86 (with SMT siblings): contention σ could not be told apart",
		"x86 one per core against x86 with SMT siblings: contention σ is lower for x86 one per core (0.0"} {
		if !strings.HasPrefix(sec.Contrasts[i], want) {
			t.Errorf("contrast %d: %q, want it to start %q", i, sec.Contrasts[i], want)
		}
	}
	t.Log(strings.Join(sec.Contrasts, "\n"))
	if !strings.Contains(sec.Contrasts[1], "CPUs for x86 one per core against") {
		t.Errorf("the series' peaks (about 44 and 17 CPUs) are not told apart: %q", sec.Contrasts[1])
	}
}
