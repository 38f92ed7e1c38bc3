package tpcc

import (
	"github.com/fairbench/fairbench/internal/base/valuearena"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// syllables are the ten syllables of customer last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName returns the customer last name of number n (0..999): the syllables
// of its three decimal digits, e.g. 371 → "PRICALLYOUGHT".
func lastName(n int64) string {
	return syllables[n/100%10] + syllables[n/10%10] + syllables[n%10]
}

// appendLastName appends lastName(n) to dst without allocating.
func appendLastName(dst []byte, n int64) []byte {
	dst = append(dst, syllables[n/100%10]...)
	dst = append(dst, syllables[n/10%10]...)
	return append(dst, syllables[n%10]...)
}

// alphanumerics are the characters of an a-string (clause 4.3.2.2: at least
// 26 lower-case letters, 26 upper-case letters and 10 digits).
const alphanumerics = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// original is the marker of clause 4.3.3.1 put into 10% of I_DATA and S_DATA.
const original = "ORIGINAL"

// textGen draws the random strings of clause 4.3.2 from one Source and boxes
// them, with the row's other values, from its arena: a row allocates nothing.
type textGen struct {
	rng *randgen.Source
	box valuearena.Arena
}

// aString returns a random alphanumeric string of length min..max.
func (g *textGen) aString(min, max int64) any {
	n := g.rng.Uniform(min, max)
	return g.box.String(g.appendA(g.box.Buffer(int(n)), n))
}

// aStringChars is the alphabet of a-strings.
var aStringChars = randgen.NewAlphabet(alphanumerics)

// appendA appends n random alphanumerics, three from each 64-bit draw (21
// bits per character, scaled to the 62 characters by multiplication).
func (g *textGen) appendA(dst []byte, n int64) []byte {
	return g.rng.AppendPacked(dst, int(n), aStringChars)
}

// fillDists fills S_DIST_01..10 with random 24-character a-strings: the same
// draws as ten aString(24, 24) calls, in one string.
func (g *textGen) fillDists(v []any) {
	const n = 24
	b := g.box.Buffer(n * len(v))
	for range v {
		b = g.appendA(b, g.rng.Uniform(n, n))
	}
	all := g.box.Text(b)
	for d := range v {
		v[d] = g.box.Box(all[d*n : (d+1)*n])
	}
}

// nString returns a random numeric string of length min..max.
func (g *textGen) nString(min, max int64) any {
	n := g.rng.Uniform(min, max)
	b := g.box.Buffer(int(n))
	for i := int64(0); i < n; i++ {
		b = append(b, byte('0'+g.rng.Uniform(0, 9)))
	}
	return g.box.String(b)
}

// zip returns a zip code: 4 random digits followed by "11111" (clause 4.3.2.7).
func (g *textGen) zip() any {
	b := g.box.Buffer(9)
	for i := 0; i < 4; i++ {
		b = append(b, byte('0'+g.rng.Uniform(0, 9)))
	}
	return g.box.String(append(b, "11111"...))
}

// state returns two random letters.
func (g *textGen) state() any {
	b := append(g.box.Buffer(2), byte('A'+g.rng.Uniform(0, 25)), byte('A'+g.rng.Uniform(0, 25)))
	return g.box.String(b)
}

// data returns I_DATA/S_DATA: an a-string of 26..50 characters that, for 10%
// of the rows, holds "ORIGINAL" at a random position (clause 4.3.3.1).
func (g *textGen) data() any {
	n := g.rng.Uniform(26, 50)
	b := g.appendA(g.box.Buffer(int(n)), n)
	if g.rng.Uniform(1, 10) == 1 {
		at := g.rng.Uniform(0, n-int64(len(original)))
		copy(b[at:], original)
	}
	return g.box.String(b)
}

// lastNameFor returns C_LAST of customer cID (clause 4.3.3.1): the name of
// number cID-1 for the first 1,000 customers of a district, then
// NURand(255, cLoad, 0, 999).
func (g *textGen) lastNameFor(cID int64, cLoad int64) any {
	n := cID - 1
	if cID > 1000 {
		n = g.rng.NURand(255, cLoad, 0, 999)
	}
	return g.box.String(appendLastName(g.box.Buffer(15), n))
}

// money returns a random amount of money in [lo, hi] cents as a decimal value.
func (g *textGen) money(lo, hi int64) any { return g.box.Float(float64(g.rng.Uniform(lo, hi)) / 100) }

// tax returns a random tax rate in [0.0000, 0.2000] (W_TAX, D_TAX).
func (g *textGen) tax() any { return g.box.Float(float64(g.rng.Uniform(0, 2000)) / 10000) }
