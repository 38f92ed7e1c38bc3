package usl

import (
	"bufio"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// reference is a data set of testdata/reference/usl.txt with R's fit.
type reference struct {
	name  string
	scale Scale
	obs   []Observation
	coef  map[string][2]float64 // s, k, l: estimate and standard error
	rse   float64
	df    int
}

func readReferences(t *testing.T) []reference {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "reference", "usl.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []reference
	var cur *reference
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch fs[0] {
		case "dataset":
			out = append(out, reference{name: fs[1], coef: map[string][2]float64{}})
			cur = &out[len(out)-1]
			if fs[2] == "linear" {
				cur.scale = Linear
			}
		case "obs":
			cur.obs = append(cur.obs, Observation{N: num(fs[1]), X: num(fs[2])})
		case "coef":
			cur.coef[fs[1]] = [2]float64{num(fs[2]), num(fs[3])}
		case "rse":
			cur.rse, cur.df = num(fs[1]), int(num(fs[2]))
		}
	}
	if len(out) != 3 {
		t.Fatalf("read %d reference data sets, want 3", len(out))
	}
	return out
}

// TestAgreesWithR: the fits of testdata/reference/usl.txt — R's nls (port,
// bounded at 0) on Gunther's ray-tracer data, codahale/usl's 32
// measurements and a generated sweep of 3 rounds per thread count on the
// log scale — are reproduced: estimates to 1e-5 relative (1e-7 absolute for
// a bound at 0), standard errors to 1e-3 relative.
func TestAgreesWithR(t *testing.T) {
	for _, ref := range readReferences(t) {
		t.Run(ref.name, func(t *testing.T) {
			m, err := Fit(ref.obs, Options{Scale: ref.scale, OneRound: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				p    Param
			}{{"s", m.Sigma}, {"k", m.Kappa}, {"l", m.Lambda}} {
				want := ref.coef[c.name]
				se := c.p.SE
				if c.name == "l" && ref.scale == Log {
					se *= c.p.Value // R's standard error is of λ, ours of ln λ
				}
				if !near(c.p.Value, want[0], 1e-5, 1e-7) {
					t.Errorf("%s = %.10g, R: %.10g", c.name, c.p.Value, want[0])
				}
				if !near(se, want[1], 1e-3, 0) {
					t.Errorf("se(%s) = %.6g, R: %.6g", c.name, se, want[1])
				}
			}
			if !near(m.RSE, ref.rse, 1e-5, 0) || m.DF != ref.df {
				t.Errorf("residual standard error %.8g on %d df, R: %.8g on %d", m.RSE, m.DF, ref.rse, ref.df)
			}
		})
	}
}

// TestAgreesWithPublishedFits: the estimates the peers publish for their own
// test data — codahale/usl's model_test.go (σ 0.02671591, κ 7.690945e-4,
// λ 995.6486, Levenberg–Marquardt) and smoeding/usl's tests/confint.Rout.save
// for the ray tracer (alpha 0.0578, beta 0, gamma 21.8488).
func TestAgreesWithPublishedFits(t *testing.T) {
	refs := readReferences(t)
	for _, c := range []struct {
		set                  string
		sigma, kappa, lambda float64
		tol                  float64
	}{
		{"codahale", 0.02671591, 7.690945e-4, 995.6486, 1e-5},
		{"raytracer", 0.0578, 0, 21.8488, 1e-3},
	} {
		var ref reference
		for _, r := range refs {
			if r.name == c.set {
				ref = r
			}
		}
		m, err := Fit(ref.obs, Options{Scale: Linear, OneRound: true})
		if err != nil {
			t.Fatal(err)
		}
		if !near(m.Sigma.Value, c.sigma, c.tol, 1e-7) || !near(m.Kappa.Value, c.kappa, c.tol, 1e-7) || !near(m.Lambda.Value, c.lambda, c.tol, 0) {
			t.Errorf("%s: σ %.8g κ %.8g λ %.8g, published %g %g %g", c.set, m.Sigma.Value, m.Kappa.Value, m.Lambda.Value, c.sigma, c.kappa, c.lambda)
		}
	}
}

func near(got, want, rel, abs float64) bool {
	d := math.Abs(got - want)
	return d <= abs || d <= rel*math.Abs(want)
}

// sweep generates rounds of a known model with log-normal noise.
func sweep(r *rand.Rand, sigma, kappa, lambda, noise float64, ns []float64, rounds int) []Observation {
	var obs []Observation
	for _, n := range ns {
		for range rounds {
			x := lambda * n / denominator(sigma, kappa, n) * math.Exp(noise*r.NormFloat64())
			obs = append(obs, Observation{N: n, X: x})
		}
	}
	return obs
}

// TestRecoversKnownModels: sweeps generated from chosen σ, κ, λ with
// multiplicative noise give 95 % intervals that hold the truth at about the
// stated rate (at least 90 % of 300 sweeps per model), and N* and X(N*)'s
// intervals hold the true peak as often when the model has one.
func TestRecoversKnownModels(t *testing.T) {
	threads := []float64{1, 2, 4, 8, 16, 32, 64}
	for _, c := range []struct {
		name                 string
		sigma, kappa, lambda float64
		ns                   []float64
	}{
		{"coherency-limited", 0.05, 0.002, 1000, threads},
		{"contention-limited", 0.08, 0, 500, threads},
		{"both, no point at 1", 0.02, 0.0005, 2000, []float64{2, 4, 8, 16, 32, 48, 64, 96}},
		{"cores", 0.1, 0.01, 300, []float64{1, 2, 3, 4, 6, 8, 12, 16}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(32, uint64(len(c.name))))
			const sweeps = 300
			var hold [5]int
			var fitted, peaks int
			for range sweeps {
				m, err := Fit(sweep(r, c.sigma, c.kappa, c.lambda, 0.05, c.ns, 3), Options{})
				if err != nil {
					t.Fatalf("no model: %v", err)
				}
				fitted++
				in := func(lo, hi, v float64) bool { return lo <= v && v <= hi }
				for i, ok := range []bool{in(m.Sigma.Lo, m.Sigma.Hi, c.sigma), in(m.Kappa.Lo, m.Kappa.Hi, c.kappa), in(m.Lambda.Lo, m.Lambda.Hi, c.lambda)} {
					if ok {
						hold[i]++
					}
				}
				if c.kappa > 0 && m.Peak != nil {
					peaks++
					nStar := math.Sqrt((1 - c.sigma) / c.kappa)
					if in(m.Peak.Lo, m.Peak.Hi, nStar) {
						hold[3]++
					}
					if in(m.PeakX.Lo, m.PeakX.Hi, c.lambda*nStar/denominator(c.sigma, c.kappa, nStar)) {
						hold[4]++
					}
				}
				if m.Sigma.Lo < 0 || m.Kappa.Lo < 0 || m.Lambda.Lo <= 0 {
					t.Fatalf("an interval reaches below zero: %+v %+v %+v", m.Sigma, m.Kappa, m.Lambda)
				}
			}
			t.Logf("held the truth: σ %d, κ %d, λ %d of %d; N* %d, X(N*) %d of %d peaks", hold[0], hold[1], hold[2], fitted, hold[3], hold[4], peaks)
			for i, name := range []string{"σ", "κ", "λ"} {
				if rate := float64(hold[i]) / float64(fitted); rate < 0.90 {
					t.Errorf("%s's interval held the truth in %.0f %% of %d sweeps, want about 95 %%", name, rate*100, fitted)
				}
			}
			if c.kappa > 0 {
				if peaks < sweeps*9/10 {
					t.Errorf("a peak in %d of %d sweeps of a model with κ = %g", peaks, sweeps, c.kappa)
				}
				for i, name := range []string{"N*", "X(N*)"} {
					if rate := float64(hold[3+i]) / float64(peaks); rate < 0.90 {
						t.Errorf("%s's interval held the truth in %.0f %% of %d sweeps", name, rate*100, peaks)
					}
				}
			}
		})
	}
}

