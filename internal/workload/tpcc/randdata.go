package tpcc

import (
	"github.com/fairbench/fairbench/internal/randgen"
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

// textGen draws the random strings of clause 4.3.2 from one Source into a
// reused buffer; each result is one string allocation.
type textGen struct {
	rng *randgen.Source
	buf []byte
}

// aString returns a random alphanumeric string of length min..max.
func (g *textGen) aString(min, max int64) string {
	g.buf = g.appendA(g.buf[:0], g.rng.Uniform(min, max))
	return string(g.buf)
}

// aStringChars is the alphabet of a-strings.
var aStringChars = randgen.NewAlphabet(alphanumerics)

// appendA appends n random alphanumerics, three from each 64-bit draw (21
// bits per character, scaled to the 62 characters by multiplication).
func (g *textGen) appendA(dst []byte, n int64) []byte {
	return g.rng.AppendPacked(dst, int(n), aStringChars)
}

// fillDists fills S_DIST_01..10 with random 24-character a-strings: the same
// draws as ten aString(24, 24) calls, in one string allocation.
func (g *textGen) fillDists(v []any) {
	const n = 24
	g.buf = g.buf[:0]
	for range v {
		g.buf = g.appendA(g.buf, g.rng.Uniform(n, n))
	}
	all := string(g.buf)
	for d := range v {
		v[d] = all[d*n : (d+1)*n]
	}
}

// nString returns a random numeric string of length min..max.
func (g *textGen) nString(min, max int64) string {
	n := g.rng.Uniform(min, max)
	g.buf = g.buf[:0]
	for i := int64(0); i < n; i++ {
		g.buf = append(g.buf, byte('0'+g.rng.Uniform(0, 9)))
	}
	return string(g.buf)
}

// zip returns a zip code: 4 random digits followed by "11111" (clause 4.3.2.7).
func (g *textGen) zip() string {
	g.buf = g.buf[:0]
	for i := 0; i < 4; i++ {
		g.buf = append(g.buf, byte('0'+g.rng.Uniform(0, 9)))
	}
	g.buf = append(g.buf, "11111"...)
	return string(g.buf)
}

// state returns two random letters.
func (g *textGen) state() string {
	g.buf = append(g.buf[:0], byte('A'+g.rng.Uniform(0, 25)), byte('A'+g.rng.Uniform(0, 25)))
	return string(g.buf)
}

// data returns I_DATA/S_DATA: an a-string of 26..50 characters that, for 10%
// of the rows, holds "ORIGINAL" at a random position (clause 4.3.3.1).
func (g *textGen) data() string {
	n := g.rng.Uniform(26, 50)
	g.buf = g.appendA(g.buf[:0], n)
	if g.rng.Uniform(1, 10) == 1 {
		at := g.rng.Uniform(0, n-int64(len(original)))
		copy(g.buf[at:], original)
	}
	return string(g.buf)
}

// lastNameFor returns C_LAST of customer cID (clause 4.3.3.1): the name of
// number cID-1 for the first 1,000 customers of a district, then
// NURand(255, cLoad, 0, 999).
func (g *textGen) lastNameFor(cID int64, cLoad int64) string {
	n := cID - 1
	if cID > 1000 {
		n = g.rng.NURand(255, cLoad, 0, 999)
	}
	g.buf = appendLastName(g.buf[:0], n)
	return string(g.buf)
}

// cents returns a random amount of money in [lo, hi] cents as a decimal value.
func cents(rng *randgen.Source, lo, hi int64) float64 {
	return float64(rng.Uniform(lo, hi)) / 100
}

// tax returns a random tax rate in [0.0000, 0.2000] (W_TAX, D_TAX).
func tax(rng *randgen.Source) float64 {
	return float64(rng.Uniform(0, 2000)) / 10000
}
