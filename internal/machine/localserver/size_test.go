package localserver

import (
	"testing"

	"github.com/fairbench/fairbench/internal/base/bytesize"
)

func TestServerSizeFormats(t *testing.T) {
	for _, tc := range []struct {
		in        int64
		mysql, pg string
	}{
		{2 * bytesize.GiB, "2G", "2GB"},
		{320 * bytesize.MiB, "320M", "320MB"},
		{1536 * bytesize.KiB, "1572864", "1536kB"},
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
