package randgen

import (
	"math/bits"
	"slices"
)

// Source is one goroutine's generator: xoshiro256** (as sysbench uses) plus the
// distribution parameters and a cache of the last zipfian range. It is not safe
// for concurrent use, takes no locks and allocates nothing per draw.
type Source struct {
	s0, s1, s2, s3 uint64 // xoshiro256** state, never all zero
	p              params

	// zipfian per-range constant H(n+½) for the last n drawn from.
	zipfN   uint64
	zipfHN  float64
	zipfSet bool
}

// splitmix64 advances *x and returns the next output of the SplitMix64 generator,
// the recommended way to fill xoshiro's state from a single word.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// seed derives the state from (seed, stream): both words are hashed separately and
// combined, then expanded by SplitMix64, so neighbouring seeds or streams give
// unrelated states.
func (s *Source) seed(seed, stream uint64) {
	a, b := seed, stream^0x6a09e667f3bcc909
	x := splitmix64(&a) ^ bits.RotateLeft64(splitmix64(&b), 17)
	s.s0 = splitmix64(&x)
	s.s1 = splitmix64(&x)
	s.s2 = splitmix64(&x)
	s.s3 = splitmix64(&x)
	if s.s0|s.s1|s.s2|s.s3 == 0 {
		s.s0 = 1 // the all-zero state is a fixed point of xoshiro
	}
}

// Uint64 returns the next 64 random bits.
func (s *Source) Uint64() uint64 {
	var r uint64
	r, s.s0, s.s1, s.s2, s.s3 = xoshiro(s.s0, s.s1, s.s2, s.s3)
	return r
}

// xoshiro is one step of xoshiro256**: the output of state s0..s3 and the next
// state. It works on values so that a loop (String) keeps the state in registers.
func xoshiro(s0, s1, s2, s3 uint64) (r, n0, n1, n2, n3 uint64) {
	r = bits.RotateLeft64(s1*5, 7) * 9
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	s3 = bits.RotateLeft64(s3, 45)
	return r, s0, s1, s2, s3
}

// unit is Float64's mapping of 64 random bits to a double in [0,1).
func unit(r uint64) float64 { return float64(r>>11) * 0x1p-53 }

// Float64 returns a uniform double in [0,1) with 53 random bits.
func (s *Source) Float64() float64 {
	return unit(s.Uint64())
}

// Uniform returns a uniform integer in [a,b]: a + ⌊U·(b−a+1)⌋ as in sysbench. If
// b < a the bounds are swapped.
func (s *Source) Uniform(a, b int64) int64 {
	a, span := bounds(a, b)
	return a + int64(clampOffset(s.Float64()*width(span), span))
}

// Default returns an integer in [a,b] drawn from the configured distribution
// (--rand-type). If b < a the bounds are swapped.
func (s *Source) Default(a, b int64) int64 {
	switch s.p.kind {
	case kindGaussian:
		return s.Gaussian(a, b)
	case kindSpecial:
		return s.Special(a, b)
	case kindPareto:
		return s.Pareto(a, b)
	case kindZipfian:
		return s.Zipfian(a, b)
	default:
		return s.Uniform(a, b)
	}
}

// String appends to dst the template with every '#' replaced by a random digit and
// every '@' by a random lowercase letter, and returns the extended slice. Other
// bytes are copied unchanged. It allocates only if dst lacks the capacity.
func (s *Source) String(dst []byte, template string) []byte {
	start := len(dst)
	dst = append(dst, template...)
	out := dst[start:]
	// The draws of Float64, with the state in locals: the loader spends about
	// half its CPU here (sysbench's c and pad), and through the pointer every
	// draw would load and store the state.
	s0, s1, s2, s3 := s.s0, s.s1, s.s2, s.s3
	var r uint64
	for i, c := range out {
		switch c {
		case '#':
			r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
			out[i] = '0' + byte(unit(r)*10)
		case '@':
			r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
			out[i] = 'a' + byte(unit(r)*26)
		}
	}
	s.s0, s.s1, s.s2, s.s3 = s0, s1, s2, s3
	return dst
}

// Alphabet is a table of at most 64 characters for AppendPacked: the
// characters first, the rest of the 64 bytes unused.
type Alphabet struct {
	chars [64]byte
	size  uint64
}

// NewAlphabet returns the Alphabet of chars (1 to 64 bytes).
func NewAlphabet(chars string) *Alphabet {
	if len(chars) == 0 || len(chars) > 64 {
		panic("randgen: an alphabet has 1 to 64 characters")
	}
	a := &Alphabet{size: uint64(len(chars))}
	copy(a.chars[:], chars)
	return a
}

// AppendPacked appends n characters of a to dst, three from each 64-bit draw:
// 21 bits per character, scaled to the alphabet by multiplication (a bias
// below 2^-15). It allocates only if dst lacks the capacity.
func (s *Source) AppendPacked(dst []byte, n int, a *Alphabet) []byte {
	const bitsPerChar, mask = 21, 1<<21 - 1
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	out := dst[start:]
	// The state in locals, as in String: a TPC-C load spends a fifth of its
	// CPU drawing a-strings.
	s0, s1, s2, s3 := s.s0, s.s1, s.s2, s.s3
	var r uint64
	for len(out) >= 3 {
		r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		out[0] = a.chars[((r&mask)*a.size>>bitsPerChar)&63]
		out[1] = a.chars[((r>>bitsPerChar&mask)*a.size>>bitsPerChar)&63]
		out[2] = a.chars[((r>>(2*bitsPerChar)&mask)*a.size>>bitsPerChar)&63]
		out = out[3:]
	}
	if len(out) > 0 {
		r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		for i := range out {
			out[i] = a.chars[((r&mask)*a.size>>bitsPerChar)&63]
			r >>= bitsPerChar
		}
	}
	s.s0, s.s1, s.s2, s.s3 = s0, s1, s2, s3
	return dst
}

// bounds orders a and b and returns the low bound and the largest offset b−a,
// computed without overflow for any int64 pair.
func bounds(a, b int64) (low int64, span uint64) {
	if b < a {
		a, b = b, a
	}
	return a, uint64(b) - uint64(a)
}

// width is the number of integers in a range of the given span, b−a+1, as a float
// (2⁶⁴ for the whole int64 range).
func width(span uint64) float64 { return float64(span) + 1 }

// clampOffset converts a float offset to an integer in [0, span], guarding against
// rounding up to the range's end (or beyond 2⁶⁴) and against NaN.
func clampOffset(off float64, span uint64) uint64 {
	switch {
	case off >= 0x1p64:
		return span
	case off > 0:
		return min(uint64(off), span)
	default: // 0, negative or NaN
		return 0
	}
}
