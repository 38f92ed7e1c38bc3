package pgbenchcli

import (
	"math"
	"strconv"
	"strings"
)

// pgbench reads numbers with the C library, and how it reads one decides
// what it accepts: option_parse_int (strtol, the whole value, surrounding
// blanks allowed) for -c -j -T -t -P -s -F --partitions
// --aggregate-interval; atof (the longest prefix that is a number, else 0)
// for -R -L --sampling-rate; atoi (the same, an integer) for --max-tries;
// strtol after the "@" of a script's weight; sscanf %lu for --random-seed.
// These functions read them the same way.

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trimCSpaceLeft drops leading isspace characters.
func trimCSpaceLeft(s string) string {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	return s[i:]
}

// strtol reads a base-10 integer as C's strtol: leading blanks, a sign,
// digits. rest is what follows the digits, or all of s when there are none
// (digits false); a value past int64 saturates with overflow set.
func strtol(s string) (v int64, rest string, digits, overflow bool) {
	t := trimCSpaceLeft(s)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	i := 0
	var u uint64
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		d := uint64(t[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
		i++
	}
	if i == 0 {
		return 0, s, false, false
	}
	switch {
	case overflow, !neg && u > math.MaxInt64, neg && u > 1<<63:
		overflow = true
		if neg {
			return math.MinInt64, t[i:], true, true
		}
		return math.MaxInt64, t[i:], true, true
	case neg:
		return -int64(u), t[i:], true, false
	}
	return int64(u), t[i:], true, false
}

// parseIntOption reads an integer option as pgbench's option_parse_int:
// the whole value must be an integer (blanks around it allowed; an empty
// or blank value reads as 0) and lie in [lo, hi]. flag is how the messages
// name the option: "-c/--client".
func parseIntOption(value, flag string, lo, hi int) (int, error) {
	v, rest, _, overflow := strtol(value)
	if strings.TrimLeft(rest, " \t\n\v\f\r") != "" {
		return 0, &Error{Msg: `invalid value "` + value + `" for option ` + flag}
	}
	if overflow || v < math.MinInt32 || v > math.MaxInt32 || v < int64(lo) || v > int64(hi) {
		return 0, &Error{Msg: flag + " must be in range " + strconv.Itoa(lo) + ".." + strconv.Itoa(hi)}
	}
	return int(v), nil
}

// atoi reads an integer as C's atoi (strtol's prefix, then the conversion
// to a 32-bit int, which wraps).
func atoi(s string) int32 {
	v, _, _, _ := strtol(s)
	return int32(v)
}

// atof reads a number as C's atof: the longest prefix of s (after blanks)
// that is a decimal or hexadecimal floating-point number, an infinity or a
// NaN; 0 when there is none.
func atof(s string) float64 {
	t := trimCSpaceLeft(s)
	sign := ""
	if t != "" && (t[0] == '+' || t[0] == '-') {
		sign, t = t[:1], t[1:]
	}
	lower := strings.ToLower(t)
	switch {
	case strings.HasPrefix(lower, "inf"):
		return parseOr0(sign + "inf")
	case strings.HasPrefix(lower, "nan"):
		return math.NaN()
	case strings.HasPrefix(lower, "0x"):
		mant := scanDigits(lower[2:], isHex)
		if mant == "" {
			return 0 // "0x" without hexadecimal digits: the "0"
		}
		n := 2 + len(mant)
		if rest := lower[n:]; len(rest) > 1 && rest[0] == 'p' {
			if exp := scanExponent(rest[1:]); exp != "" {
				n += 1 + len(exp)
				return parseOr0(sign + lower[:n])
			}
		}
		return parseOr0(sign + lower[:n] + "p0")
	}
	mant := scanDigits(lower, isDec)
	if mant == "" {
		return 0
	}
	n := len(mant)
	if rest := lower[n:]; len(rest) > 1 && rest[0] == 'e' {
		if exp := scanExponent(rest[1:]); exp != "" {
			n += 1 + len(exp)
		}
	}
	return parseOr0(sign + lower[:n])
}

func isDec(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool { return isDec(c) || c >= 'a' && c <= 'f' }

// scanDigits returns the mantissa at the start of s: digits with at most one
// point, at least one digit; "" when there is none.
func scanDigits(s string, digit func(byte) bool) string {
	i, n, point := 0, 0, false
	for i < len(s) {
		switch {
		case digit(s[i]):
			n++
		case s[i] == '.' && !point:
			point = true
		default:
			goto done
		}
		i++
	}
done:
	if n == 0 {
		return ""
	}
	return s[:i]
}

// scanExponent returns a signed decimal exponent at the start of s, "" when
// there is none.
func scanExponent(s string) string {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && isDec(s[j]) {
		j++
	}
	if j == i {
		return ""
	}
	return s[:j]
}

// parseOr0 parses a number scanned as valid: a value out of range is C's
// HUGE_VAL or 0, which ParseFloat's result already is.
func parseOr0(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// parseSeed reads a --random-seed integer as pgbench's sscanf("%lu%c"):
// leading blanks, a sign (a negative value wraps), digits, nothing after.
func parseSeed(s string) (uint64, bool) {
	t := trimCSpaceLeft(s)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(t); i++ {
		if !isDec(t[i]) {
			return 0, false
		}
		d := uint64(t[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			u = math.MaxUint64 // strtoull saturates
			continue
		}
		u = u*10 + d
	}
	if neg && u != math.MaxUint64 {
		u = -u
	}
	return u, true
}
