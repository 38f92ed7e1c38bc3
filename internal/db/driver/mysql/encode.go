package mysql

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// timeLayout is how DATETIME values are sent as text.
const timeLayout = "2006-01-02 15:04:05.999999"

// appendTSV appends v as one field of LOAD DATA's default format: tab-separated,
// backslash escapes, NULL as \N.
func appendTSV(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, '\\', 'N'), nil
	case string:
		return appendTSVText(b, x), nil
	case []byte:
		return appendTSVText(b, string(x)), nil
	}
	return appendNumber(b, v)
}

// appendTSVText escapes the characters that LOAD DATA's default format gives a
// meaning: tab, newline, backslash (and NUL, CR for safety).
func appendTSVText(b []byte, s string) []byte { return appendEscaped(b, s, &tsvEscapes) }

// tsvEscapes and literalEscapes map each byte that must be escaped to the
// letter after the backslash (0: the byte stands for itself).
var tsvEscapes = escapes(map[byte]byte{'\t': 't', '\n': 'n', '\r': 'r', '\\': '\\', 0: '0'})
var literalEscapes = escapes(map[byte]byte{'\'': '\'', '\\': '\\', 0: '0', '\n': 'n', '\r': 'r', 0x1a: 'Z'})

// escapes builds an escape table from the bytes to escape and their letters.
func escapes(m map[byte]byte) (t [256]byte) {
	for c, e := range m {
		t[c] = e
	}
	return t
}

// appendEscaped appends s with every byte that esc maps written as a
// backslash and its letter. Runs of bytes that need no escape (nearly all of
// a generated row) are appended whole, found eight bytes at a time: a
// byte-at-a-time append was a fifth of the client's CPU in a TPC-C load.
// Every byte either table escapes is a control character, a backslash or a
// quote (mayEscape).
func appendEscaped(b []byte, s string, esc *[256]byte) []byte {
	start, i := 0, 0
	for i < len(s) {
		if i+8 <= len(s) && !mayEscape(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			i += 8
			continue
		}
		if e := esc[s[i]]; e != 0 {
			b = append(append(b, s[start:i]...), '\\', e)
			start = i + 1
		}
		i++
	}
	return append(b, s[start:]...)
}

// mayEscape reports whether one of the eight bytes of w is below 0x20, a
// backslash or a single quote (the classic "has a byte less than / equal to"
// word tests; it may say true of a byte 0x80 or above, never false of one
// that needs an escape).
func mayEscape(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := w - ones*0x20
	bs, q := w^(ones*'\\'), w^(ones*'\'')
	return (below|(bs-ones)|(q-ones))&highs != 0
}

// appendTime appends t as a DATETIME literal in timeLayout, without the
// layout interpreter of time.Time.AppendFormat for the years 0-9999 (its
// cost showed in TPC-C loads, where every order and order line has a date).
func appendTime(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, ' '), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	return appendFraction(b, t.Nanosecond()/1000, 6)
}

// appendFloat appends x as strconv.AppendFloat(b, x, 'f', -1, 64) does (the
// shortest decimal that reads back as x), without its general algorithm when
// x is a number of at most four decimals below 10^11 — money and rates, as
// in every TPC-C table: such a decimal has at most 15 significant digits, so
// no shorter one reads back as the same double.
func appendFloat(b []byte, x float64) []byte {
	const scale = 10000
	k := math.Round(x * scale)
	if math.Abs(k) >= 1e15 || k/scale != x || (x == 0 && math.Signbit(x)) {
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	}
	n := int64(k)
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	return appendFraction(strconv.AppendInt(b, n/scale, 10), int(n%scale), 4)
}

// appendFraction appends v, a fraction of digits decimal places
// (0 <= v < 10^digits), as a point and its digits without trailing zeros;
// nothing when v is 0.
func appendFraction(b []byte, v, digits int) []byte {
	if v == 0 {
		return b
	}
	for v%10 == 0 {
		v /= 10
		digits--
	}
	return appendDigits(append(b, '.'), v, digits)
}

// appendDigits appends v (0 <= v < 10^n) as exactly n decimal digits.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, "000000"[:n]...)
	for i := len(b) - 1; v > 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// appendLiteral appends v as a SQL literal for a multi-row INSERT.
func appendLiteral(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...), nil
	case string:
		return appendQuoted(b, x), nil
	case []byte:
		return appendQuoted(b, string(x)), nil
	case time.Time:
		return append(appendTime(append(b, '\''), x), '\''), nil
	}
	return appendNumber(b, v)
}

// appendNumber appends the numeric, boolean and time values both formats share.
func appendNumber(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, fmt.Errorf("value %v cannot be stored in MySQL", x)
		}
		return appendFloat(b, x), nil
	case float32:
		return strconv.AppendFloat(b, float64(x), 'f', -1, 32), nil
	case bool:
		if x {
			return append(b, '1'), nil
		}
		return append(b, '0'), nil
	case time.Time:
		return appendTime(b, x), nil
	}
	return b, fmt.Errorf("unsupported value type %T", v)
}
