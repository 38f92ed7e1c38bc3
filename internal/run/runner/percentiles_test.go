package runner

import (
	"slices"
	"strings"
	"testing"
)

func TestParsePercentileList(t *testing.T) {
	tests := []struct {
		in      string
		want    []float64
		wantErr string
	}{
		{in: "95", want: []float64{95}},
		{in: "99.9, 50,95", want: []float64{50, 95, 99.9}},
		{in: "100", want: []float64{100}},
		{in: "", wantErr: "the list is empty"},
		{in: "  ", wantErr: "the list is empty"},
		{in: "50,,99", wantErr: "element 2 of 3 is empty"},
		{in: "50,99,", wantErr: "element 3 of 3 is empty"},
		{in: ",50", wantErr: "element 1 of 2 is empty"},
		{in: "50, ,99", wantErr: "element 2 of 3 is empty"},
		{in: "0", wantErr: `"0" is not a percentile`},
		{in: "101", wantErr: `"101" is not a percentile`},
		{in: "NaN", wantErr: `"NaN" is not a percentile`},
		{in: "p95", wantErr: `"p95" is not a percentile`},
		{in: "95,95.0", wantErr: "percentile 95 is given twice"},
	}
	for _, tc := range tests {
		got, err := ParsePercentileList(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParsePercentileList(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParsePercentileList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
