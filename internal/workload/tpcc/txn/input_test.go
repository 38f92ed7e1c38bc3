package txn

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestLastName(t *testing.T) {
	cases := []struct {
		n    int
		want string
	}{
		{0, "BARBARBAR"},
		{371, "PRICALLYOUGHT"}, // the example of clause 4.3.2.3
		{999, "EINGEINGEING"},
		{40, "BARPRESBAR"},
	}
	for _, tc := range cases {
		if got := LastName(tc.n); got != tc.want {
			t.Errorf("LastName(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestMiddle(t *testing.T) {
	for n, want := range map[int]int{1: 0, 2: 0, 3: 1, 4: 1, 5: 2, 6: 2, 7: 3} {
		if got := middle(n); got != want {
			t.Errorf("middle(%d) = %d, want %d (ceil(n/2)-th, 0-based)", n, got, want)
		}
	}
}

// Clause 2.1.6.1: C_run for C_LAST keeps a distance of 65..119 (not 96 or
// 112) from C_LOAD; the other constants stay within their ranges.
func TestRunConstants(t *testing.T) {
	seen := map[int64]bool{}
	for cLoad := int64(0); cLoad <= 255; cLoad++ {
		rc := newRunConstants(cLoad)
		delta := rc.cLast - cLoad
		if delta < 0 {
			delta = -delta
		}
		if rc.cLast < 0 || rc.cLast > 255 || !lastDeltaOK(delta) {
			t.Fatalf("C_LOAD %d: C_RUN %d (delta %d) breaks clause 2.1.6.1", cLoad, rc.cLast, delta)
		}
		if rc.cID < 0 || rc.cID > 1023 || rc.olIID < 0 || rc.olIID > 8191 {
			t.Fatalf("C_LOAD %d: C_ID %d or OL_I_ID %d out of range", cLoad, rc.cID, rc.olIID)
		}
		if newRunConstants(cLoad) != rc {
			t.Fatal("run constants differ between workers of one run")
		}
		seen[delta] = true
	}
	if len(seen) < 20 {
		t.Fatalf("only %d distinct deltas over all C_LOAD values", len(seen))
	}
	for _, d := range []int64{64, 96, 112, 120} {
		if lastDeltaOK(d) {
			t.Errorf("delta %d accepted", d)
		}
	}
}

// Over 10,000 draws each transaction's share is within 4.5 standard
// deviations of its weight, and a zero weight is never drawn.
func TestMixMatchesWeights(t *testing.T) {
	cases := []struct {
		name string
		mix  [numKinds]int
	}{
		{"default", defaultMix},
		{"payment heavy", [numKinds]int{10, 70, 0, 10, 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const draws = 10000
			m := newMixTable(tc.mix)
			rng := testSource(t, 42)
			var got [numKinds]int
			for range draws {
				got[m.draw(rng)]++
			}
			total := 0
			for _, w := range tc.mix {
				total += w
			}
			for k, w := range tc.mix {
				p := float64(w) / float64(total)
				want := p * draws
				sd := math.Sqrt(draws * p * (1 - p))
				if math.Abs(float64(got[k])-want) > 4.5*sd || (w == 0 && got[k] != 0) {
					t.Errorf("%s drawn %d times, want %.0f ± %.0f", Kinds[k], got[k], want, 4.5*sd)
				}
			}
		})
	}
}

// Think times follow the negative exponential of clause 5.2.5.4: mean µ,
// P(T > µ) = 1/e, never above 10 µ.
func TestThinkTimeDistribution(t *testing.T) {
	const n = 100000
	mean := 12 * time.Second
	rng := testSource(t, 5)
	var sum float64
	over := 0
	for range n {
		d := thinkTime(rng, mean)
		if d < 0 || d > 10*mean {
			t.Fatalf("think time %v outside [0, 10µ]", d)
		}
		sum += float64(d)
		if d > mean {
			over++
		}
	}
	if got := sum / n / float64(mean); math.Abs(got-1) > 0.02 {
		t.Errorf("mean think time %.3f µ, want 1 µ", got)
	}
	if got := float64(over) / n; math.Abs(got-1/math.E) > 0.01 {
		t.Errorf("P(T > µ) = %.3f, want 1/e", got)
	}
}

func TestAppendCData(t *testing.T) {
	old := []byte(strings.Repeat("y", 500))
	got := appendCData(nil, 2999, 3, 1, 7, 1, 1234.5, old)
	if want := "2999 3 1 7 1 1234.50 | yyy"; !strings.HasPrefix(string(got), want) {
		t.Fatalf("c_data starts %q, want %q", got[:30], want)
	}
	if len(got) != maxCData {
		t.Fatalf("c_data has %d characters, want %d", len(got), maxCData)
	}
	if short := appendCData(nil, 1, 1, 1, 1, 1, 1, []byte("old")); string(short) != "1 1 1 1 1 1.00 | old" {
		t.Fatalf("short c_data = %q", short)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"ok", Config{Warehouses: 1, Mix: defaultMix, CLoad: 100}, ""},
		{"no warehouses", Config{Mix: defaultMix}, "--warehouses"},
		{"empty mix", Config{Warehouses: 1}, "no weight"},
		{"negative weight", Config{Warehouses: 1, Mix: [numKinds]int{-1, 1, 0, 0, 0}}, "negative"},
		{"bad C_LOAD", Config{Warehouses: 1, Mix: defaultMix, CLoad: 300}, "C_LOAD"},
	}
	for _, tc := range cases {
		err := tc.cfg.validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: validate() = %v, want %q", tc.name, err, tc.want)
		}
	}
}
