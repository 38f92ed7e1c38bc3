// Package bytesize reads and prints sizes in bytes as configuration files and
// flags spell them: "64M" (my.cnf, binary), "500MB" (SI), "2GiB", "1048576".
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Byte multiples.
const (
	KiB = int64(1) << 10
	MiB = int64(1) << 20
	GiB = int64(1) << 30
	TiB = int64(1) << 40
)

// sizeUnit returns the multiple of a lower-cased unit. Single letters and the
// IEC names are binary, as in my.cnf ("128M"); KB, MB, GB and TB are SI.
func sizeUnit(unit string) (int64, bool) {
	switch unit {
	case "", "b":
		return 1, true
	case "k", "kib":
		return KiB, true
	case "m", "mib":
		return MiB, true
	case "g", "gib":
		return GiB, true
	case "t", "tib":
		return TiB, true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	}
	return 0, false
}

// Parse parses a size such as "2GiB", "500MB", "64M", "1.5GiB" or
// "1048576". K, M, G, T and KiB, MiB, GiB, TiB are powers of 1024; KB, MB, GB
// and TB are powers of 1000. Units are case-insensitive.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnit(unit)
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q: give a number with a unit, for example 2GiB, 500MB or 64M", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: give a number with a unit, for example 2GiB, 500MB or 64M", s)
	}
	bytes := f * float64(mult)
	if bytes > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(math.Round(bytes)), nil
}

// Format writes n for people: exactly when the largest unit it reaches
// divides it ("1 GiB") or the next smaller one gives a short number ("1280
// MiB"), else to one decimal ("31.7 GiB").
func Format(n int64) string {
	units := []struct {
		mult int64
		name string
	}{{TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}, {1, "B"}}
	for i, u := range units {
		if n < u.mult && u.mult > 1 {
			continue
		}
		if n%u.mult == 0 {
			return fmt.Sprintf("%d %s", n/u.mult, u.name)
		}
		if v := units[i+1]; n%v.mult == 0 && n/v.mult < 10240 {
			return fmt.Sprintf("%d %s", n/v.mult, v.name)
		}
		return fmt.Sprintf("%.1f %s", float64(n)/float64(u.mult), u.name)
	}
	return fmt.Sprintf("%d B", n)
}
