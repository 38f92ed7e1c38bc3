package sysbenchout

import "testing"

// TestOrdinal spells percentiles as sysbench's latency section does.
func TestOrdinal(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"1", "1st"}, {"2", "2nd"}, {"3", "3rd"}, {"4", "4th"},
		{"11", "11th"}, {"12", "12th"}, {"13", "13th"},
		{"21", "21st"}, {"52", "52nd"}, {"63", "63rd"},
		{"95", "95th"}, {"99", "99th"}, {"99.9", "99.9th"}, {"99.99", "99.99th"},
	} {
		if got := ordinal(tc.key); got != tc.want {
			t.Errorf("ordinal(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

// TestMainPercentile is the interval lines' percentile: 95 when asked for,
// else the largest.
func TestMainPercentile(t *testing.T) {
	for _, tc := range []struct {
		pcts []float64
		want float64
	}{
		{[]float64{95}, 95},
		{[]float64{50, 95, 99}, 95},
		{[]float64{50, 99, 99.9}, 99.9},
		{[]float64{50}, 50},
	} {
		if got := MainPercentile(tc.pcts); got != tc.want {
			t.Errorf("MainPercentile(%v) = %v, want %v", tc.pcts, got, tc.want)
		}
	}
}