// TestNoModel: sweeps that cannot carry a model get a *NoModel with its
// reason, never parameters.
func TestNoModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	threads := []float64{1, 2, 4, 8, 16, 32, 64}
	flat := sweep(r, 0, 0, 1, 0.05, threads, 3)
	for i := range flat {
		flat[i].X = 500 * flat[i].X / flat[i].N // the same 500 at every count, noisy
	}
	zero := sweep(r, 0.05, 0.001, 1000, 0.05, threads, 3)
	zero[7].X = 0
	zigzag := sweep(r, 0, 0, 1, 0.01, []float64{1, 2, 3, 4, 5, 6}, 3)
	for i := range zigzag {
		zigzag[i].X *= 1000 / zigzag[i].N * []float64{1, 3, 1.2, 3.2, 1.4, 3.4}[int(zigzag[i].N)-1]
	}
	for _, c := range []struct {
		name string
		obs  []Observation
		want string
	}{
		{"does not follow the curve", zigzag, "the points do not follow the model (R² = "},
		{"three points", sweep(r, 0.05, 0.001, 1000, 0.05, []float64{1, 2, 4}, 3), "3 distinct counts; a model needs at least 6"},
		{"one round each", sweep(r, 0.05, 0.001, 1000, 0.05, threads, 1), "one round at 1, 2, 4, 8, 16, 32, 64"},
		{"flat", flat, "does not grow"},
		{"all past the peak", sweep(r, 0.05, 0.01, 1000, 0.02, []float64{32, 48, 64, 96, 128, 192}, 3), "starts at or past its peak"},
		{"zero throughput", zero, "a round at 4 has zero throughput"},
		{"noise drowns it", sweep(r, 0.3, 0.05, 1000, 1.5, []float64{1, 2, 3, 4, 5, 6}, 2), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Fit(c.obs, Options{})
			var nm *NoModel
			if !errors.As(err, &nm) {
				t.Fatalf("got a model %+v (err %v), want none", m, err)
			}
			if !strings.Contains(nm.Reason, c.want) {
				t.Errorf("reason %q, want %q", nm.Reason, c.want)
			}
			t.Logf("%s: %v", c.name, err)
		})
	}
}

