package driver

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"strconv"
	"time"
)

// ScanRows reads rows into buf (one value per column, reused for each row),
// scans the wanted rows into dest with ScanRow and calls fn, when not nil,
// after each; then it closes rows. With first only the first row is scanned
// and counted, the rest are read and discarded; otherwise every row is. It
// returns how many rows were scanned; an error from reading, scanning or fn
// stops the reading and is returned as it is. It is what Stmt.QueryRow and
// Stmt.QueryRows of the drivers built on database/sql/driver connections do
// with a result; kind (KindMySQL, KindSQLite) begins scan error messages.
func ScanRows(kind string, rows sqldriver.Rows, buf []sqldriver.Value, dest []any, fn func() error, first bool) (int, error) {
	n := 0
	for {
		err := rows.Next(buf)
		if err == io.EOF {
			break
		}
		if err == nil && (!first || n == 0) {
			n++
			if err = ScanRow(kind, dest, buf); err == nil && fn != nil {
				err = fn()
			}
		}
		if err != nil {
			rows.Close()
			return n, err
		}
	}
	return n, rows.Close()
}

// ScanRow stores the first len(dest) values of row into dest, one destination
// per column (see ScanValue). It serves Stmt.QueryRow and Stmt.QueryRows of the
// drivers built on database/sql/driver connections; kind (KindMySQL,
// KindSQLite) begins its error messages.
func ScanRow(kind string, dest []any, row []sqldriver.Value) error {
	if len(dest) > len(row) {
		return fmt.Errorf("%s: %d scan destinations for a row of %d columns", kind, len(dest), len(row))
	}
	for i, d := range dest {
		if err := ScanValue(d, row[i]); err != nil {
			return fmt.Errorf("%s: column %d: %w", kind, i+1, err)
		}
	}
	return nil
}

// ScanValue stores v, one column as go-sql-driver/mysql or modernc.org/sqlite
// returns it (int64, uint64, float32, float64, []byte, string, time.Time, bool
// or nil), into dest: *int64, *float64, *string, *[]byte (the caller's buffer
// reused), *time.Time or *bool. NULL stores the zero value (an empty slice for
// *[]byte). Numbers convert between integer and real either way (a real into
// *int64 is truncated), and text such as MySQL's DECIMAL is parsed; a *string
// destination that already holds the same text is left as it is, so it costs
// no allocation.
func ScanValue(dest any, v sqldriver.Value) error {
	switch d := dest.(type) {
	case *int64:
		return scanInt(d, v)
	case *float64:
		return scanFloat(d, v)
	case *string:
		return scanString(d, v)
	case *[]byte:
		*d = appendValue((*d)[:0], v)
		return nil
	case *time.Time:
		return scanTime(d, v)
	case *bool:
		return scanBool(d, v)
	}
	return fmt.Errorf("unsupported scan destination %T: use *int64, *float64, *string, *[]byte, *time.Time or *bool", dest)
}

func scanInt(d *int64, v sqldriver.Value) error {
	switch x := v.(type) {
	case nil:
		*d = 0
	case int64:
		*d = x
	case uint64:
		*d = int64(x)
	case float64:
		*d = int64(x)
	case float32:
		*d = int64(x)
	case bool:
		*d = 0
		if x {
			*d = 1
		}
	case []byte:
		return parseInt(d, x)
	case string:
		return parseInt(d, []byte(x))
	default:
		return fmt.Errorf("cannot scan %T into *int64", v)
	}
	return nil
}

// parseInt reads an integer written as text; a decimal such as "12.00" is
// truncated towards zero.
func parseInt(d *int64, b []byte) error {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err == nil {
		*d = n
		return nil
	}
	f, ferr := strconv.ParseFloat(string(b), 64)
	if ferr != nil {
		return fmt.Errorf("cannot scan %q into *int64", b)
	}
	*d = int64(f)
	return nil
}

func scanFloat(d *float64, v sqldriver.Value) error {
	switch x := v.(type) {
	case nil:
		*d = 0
	case float64:
		*d = x
	case float32:
		*d = float64(x)
	case int64:
		*d = float64(x)
	case uint64:
		*d = float64(x)
	case []byte:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return fmt.Errorf("cannot scan %q into *float64", x)
		}
		*d = f
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return fmt.Errorf("cannot scan %q into *float64", x)
		}
		*d = f
	default:
		return fmt.Errorf("cannot scan %T into *float64", v)
	}
	return nil
}

func scanString(d *string, v sqldriver.Value) error {
	switch x := v.(type) {
	case nil:
		*d = ""
	case string:
		*d = x
	case []byte:
		if *d != string(x) { // the comparison does not allocate
			*d = string(x)
		}
	default:
		var buf [64]byte
		b := appendValue(buf[:0], v)
		if *d != string(b) {
			*d = string(b)
		}
	}
	return nil
}

// appendValue appends v as text to b.
func appendValue(b []byte, v sqldriver.Value) []byte {
	switch x := v.(type) {
	case nil:
		return b
	case []byte:
		return append(b, x...)
	case string:
		return append(b, x...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	case float32:
		return strconv.AppendFloat(b, float64(x), 'f', -1, 32)
	case bool:
		return strconv.AppendBool(b, x)
	case time.Time:
		return x.AppendFormat(b, "2006-01-02 15:04:05.999999")
	}
	return fmt.Append(b, v)
}

func scanTime(d *time.Time, v sqldriver.Value) error {
	switch x := v.(type) {
	case nil:
		*d = time.Time{}
	case time.Time:
		*d = x
	case []byte:
		return parseTime(d, x)
	case string:
		return parseTime(d, []byte(x))
	default:
		return fmt.Errorf("cannot scan %T into *time.Time", v)
	}
	return nil
}

// parseTime reads a timestamp written as text, as MySQL writes DATETIME and
// DATE and as the SQLite driver stores timestamps ("2006-01-02
// 15:04:05[.ffffff]" or "2006-01-02"), in UTC; MySQL's zero date becomes the
// zero time.
func parseTime(d *time.Time, b []byte) error {
	s := string(b)
	layout := "2006-01-02 15:04:05" // fractional seconds are accepted when parsing
	if len(s) == len("2006-01-02") {
		layout = "2006-01-02"
	}
	if len(s) >= 10 && s[:10] == "0000-00-00" {
		*d = time.Time{}
		return nil
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return fmt.Errorf("cannot scan %q into *time.Time", b)
	}
	*d = t
	return nil
}

func scanBool(d *bool, v sqldriver.Value) error {
	switch x := v.(type) {
	case nil:
		*d = false
	case bool:
		*d = x
	case int64:
		*d = x != 0
	case uint64:
		*d = x != 0
	case []byte:
		return parseBool(d, x)
	case string:
		return parseBool(d, []byte(x))
	default:
		return fmt.Errorf("cannot scan %T into *bool", v)
	}
	return nil
}

func parseBool(d *bool, b []byte) error {
	switch string(b) {
	case "1", "t", "true", "TRUE", "T":
		*d = true
	case "0", "f", "false", "FALSE", "F", "":
		*d = false
	default:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("cannot scan %q into *bool", b)
		}
		*d = n != 0
	}
	return nil
}
