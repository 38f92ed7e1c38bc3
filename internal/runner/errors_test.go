package runner

import "testing"

func TestParseErrorPolicy(t *testing.T) {
	defaults := []string{"1213", "1020", "1205"}
	cases := []struct {
		spec    string
		ignores map[string]bool
		str     string
		wantErr bool
	}{
		{"", map[string]bool{"1213": true, "1205": true, "1062": false, "": false}, "1020,1205,1213", false},
		{"all", map[string]bool{"1062": true, "anything": true}, "all", false},
		{"none", map[string]bool{"1213": false}, "none", false},
		{"1062, 1213", map[string]bool{"1062": true, "1213": true, "1205": false}, "1062,1213", false},
		{"40p01", map[string]bool{"40P01": true}, "40P01", false},
		{"1213,,1205", nil, "", true},
	}
	for _, tc := range cases {
		p, err := ParseErrorPolicy(tc.spec, defaults)
		if (err != nil) != tc.wantErr {
			t.Fatalf("ParseErrorPolicy(%q) error = %v", tc.spec, err)
		}
		if err != nil {
			continue
		}
		for code, want := range tc.ignores {
			if got := p.Ignores(code); got != want {
				t.Errorf("%q: Ignores(%q) = %v, want %v", tc.spec, code, got, want)
			}
		}
		if got := p.String(); got != tc.str {
			t.Errorf("%q: String() = %q, want %q", tc.spec, got, tc.str)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Threads: 1, Duration: 1, Percentiles: []float64{95}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Config{
		{Threads: 0, Duration: 1},
		{Threads: 1},
		{Threads: 1, Duration: 1, Rate: -1},
		{Threads: 1, Duration: 1, Percentiles: []float64{0}},
		{Threads: 1, Duration: 1, Percentiles: []float64{100.5}},
		{Threads: 1, Events: -1, Duration: 1},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted a bad configuration", c)
		}
	}
}
