package postgres

import (
	"fmt"
	"strconv"
	"time"
)

// appendCopyValue appends v in COPY text format.
func appendCopyValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case float64:
		return appendFloat(b, v), nil
	case string:
		return appendCopyText(b, v), nil
	case []byte:
		if v == nil {
			return append(b, `\N`...), nil
		}
		return appendCopyText(b, v), nil
	case time.Time:
		return v.AppendFormat(b, timestampLayout), nil
	case bool:
		if v {
			return append(b, 't'), nil
		}
		return append(b, 'f'), nil
	case nil:
		return append(b, `\N`...), nil
	}
	return b, fmt.Errorf("unsupported value type %T: use int64, float64, string, []byte, time.Time or nil", v)
}

// appendCopyText appends s with COPY's text escapes for backslash, tab,
// newline and carriage return.
func appendCopyText[T string | []byte](b []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}
