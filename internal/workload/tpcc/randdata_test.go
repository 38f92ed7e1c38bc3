package tpcc

import (
	"strings"
	"testing"
)

func TestLastName(t *testing.T) {
	cases := []struct {
		n    int64
		want string
	}{
		{0, "BARBARBAR"},
		{371, "PRICALLYOUGHT"}, // the example of clause 4.3.2.3
		{40, "BARPRESBAR"},
		{999, "EINGEINGEING"},
		{123, "OUGHTABLEPRI"},
		{508, "ESEBARATION"},
	}
	for _, c := range cases {
		if got := lastName(c.n); got != c.want {
			t.Errorf("lastName(%d) = %q, want %q", c.n, got, c.want)
		}
		if got := string(appendLastName(nil, c.n)); got != c.want {
			t.Errorf("appendLastName(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestNURandRangeAndShape(t *testing.T) {
	rng := testFactory(t).Source(1)
	cases := []struct {
		a, c, x, y int64
	}{
		{255, 157, 0, 999},      // C_LAST
		{1023, 259, 1, 3000},    // C_ID
		{8191, 7911, 1, 100000}, // OL_I_ID
	}
	for _, tc := range cases {
		const draws = 200000
		counts := make(map[int64]int)
		for i := 0; i < draws; i++ {
			v := rng.NURand(tc.a, tc.c, tc.x, tc.y)
			if v < tc.x || v > tc.y {
				t.Fatalf("NURand(%d, %d, %d, %d) = %d, outside the range", tc.a, tc.c, tc.x, tc.y, v)
			}
			counts[v]++
		}
		// Non-uniform: the most frequent value is drawn far more often than the
		// uniform mean, and the values cover much of the range.
		maxCount := 0
		for _, n := range counts {
			maxCount = max(maxCount, n)
		}
		mean := float64(draws) / float64(tc.y-tc.x+1)
		if float64(maxCount) < 3*mean {
			t.Errorf("NURand(%d, …, %d, %d): most frequent value drawn %d times, uniform mean %.1f: not skewed", tc.a, tc.x, tc.y, maxCount, mean)
		}
		if min(int64(draws), tc.y-tc.x+1)/4 > int64(len(counts)) {
			t.Errorf("NURand(%d, …, %d, %d): only %d distinct values in %d draws", tc.a, tc.x, tc.y, len(counts), draws)
		}
	}
}

func TestTextGenerators(t *testing.T) {
	g := testPopulation(t).text(genItem, 0)
	originals := 0
	const n = 20000
	for i := 0; i < n; i++ {
		s := g.aString(14, 24).(string)
		if len(s) < 14 || len(s) > 24 || strings.Trim(s, alphanumerics) != "" {
			t.Fatalf("aString(14, 24) = %q", s)
		}
		d := g.data().(string)
		if len(d) < 26 || len(d) > 50 {
			t.Fatalf("data() = %q: length %d outside 26..50", d, len(d))
		}
		if strings.Contains(d, original) {
			originals++
		}
		if z := g.zip().(string); len(z) != 9 || !strings.HasSuffix(z, "11111") || strings.Trim(z, "0123456789") != "" {
			t.Fatalf("zip() = %q", z)
		}
		if p := g.nString(16, 16).(string); len(p) != 16 || strings.Trim(p, "0123456789") != "" {
			t.Fatalf("nString(16, 16) = %q", p)
		}
	}
	if share := float64(originals) / n; share < 0.09 || share > 0.11 {
		t.Errorf("%.1f%% of data strings hold ORIGINAL, want about 10%%", share*100)
	}
}
