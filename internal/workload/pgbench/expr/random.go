package expr

import (
	"math"
	"math/bits"
)

// Constants of pgbench's hash functions.
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed): 64-bit FNV-1a over the eight
// bytes of val, least significant first, with the offset basis XORed with seed.
func HashFNV1a(val int64, seed uint64) int64 {
	result := uint64(fnvOffsetBasis) ^ seed
	for i := 0; i < 8; i++ {
		octet := uint64(val & 0xff)
		val >>= 8
		result ^= octet
		result *= fnvPrime
	}
	return int64(result)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed) (and hash()): 64-bit
// MurmurHash2 of the integer val.
func HashMurmur2(val int64, seed uint64) int64 {
	result := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	result ^= k
	result *= mm2Mul
	result ^= result >> mm2Rot
	result *= mm2Mul
	result ^= result >> mm2Rot
	return int64(result)
}

// PRNG is PostgreSQL's pg_prng generator (xoroshiro128**, seeded through
// splitmix64), with pgbench's algorithms for the random functions on top.
// The zero value is not usable; make one with NewPRNG.
type PRNG struct {
	s0, s1 uint64
}

// NewPRNG returns a generator seeded as pg_prng_seed(seed) does.
func NewPRNG(seed uint64) *PRNG {
	p := &PRNG{}
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
	return p
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Uint64 returns the next 64 random bits (pg_prng_uint64).
func (p *PRNG) Uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// Uint64Range returns a uniform integer in [rmin, rmax] by bitmask rejection
// (pg_prng_uint64_range).
func (p *PRNG) Uint64Range(rmin, rmax uint64) uint64 {
	if rmax <= rmin {
		return rmin
	}
	r := rmax - rmin
	shift := uint(bits.LeadingZeros64(r))
	for {
		v := p.Uint64() >> shift
		if v <= r {
			return rmin + v
		}
	}
}

// Float64 returns a double in [0, 1) with 52 random bits (pg_prng_double).
func (p *PRNG) Float64() float64 {
	return math.Ldexp(float64(p.Uint64()>>12), -52)
}

// Uniform implements Random as pgbench's getrand does.
func (p *PRNG) Uniform(lb, ub int64) int64 {
	return lb + int64(p.Uint64Range(0, uint64(ub-lb)))
}

// Exponential implements Random as pgbench's getExponentialRand does.
func (p *PRNG) Exponential(lb, ub int64, param float64) int64 {
	cut := math.Exp(-param)
	uniform := 1.0 - p.Float64()
	r := -math.Log(cut+(1.0-cut)*uniform) / param
	return lb + int64(float64(ub-lb+1)*r)
}

// Gaussian implements Random as pgbench's getGaussianRand does (Box-Muller,
// retried until within param standard deviations).
func (p *PRNG) Gaussian(lb, ub int64, param float64) int64 {
	var stdev float64
	for {
		r1 := 1.0 - p.Float64()
		r2 := 1.0 - p.Float64()
		stdev = math.Sqrt(-2.0*math.Log(r1)) * math.Sin(2.0*math.Pi*r2)
		if stdev >= -param && stdev < param {
			break
		}
	}
	r := (stdev + param) / (param * 2.0)
	return lb + int64(float64(ub-lb+1)*r)
}

// Zipfian implements Random as pgbench's getZipfianRand does (rejection
// sampling after Devroye).
func (p *PRNG) Zipfian(lb, ub int64, param float64) int64 {
	n := ub - lb + 1
	return lb - 1 + p.iterativeZipfian(n, param)
}

func (p *PRNG) iterativeZipfian(n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := p.Float64()
		v := p.Float64()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// Permute is pgbench's permute(i, size, seed): a pseudorandom permutation of
// [0, size) chosen by seed, applied to i modulo size. size must be positive.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	p := NewPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	for i := 0; i < 6; i++ {
		m := (p.Uint64() & mask) | 1
		r := p.Uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = (p.Uint64() & mask) | 1
		r = p.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = p.Uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
