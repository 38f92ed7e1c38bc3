package oltp

import (
	"math"
	"sync"
	"sync/atomic"
)

// uniqueIDs yields distinct pseudo-random 32-bit values, as sysbench.rand.unique():
// a counter run through a permutation of the 32-bit integers (quadratic residues
// modulo a prime, twice, with a seeded offset between), so successive values look
// random but never repeat until 2³² draws. It is shared by the workers of one
// workload; only oltp_insert with --auto-inc=off uses it.
type uniqueIDs struct {
	once   sync.Once
	offset uint32
	next   atomic.Uint32
}

// seed sets the start index and offset from a random word; only the first call
// counts, so every worker can offer one.
func (u *uniqueIDs) seed(r uint64) {
	u.once.Do(func() {
		u.next.Store(uint32(r))
		u.offset = uint32(r >> 32)
	})
}

// id returns the next unique value as a signed 32-bit id (value − 2³¹, as
// oltp_insert.lua converts it to an SQL INT).
func (u *uniqueIDs) id() int64 {
	i := u.next.Add(1) - 1
	v := permuteQPR((permuteQPR(i) + u.offset) ^ 0x5bf03635)
	return int64(v) + math.MinInt32
}

// permuteQPR is a bijection on uint32: x ↦ x² mod p (or p − that for the upper
// half) for the prime p = 2³² − 5, identity on the five values ≥ p.
func permuteQPR(x uint32) uint32 {
	const prime = 4294967291
	if x >= prime {
		return x
	}
	residue := uint32(uint64(x) * uint64(x) % prime)
	if x <= prime/2 {
		return residue
	}
	return prime - residue
}
