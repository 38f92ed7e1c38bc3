package mysql

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEscapedText(t *testing.T) {
	for _, tc := range []struct {
		in, tsv, literal string
	}{
		{"", "", "''"},
		{"plain ASCII 123", "plain ASCII 123", "'plain ASCII 123'"},
		{"a\tb\nc\rd\\e\x00f", `a\tb\nc\rd\\e\0f`, "'a\tb\\nc\\rd\\\\e\\0f'"},
		{"it's \x1a", "it's \x1a", `'it\'s \Z'`},
		{"\t\t", `\t\t`, "'\t\t'"},
		{"ends with \\", `ends with \\`, `'ends with \\'`},
		{"ünïcödé", "ünïcödé", "'ünïcödé'"},
	} {
		if got := string(appendTSVText([]byte("x"), tc.in)); got != "x"+tc.tsv {
			t.Errorf("appendTSVText(%q) = %q, want %q", tc.in, got, "x"+tc.tsv)
		}
		if got := string(appendQuoted(nil, tc.in)); got != tc.literal {
			t.Errorf("appendQuoted(%q) = %q, want %q", tc.in, got, tc.literal)
		}
	}
}

// TestEscapedTextMatchesByteByByte checks the run-copying escape (eight bytes
// at a time) against the plain definition, every byte on its own, on random text.
func TestEscapedTextMatchesByteByByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		// Mostly letters (whole clean words), a few bytes of every class.
		b := make([]byte, rng.IntN(60))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
			if rng.IntN(8) == 0 {
				b[i] = "\t\n\r\\\x00'\x1a\xff\x01 ~\x7f"[rng.IntN(12)]
			}
		}
		s := string(b)
		for _, esc := range []*[256]byte{&tsvEscapes, &literalEscapes} {
			var want strings.Builder
			for i := 0; i < len(s); i++ {
				if e := esc[s[i]]; e != 0 {
					want.WriteByte('\\')
					want.WriteByte(e)
				} else {
					want.WriteByte(s[i])
				}
			}
			if got := string(appendEscaped(nil, s, esc)); got != want.String() {
				t.Fatalf("appendEscaped(%q) = %q, want %q", s, got, want.String())
			}
		}
	}
}

// TestAppendTimeMatchesAppendFormat checks the DATETIME appender against
// time.Time.AppendFormat with timeLayout, which it replaces.
func TestAppendTimeMatchesAppendFormat(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 11, 27, 4, 5, 6, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 1000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 999, time.UTC), // below a microsecond: no fraction
		time.Date(2026, 6, 30, 23, 0, 0, 500000000, time.FixedZone("X", 5*3600+1800)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), // outside 0-9999: AppendFormat's own
		time.Date(-5, 3, 1, 0, 0, 0, 0, time.UTC),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(253402300800), rng.Int64N(1e9)).UTC())
	}
	for _, tm := range times {
		want := tm.AppendFormat([]byte("x"), timeLayout)
		if got := appendTime([]byte("x"), tm); string(got) != string(want) {
			t.Fatalf("appendTime(%v) = %q, want %q", tm, got, want)
		}
	}
}

func BenchmarkAppendTSVText(b *testing.B) {
	s := strings.Repeat("abcdefghij", 6)
	buf := make([]byte, 0, 128)
	for b.Loop() {
		buf = appendTSVText(buf[:0], s)
	}
}

func BenchmarkAppendTime(b *testing.B) {
	tm := time.Date(2026, 11, 27, 4, 5, 6, 0, time.UTC)
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = appendTime(buf[:0], tm)
	}
}

// TestAppendFloatMatchesStrconv checks the decimal fast path against
// strconv's shortest formatting, which it must equal for every double.
func TestAppendFloatMatchesStrconv(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.0001, 0.00005, 12.34, -10, 300000, 0.2,
		1e11, 1e11 - 0.0001, 99999999999.9999, 1e15, 123456789012.5, math.MaxFloat64, math.SmallestNonzeroFloat64,
		-0.0001, 1.0000000000000002, 0.30000000000000004}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		d := rng.IntN(7)
		k := rng.Int64N(int64(math.Pow10(rng.IntN(16)))) - rng.Int64N(1000)
		xs = append(xs, float64(k)/math.Pow10(d), math.Float64frombits(rng.Uint64()))
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		want := strconv.AppendFloat([]byte("x"), x, 'f', -1, 64)
		if got := appendFloat([]byte("x"), x); string(got) != string(want) {
			t.Fatalf("appendFloat(%v) = %q, want %q", x, got, want)
		}
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = appendFloat(buf[:0], float64(i%10000)/100)
	}
}