// TestBadInput: figures no sweep can have are errors, not reasons.
func TestBadInput(t *testing.T) {
	for _, obs := range [][]Observation{{{N: 0, X: 1}}, {{N: 1, X: -1}}, {{N: 1, X: math.NaN()}}, {{N: math.Inf(1), X: 1}}} {
		_, err := Fit(obs, Options{})
		var nm *NoModel
		if err == nil || errors.As(err, &nm) {
			t.Errorf("%+v: err %v, want a plain error", obs, err)
		}
	}
	if _, err := Fit(nil, Options{Confidence: 1.5}); err == nil {
		t.Error("confidence 1.5 accepted")
	}
}

// TestMisfitFlagged: precise rounds along a curve with one systematic bump
// keep their model (R² high) but read as a rough summary.
func TestMisfitFlagged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	obs := sweep(r, 0.05, 0.001, 1000, 0.005, []float64{1, 2, 4, 8, 16, 32, 64}, 3)
	for i := range obs {
		if obs[i].N == 8 {
			obs[i].X *= 1.08
		}
	}
	m, err := Fit(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Misfit || !(m.LackOfFitP < MisfitAlpha) || m.R2 < MinMisfitR2 {
		t.Fatalf("misfit %v, lack-of-fit p %g, R² %g: want a flagged fit", m.Misfit, m.LackOfFitP, m.R2)
	}
	if got := m.Reading("threads", "tps"); !strings.Contains(got, "a rough summary: the points depart from the curve by up to ") {
		t.Errorf("reading %q does not say it is rough", got)
	}
	clean, err := Fit(sweep(r, 0.05, 0.001, 1000, 0.005, []float64{1, 2, 4, 8, 16, 32, 64}, 3), Options{})
	if err != nil || clean.Misfit {
		t.Errorf("a sweep of the model itself: err %v, misfit %v (p %g)", err, clean != nil && clean.Misfit, clean.LackOfFitP)
	}
}
