package localserver

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
		{in: "2GiB", want: 2 * gib},
		{in: "2gib", want: 2 * gib},
		{in: "500MB", want: 500_000_000},
		{in: "64M", want: 64 * mib},
		{in: "1.5GiB", want: 3 * gib / 2},
		{in: " 1048576 ", want: mib},
		{in: "1T", want: tib},
		{in: "10kb", want: 10_000},
		{in: "7B", want: 7},
		{in: "", err: "give a number with a unit"},
		{in: "GiB", err: "give a number with a unit"},
		{in: "2 parsecs", err: `invalid size "2 parsecs"`},
		{in: "1.2.3G", err: "invalid size"},
		{in: "-1G", err: "invalid size"},
	} {
		got, err := ParseBytes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBytes(%q) = %d, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{gib, "1 GiB"},
		{1280 * mib, "1280 MiB"},
		{3 * gib / 2, "1536 MiB"},
		{gib + 1, "1.0 GiB"},
		{34e9, "31.7 GiB"},
		{24684092 * kib, "23.5 GiB"},
		{40576 * mib, "39.6 GiB"},
		{9824 * mib, "9824 MiB"},
		{1536, "1536 B"},
		{0, "0 B"},
		{4096, "4 KiB"},
		{100, "100 B"},
		{2 * tib, "2 TiB"},
	} {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestServerSizeFormats(t *testing.T) {
	for _, tc := range []struct {
		in        int64
		mysql, pg string
	}{
		{2 * gib, "2G", "2GB"},
		{320 * mib, "320M", "320MB"},
		{1536 * kib, "1572864", "1536kB"},
	} {
		if got := mysqlSize(tc.in); got != tc.mysql {
			t.Errorf("mysqlSize(%d) = %q, want %q", tc.in, got, tc.mysql)
		}
		if got := pgSize(tc.in); got != tc.pg {
			t.Errorf("pgSize(%d) = %q, want %q", tc.in, got, tc.pg)
		}
	}
}

func TestMachineMemory(t *testing.T) {
	if machineMemory() <= 0 {
		t.Errorf("machineMemory() found no memory on this machine")
	}
}

func TestPGMajorVersion(t *testing.T) {
	for in, want := range map[string]string{
		"postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)": "15",
		"postgres (PostgreSQL) 9.6.24":                         "9.6",
		"postgres (PostgreSQL) 17beta1":                        "17",
		"something else":                                       "",
	} {
		if got := pgMajorVersion(in); got != want {
			t.Errorf("pgMajorVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
