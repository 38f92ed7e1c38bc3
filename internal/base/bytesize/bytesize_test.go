package bytesize

import (
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{in: "2GiB", want: 2 * GiB},
		{in: "2gib", want: 2 * GiB},
		{in: "500MB", want: 500_000_000},
		{in: "64M", want: 64 * MiB},
		{in: "1.5GiB", want: 3 * GiB / 2},
		{in: " 1048576 ", want: MiB},
		{in: "1T", want: TiB},
		{in: "10kb", want: 10_000},
		{in: "7B", want: 7},
		{in: "", err: "give a number with a unit"},
		{in: "GiB", err: "give a number with a unit"},
		{in: "2 parsecs", err: `invalid size "2 parsecs"`},
		{in: "1.2.3G", err: "invalid size"},
		{in: "-1G", err: "invalid size"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %d, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{GiB, "1 GiB"},
		{1280 * MiB, "1280 MiB"},
		{3 * GiB / 2, "1536 MiB"},
		{GiB + 1, "1.0 GiB"},
		{34e9, "31.7 GiB"},
		{24684092 * KiB, "23.5 GiB"},
		{40576 * MiB, "39.6 GiB"},
		{9824 * MiB, "9824 MiB"},
		{1536, "1536 B"},
		{0, "0 B"},
		{4096, "4 KiB"},
		{100, "100 B"},
		{2 * TiB, "2 TiB"},
	} {
		if got := Format(tc.in); got != tc.want {
			t.Errorf("Format(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
