package mysql

import (
	sqldriver "database/sql/driver"
	"fmt"
	"time"
)

// bindArgs copies args into buf (reused between calls) as the value types
// go-sql-driver accepts: int64, uint64, float64, bool, []byte, string,
// time.Time and nil. Already-accepted values are copied without boxing anew.
func bindArgs(buf []sqldriver.Value, args []any) ([]sqldriver.Value, error) {
	buf = buf[:0]
	for i, a := range args {
		switch v := a.(type) {
		case int64, string, float64, []byte, nil, bool, uint64, time.Time:
			buf = append(buf, a)
		case int:
			buf = append(buf, int64(v))
		case int32:
			buf = append(buf, int64(v))
		case int16:
			buf = append(buf, int64(v))
		case int8:
			buf = append(buf, int64(v))
		case uint:
			buf = append(buf, uint64(v))
		case uint32:
			buf = append(buf, int64(v))
		case uint16:
			buf = append(buf, int64(v))
		case uint8:
			buf = append(buf, int64(v))
		case float32:
			buf = append(buf, float64(v))
		case sqldriver.Valuer:
			val, err := v.Value()
			if err != nil {
				return buf, fmt.Errorf("mysql: argument %d: %w", i+1, err)
			}
			buf = append(buf, val)
		default:
			return buf, fmt.Errorf("mysql: argument %d has unsupported type %T", i+1, a)
		}
	}
	return buf, nil
}
