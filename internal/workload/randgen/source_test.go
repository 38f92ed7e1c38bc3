package randgen

import (
	"fmt"
	"math"
	"testing"
)

// drawFunc names one of a Source's integer distributions.
type drawFunc struct {
	name string
	draw func(s *Source, a, b int64) int64
}

// allDraws lists every integer-producing method.
func allDraws() []drawFunc {
	return []drawFunc{
		{"Uniform", (*Source).Uniform},
		{"Gaussian", (*Source).Gaussian},
		{"Special", (*Source).Special},
		{"Pareto", (*Source).Pareto},
		{"Zipfian", (*Source).Zipfian},
		{"Default", (*Source).Default},
	}
}

func TestXoshiro256StarStarReferenceOutputs(t *testing.T) {
	// Outputs of the reference xoshiro256** for the state {1, 2, 3, 4}.
	s := &Source{s0: 1, s1: 2, s2: 3, s3: 4}
	want := []uint64{11520, 0, 1509978240, 1215971899390074240, 1216172134540287360, 607988272756665600}
	for i, w := range want {
		if got := s.Uint64(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

func TestSameSeedAndStreamRepeat(t *testing.T) {
	for _, typ := range Types() {
		t.Run(typ, func(t *testing.T) {
			f1 := mustFactory(t, seededConfig(typ))
			f2 := mustFactory(t, seededConfig(typ))
			for _, stream := range []uint64{0, 1, 7, math.MaxUint64} {
				a, b := f1.Source(stream), f2.Source(stream)
				for i := range 1000 {
					x, y := a.Default(1, 10000), b.Default(1, 10000)
					if x != y {
						t.Fatalf("stream %d draw %d: %d != %d", stream, i, x, y)
					}
				}
			}
		})
	}
}

func TestStreamsAndSeedsDiffer(t *testing.T) {
	const draws = 64
	seq := func(f *Factory, stream uint64) [draws]uint64 {
		s := f.Source(stream)
		var out [draws]uint64
		for i := range out {
			out[i] = s.Uint64()
		}
		return out
	}
	seen := map[[draws]uint64]string{}
	check := func(label string, v [draws]uint64) {
		if prev, dup := seen[v]; dup {
			t.Fatalf("%s repeats the sequence of %s", label, prev)
		}
		seen[v] = label
	}
	for _, seed := range []uint64{0, 1, 2, 3, 1 << 32, math.MaxUint64} {
		cfg := seededConfig(TypeUniform)
		cfg.Seed = seed
		f := mustFactory(t, cfg)
		for stream := range uint64(16) {
			check(fmt.Sprintf("seed %d stream %d", seed, stream), seq(f, stream))
		}
	}
	// Neighbouring streams are not merely shifted copies: their first draws agree
	// no more often than chance (a shifted copy would agree on 63 of 64 words).
	f := mustFactory(t, seededConfig(TypeUniform))
	a, b := seq(f, 0), seq(f, 1)
	for shift := range draws / 2 {
		same := 0
		for i := 0; i+shift < draws; i++ {
			if a[i+shift] == b[i] || b[i+shift] == a[i] {
				same++
			}
		}
		if same > 0 {
			t.Fatalf("streams 0 and 1 share %d words at shift %d", same, shift)
		}
	}
}

func TestFloat64InUnitInterval(t *testing.T) {
	s := mustFactory(t, seededConfig(TypeUniform)).Source(0)
	lo, hi := 1.0, 0.0
	for range 100000 {
		u := s.Float64()
		if !(u >= 0 && u < 1) {
			t.Fatalf("Float64() = %v, outside [0,1)", u)
		}
		lo, hi = min(lo, u), max(hi, u)
	}
	if lo > 0.001 || hi < 0.999 {
		t.Fatalf("100000 draws spanned only [%v, %v]", lo, hi)
	}
}

func TestEveryDrawWithinBounds(t *testing.T) {
	ranges := []struct{ a, b int64 }{
		{1, 1}, {0, 0}, {-7, -7}, {math.MaxInt64, math.MaxInt64}, {math.MinInt64, math.MinInt64},
		{1, 2}, {0, 1}, {1, 3}, {1, 10}, {1, 100}, {1, 10000}, {5, 17},
		{-100, -1}, {-50, 50}, {1, 1 << 31}, {0, 1 << 53}, {1, math.MaxInt64},
		{math.MinInt64, math.MaxInt64}, {math.MinInt64, 0}, {math.MaxInt64 - 3, math.MaxInt64},
	}
	// Parameters at their edges as well as the defaults.
	configs := []func(*Config){
		func(*Config) {},
		func(c *Config) { c.SpecialIter, c.SpecialPct, c.SpecialRes = 1, 0, 0 },
		func(c *Config) { c.SpecialIter, c.SpecialPct, c.SpecialRes = 3, 100, 100 },
		func(c *Config) { c.ParetoH, c.ZipfianExp = 0.999, 0 },
		func(c *Config) { c.ParetoH, c.ZipfianExp = 0.001, 1 },
		func(c *Config) { c.ZipfianExp = 5 },
	}
	const draws = 2000
	for ci, modify := range configs {
		cfg := seededConfig(TypeUniform)
		modify(&cfg)
		for _, d := range allDraws() {
			for _, r := range ranges {
				cfg.Type = Types()[ci%len(Types())]
				s := mustFactory(t, cfg).Source(uint64(ci))
				for range draws {
					if v := d.draw(s, r.a, r.b); v < r.a || v > r.b {
						t.Fatalf("config %d %s(%d, %d) = %d, outside the range", ci, d.name, r.a, r.b, v)
					}
					// Reversed bounds are swapped.
					if v := d.draw(s, r.b, r.a); v < r.a || v > r.b {
						t.Fatalf("config %d %s(%d, %d) = %d, outside the range", ci, d.name, r.b, r.a, v)
					}
				}
			}
		}
	}
}

func TestSmallRangesReachEveryValue(t *testing.T) {
	for _, d := range allDraws() {
		if d.name == "Special" || d.name == "Gaussian" {
			continue // concentrated in the middle: ends are rare by design
		}
		s := mustFactory(t, seededConfig(TypeZipfian)).Source(3)
		seen := map[int64]bool{}
		for range 20000 {
			seen[d.draw(s, -2, 2)] = true
		}
		if len(seen) != 5 {
			t.Errorf("%s(-2, 2) produced only %v", d.name, seen)
		}
	}
}

func TestDefaultDispatchesToTheConfiguredType(t *testing.T) {
	methods := map[string]func(s *Source, a, b int64) int64{
		TypeUniform: (*Source).Uniform, TypeGaussian: (*Source).Gaussian, TypeSpecial: (*Source).Special,
		TypePareto: (*Source).Pareto, TypeZipfian: (*Source).Zipfian,
	}
	for _, typ := range Types() {
		f := mustFactory(t, seededConfig(typ))
		viaDefault, direct := f.Source(9), f.Source(9)
		for i := range 1000 {
			if x, y := viaDefault.Default(1, 1000), methods[typ](direct, 1, 1000); x != y {
				t.Fatalf("%s draw %d: Default gave %d, the method gave %d", typ, i, x, y)
			}
		}
	}
}

func TestString(t *testing.T) {
	s := mustFactory(t, seededConfig(TypeUniform)).Source(0)
	const tmpl = "###########-@@@@@@@@@@@-x#y@z"
	prefix := []byte("prefix:")
	digits, letters := map[byte]bool{}, map[byte]bool{}
	for range 2000 {
		out := s.String(append([]byte(nil), prefix...), tmpl)
		if string(out[:len(prefix)]) != string(prefix) {
			t.Fatalf("String overwrote dst: %q", out)
		}
		got := out[len(prefix):]
		if len(got) != len(tmpl) {
			t.Fatalf("String appended %d bytes, want %d", len(got), len(tmpl))
		}
		for i := range len(tmpl) {
			c := got[i]
			switch tmpl[i] {
			case '#':
				if c < '0' || c > '9' {
					t.Fatalf("position %d = %q, want a digit", i, c)
				}
				digits[c] = true
			case '@':
				if c < 'a' || c > 'z' {
					t.Fatalf("position %d = %q, want a lowercase letter", i, c)
				}
				letters[c] = true
			default:
				if c != tmpl[i] {
					t.Fatalf("position %d = %q, want the literal %q", i, c, tmpl[i])
				}
			}
		}
	}
	if len(digits) != 10 || len(letters) != 26 {
		t.Fatalf("saw %d distinct digits and %d letters, want 10 and 26", len(digits), len(letters))
	}
	if got := s.String(nil, ""); len(got) != 0 {
		t.Fatalf("empty template gave %q", got)
	}
}

// TestStringIsFloat64PerCharacter pins String to its definition: one Float64
// per '#' ('0'+⌊10U⌋) or '@' ('a'+⌊26U⌋), in template order, leaving the source
// where those draws leave it, so that a faster String never changes the data
// loaded for a seed.
func TestStringIsFloat64PerCharacter(t *testing.T) {
	f := mustFactory(t, seededConfig(TypeUniform))
	const tmpl = "###########-@@@@@@@@@@@-x#y@z"
	for stream := range uint64(50) {
		fast, ref := f.Source(stream), f.Source(stream)
		for range 100 {
			got := fast.String(nil, tmpl)
			want := []byte(tmpl)
			for i, c := range want {
				switch c {
				case '#':
					want[i] = '0' + byte(ref.Float64()*10)
				case '@':
					want[i] = 'a' + byte(ref.Float64()*26)
				}
			}
			if string(got) != string(want) {
				t.Fatalf("stream %d: String = %q, Float64 per character gives %q", stream, got, want)
			}
		}
		if a, b := fast.Uint64(), ref.Uint64(); a != b {
			t.Fatalf("stream %d: after String the next draw is %d, after Float64s %d", stream, a, b)
		}
	}
}

func TestDrawsDoNotAllocate(t *testing.T) {
	for _, typ := range Types() {
		s := mustFactory(t, seededConfig(typ)).Source(0)
		if n := testing.AllocsPerRun(2000, func() { s.Default(1, 10000) }); n != 0 {
			t.Errorf("Default(%s) allocates %.1f times per draw", typ, n)
		}
	}
	s := mustFactory(t, seededConfig(TypeUniform)).Source(0)
	buf := make([]byte, 0, 128)
	if n := testing.AllocsPerRun(2000, func() { buf = s.String(buf[:0], "###########-###########") }); n != 0 {
		t.Errorf("String allocates %.1f times per call with a large enough buffer", n)
	}
}

func TestNURand(t *testing.T) {
	s := mustFactory(t, seededConfig(TypeUniform)).Source(0)
	tests := []struct{ A, C, x, y int64 }{
		{255, 123, 0, 999}, {1023, 259, 1, 3000}, {8191, 7911, 1, 100000}, {255, 0, 5, 5},
	}
	for _, tc := range tests {
		counts := map[int64]int{}
		for range 20000 {
			v := s.NURand(tc.A, tc.C, tc.x, tc.y)
			if v < tc.x || v > tc.y {
				t.Fatalf("NURand(%d,%d,%d,%d) = %d, outside [%d,%d]", tc.A, tc.C, tc.x, tc.y, v, tc.x, tc.y)
			}
			counts[v]++
		}
		// Non-uniform: the most frequent value is far above the uniform share.
		if tc.y-tc.x > 100 {
			top := 0
			for _, c := range counts {
				top = max(top, c)
			}
			uniformShare := 20000 / float64(tc.y-tc.x+1)
			if float64(top) < 5*uniformShare+10 {
				t.Errorf("NURand(%d,…,%d,%d) looks uniform: top count %d, uniform share %.1f", tc.A, tc.x, tc.y, top, uniformShare)
			}
		}
	}
}

func TestClientSeed(t *testing.T) {
	seen := map[uint64]int{}
	for id := 0; id < 1000; id++ {
		s := ClientSeed(42, id)
		if s == 0 || s > math.MaxInt64 {
			t.Fatalf("client %d: seed %d", id, s)
		}
		if prev, dup := seen[s]; dup {
			t.Fatalf("clients %d and %d share seed %d", prev, id, s)
		}
		seen[s] = id
		if ClientSeed(42, id) != s {
			t.Fatalf("client %d: seed not repeatable", id)
		}
	}
	if ClientSeed(42, 0) != 42 {
		t.Errorf("client 0 must keep the seed")
	}
}

// TestAppendPackedIsThreeCharactersPerDraw pins AppendPacked's draws to their
// definition: character j of each 64-bit draw is bits 21j..21j+20 scaled by
// the alphabet's size, and a draw is only started for the characters left.
// Loads (TPC-C's a-strings) must stay the same data for the same seed.
func TestAppendPackedIsThreeCharactersPerDraw(t *testing.T) {
	for _, chars := range []string{"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "01", "x",
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"} {
		alphabet := NewAlphabet(chars)
		f := mustFactory(t, seededConfig(TypeUniform))
		got, want := f.Source(7), f.Source(7)
		var buf []byte
		for n := range 40 {
			buf = got.AppendPacked(buf[:0], n, alphabet)
			ref := make([]byte, n)
			for i := 0; i < n; i += 3 {
				r := want.Uint64()
				for j := i; j < i+3 && j < n; j++ {
					ref[j] = chars[(r&(1<<21-1))*uint64(len(chars))>>21]
					r >>= 21
				}
			}
			if string(buf) != string(ref) {
				t.Fatalf("%d characters of %q: AppendPacked = %q, want %q", n, chars, buf, ref)
			}
		}
		if got.Uint64() != want.Uint64() {
			t.Fatalf("alphabet %q: AppendPacked left the source in another state than its draws", chars)
		}
	}
}
