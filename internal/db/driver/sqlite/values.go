package sqlite

import (
	sqldriver "database/sql/driver"
	"fmt"
	"math"
	"time"
)

// timeLayout is how timestamps are stored: text that sorts and compares like
// MySQL's DATETIME literals.
const timeLayout = "2006-01-02 15:04:05.999999"

// bindArgs copies args into buf (reused between calls) as positional named
// values of the types modernc.org/sqlite binds: int64, float64, bool, []byte,
// string and nil. Timestamps become text in timeLayout.
func bindArgs(buf []sqldriver.NamedValue, args []any) ([]sqldriver.NamedValue, error) {
	return appendArgs(buf[:0], args, 0)
}

// appendArgs appends args to buf as the parameters base+1, base+2, ….
func appendArgs(buf []sqldriver.NamedValue, args []any, base int) ([]sqldriver.NamedValue, error) {
	for i, a := range args {
		var v any
		switch x := a.(type) {
		case int64, string, float64, []byte, nil, bool:
			v = a
		case int:
			v = int64(x)
		case int32:
			v = int64(x)
		case int16:
			v = int64(x)
		case int8:
			v = int64(x)
		case uint32:
			v = int64(x)
		case uint16:
			v = int64(x)
		case uint8:
			v = int64(x)
		case uint:
			if uint64(x) > math.MaxInt64 {
				return buf, fmt.Errorf("sqlite: argument %d: %d overflows a 64-bit integer", base+i+1, x)
			}
			v = int64(x)
		case uint64:
			if x > math.MaxInt64 {
				return buf, fmt.Errorf("sqlite: argument %d: %d overflows a 64-bit integer", base+i+1, x)
			}
			v = int64(x)
		case float32:
			v = float64(x)
		case time.Time:
			v = x.Format(timeLayout)
		case sqldriver.Valuer:
			val, err := x.Value()
			if err != nil {
				return buf, fmt.Errorf("sqlite: argument %d: %w", base+i+1, err)
			}
			v = val
		default:
			return buf, fmt.Errorf("sqlite: argument %d has unsupported type %T", base+i+1, a)
		}
		buf = append(buf, sqldriver.NamedValue{Ordinal: base + i + 1, Value: v})
	}
	return buf, nil
}
