package mysql

import (
	"fmt"
	"math"
	"strconv"
	"time"
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
func appendTSVText(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\\':
			b = append(b, '\\', '\\')
		case 0:
			b = append(b, '\\', '0')
		default:
			b = append(b, ch)
		}
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
		b = append(b, '\'')
		b = x.AppendFormat(b, timeLayout)
		return append(b, '\''), nil
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
		return strconv.AppendFloat(b, x, 'f', -1, 64), nil
	case float32:
		return strconv.AppendFloat(b, float64(x), 'f', -1, 32), nil
	case bool:
		if x {
			return append(b, '1'), nil
		}
		return append(b, '0'), nil
	case time.Time:
		return x.AppendFormat(b, timeLayout), nil
	}
	return b, fmt.Errorf("unsupported value type %T", v)
}
