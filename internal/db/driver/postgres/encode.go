package postgres

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// timestampLayout is how time.Time arguments are sent: PostgreSQL's text form of
// a timestamp with its offset, which TIMESTAMPTZ honours and TIMESTAMP ignores.
const timestampLayout = "2006-01-02 15:04:05.999999-07:00"

// appendParam appends arg in PostgreSQL's text format, as a bind parameter of
// the extended protocol. null is true for a nil argument (nothing appended).
func appendParam(b []byte, arg any) (_ []byte, null bool, err error) {
	switch v := arg.(type) {
	case int64:
		return strconv.AppendInt(b, v, 10), false, nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), false, nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), false, nil
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), false, nil
	case float64:
		return appendFloat(b, v), false, nil
	case string:
		return append(b, v...), false, nil
	case []byte:
		if v == nil {
			return b, true, nil
		}
		return append(b, v...), false, nil
	case time.Time:
		return v.AppendFormat(b, timestampLayout), false, nil
	case bool:
		if v {
			return append(b, 't'), false, nil
		}
		return append(b, 'f'), false, nil
	case nil:
		return b, true, nil
	}
	return b, false, fmt.Errorf("unsupported argument type %T: use int64, int, float64, string, []byte, time.Time, bool or nil", arg)
}

// appendLiteral appends arg as a SQL literal for client-side interpolation.
// escapeBackslash is set when the server's standard_conforming_strings is off,
// where a backslash inside '…' starts an escape.
func appendLiteral(b []byte, arg any, escapeBackslash bool) ([]byte, error) {
	switch v := arg.(type) {
	case int64:
		return appendIntLiteral(b, v), nil
	case int:
		return appendIntLiteral(b, int64(v)), nil
	case int32:
		return appendIntLiteral(b, int64(v)), nil
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, '\'')
			b = appendFloat(b, v)
			return append(b, "'::float8"...), nil
		}
		if v < 0 {
			b = append(b, '(')
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
			return append(b, ')'), nil
		}
		return strconv.AppendFloat(b, v, 'g', -1, 64), nil
	case string:
		return appendQuoted(b, v, escapeBackslash), nil
	case []byte:
		if v == nil {
			return append(b, "NULL"...), nil
		}
		return appendQuoted(b, v, escapeBackslash), nil
	case time.Time:
		b = append(b, '\'')
		b = v.AppendFormat(b, timestampLayout)
		return append(b, '\''), nil
	case bool:
		if v {
			return append(b, "TRUE"...), nil
		}
		return append(b, "FALSE"...), nil
	case nil:
		return append(b, "NULL"...), nil
	}
	return b, fmt.Errorf("unsupported argument type %T: use int64, int, float64, string, []byte, time.Time, bool or nil", arg)
}

// appendIntLiteral appends v, in parentheses when negative so that "x-?" can
// never turn into a "--" comment.
func appendIntLiteral(b []byte, v int64) []byte {
	if v >= 0 {
		return strconv.AppendInt(b, v, 10)
	}
	b = append(b, '(')
	b = strconv.AppendInt(b, v, 10)
	return append(b, ')')
}

// appendQuoted appends s as a '…' string literal, doubling quotes (and
// backslashes when escapeBackslash is set).
func appendQuoted[T string | []byte](b []byte, s T, escapeBackslash bool) []byte {
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' || (c == '\\' && escapeBackslash) {
			b = append(b, c)
		}
		b = append(b, c)
	}
	return append(b, '\'')
}

// appendFloat appends v as PostgreSQL spells a double precision value.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "Infinity"...)
	case math.IsInf(v, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64) // NaN is spelled NaN
}
