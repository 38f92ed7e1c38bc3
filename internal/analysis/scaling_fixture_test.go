package analysis

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestScalingOfFixtures renders compare's text of the committed sweeps of
// testdata/scaling against golden files: threads/ (a real sweep of 8 thread
// counts × 3 rounds on a busy 2-CPU machine) and cores/ (a core sweep of 8
// CPU sets generated from σ = 0.05, κ = 0.002, λ = 910.7 with 3 %
// log-normal noise: its README), and checks that the generated sweep's
// model holds the truth it was generated from.
func TestScalingOfFixtures(t *testing.T) {
	for _, set := range []string{"threads", "cores"} {
		t.Run(set, func(t *testing.T) {
			s, err := Load(filepath.Join("testdata", "scaling", set), set)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Compare([]*System{s}, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteText(&b, c); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "scaling_"+set+".txt", b.Bytes())
			if len(c.Scaling) == 0 {
				t.Fatalf("no scalability section:\n%s", b.String())
			}
			ss := c.Scaling[len(c.Scaling)-1]
			f := ss.Fits[0]
			if set == "threads" {
				if ss.Over != SweepThreads || f.Points != 8 || f.Rounds != 24 {
					t.Errorf("section over %s with %d points, %d rounds; want threads, 8, 24", ss.Over, f.Points, f.Rounds)
				}
				if f.Model == nil && f.NoModel == "" {
					t.Error("neither a model nor a reason")
				}
				return
			}
			m := f.Model
			if ss.Over != SweepCPUs || m == nil {
				t.Fatalf("section over %s, model %v (%s)", ss.Over, m, f.NoModel)
			}
			in := func(lo, hi, v float64) bool { return lo <= v && v <= hi }
			if !in(m.Sigma.Lo, m.Sigma.Hi, 0.05) || !in(m.Kappa.Lo, m.Kappa.Hi, 0.002) || !in(m.Lambda.Lo, m.Lambda.Hi, 910.7) {
				t.Errorf("the intervals miss the generating model: σ %+v κ %+v λ %+v", m.Sigma, m.Kappa, m.Lambda)
			}
			if m.Peak == nil || !in(m.Peak.Lo, m.Peak.Hi, 21.8) || !m.PeakBeyond || !in(m.PeakX.Lo, m.PeakX.Hi, 6737) {
				t.Errorf("peak %+v (beyond %v) at %+v; want N* 21.8 beyond the sweep at 6,737 tps", m.Peak, m.PeakBeyond, m.PeakX)
			}
			for _, w := range []string{"scalability by server CPUs", "coherency-limited", "N* ≈ 21 CPUs", "an extrapolation"} {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the text lacks %q", w)
				}
			}
		})
	}
}
