package mysql

import (
	sqldriver "database/sql/driver"
	"fmt"
	"strconv"
	"time"
)

// valuesToStrings renders one row of driver values as text, NULL as "".
func valuesToStrings(vals []sqldriver.Value) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
		case []byte:
			out[i] = string(x)
		case string:
			out[i] = x
		case int64:
			out[i] = strconv.FormatInt(x, 10)
		case uint64:
			out[i] = strconv.FormatUint(x, 10)
		case float64:
			out[i] = strconv.FormatFloat(x, 'f', -1, 64)
		case float32:
			out[i] = strconv.FormatFloat(float64(x), 'f', -1, 32)
		case bool:
			out[i] = strconv.FormatBool(x)
		case time.Time:
			out[i] = x.Format("2006-01-02 15:04:05.999999")
		default:
			out[i] = fmt.Sprint(x)
		}
	}
	return out
}
