package driver

import (
	"errors"
	"strings"
	"testing"
)

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
		p, err := ParseErrorPolicy(tc.spec, defaults, nil)
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

// Each code goes through the driver's check, upper-cased; all and none do not.
func TestParseErrorPolicyChecksCodes(t *testing.T) {
	var seen []string
	check := func(c string) error {
		seen = append(seen, c)
		if c == "BAD" {
			return errors.New(`"BAD" is not a code`)
		}
		return nil
	}
	if _, err := ParseErrorPolicy("1213, 40p01", nil, check); err != nil || strings.Join(seen, ",") != "1213,40P01" {
		t.Errorf("good codes: err %v, checked %q", err, seen)
	}
	for _, spec := range []string{"all", "none", "ALL", ""} {
		if _, err := ParseErrorPolicy(spec, nil, check); err != nil {
			t.Errorf("%q: %v", spec, err)
		}
	}
	_, err := ParseErrorPolicy("1213,bad", nil, check)
	if err == nil || !strings.Contains(err.Error(), `"BAD" is not a code; or all, or none`) {
		t.Errorf("bad code: err %v", err)
	}
}
