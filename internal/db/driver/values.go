package driver

import (
	sqldriver "database/sql/driver"
	"fmt"
	"strconv"
	"time"
)

// ValuesToStrings renders one row of database/sql/driver values as text, NULL
// as "": integers and floats in their shortest decimal form, booleans as
// "true"/"false", times as "2006-01-02 15:04:05.999999" and anything else as
// fmt.Sprint prints it. It serves Conn.QueryStrings of the drivers built on
// database/sql/driver connections.
func ValuesToStrings(vals []sqldriver.Value) []string {
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
