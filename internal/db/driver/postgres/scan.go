package postgres

import (
	"fmt"
	"strconv"
	"time"
)

// scanRow stores the first len(dest) columns of a data row, as the server
// sends them in text format (nil for NULL), into dest (see scanText).
func scanRow(dest []any, row [][]byte) error {
	if len(dest) > len(row) {
		return fmt.Errorf("%d scan destinations for a row of %d columns", len(dest), len(row))
	}
	for i, d := range dest {
		if err := scanText(d, row[i]); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}

// scanText stores one column in text format (nil for NULL) into dest:
// *int64, *float64, *string, *[]byte (the caller's buffer reused), *time.Time
// or *bool. NULL stores the zero value (an empty slice for *[]byte). numeric
// scans into *float64, and into *int64 truncated; a *string destination that
// already holds the same text is left as it is, so it costs no allocation.
func scanText(dest any, b []byte) error {
	switch d := dest.(type) {
	case *int64:
		if b == nil {
			*d = 0
			return nil
		}
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(b), 64)
			if ferr != nil {
				return fmt.Errorf("cannot scan %q into *int64", b)
			}
			n = int64(f)
		}
		*d = n
	case *float64:
		if b == nil {
			*d = 0
			return nil
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("cannot scan %q into *float64", b)
		}
		*d = f
	case *string:
		if *d != string(b) { // the comparison does not allocate
			*d = string(b)
		}
	case *[]byte:
		*d = append((*d)[:0], b...)
	case *time.Time:
		return parseTime(d, b)
	case *bool:
		switch string(b) {
		case "t", "true", "1":
			*d = true
		case "f", "false", "0", "":
			*d = false
		default:
			return fmt.Errorf("cannot scan %q into *bool", b)
		}
	default:
		return fmt.Errorf("unsupported scan destination %T: use *int64, *float64, *string, *[]byte, *time.Time or *bool", dest)
	}
	return nil
}

// timeLayouts are the ISO DateStyle spellings of timestamp, timestamptz and
// date; fractional seconds are accepted when parsing.
var timeLayouts = [...]string{"2006-01-02 15:04:05", "2006-01-02 15:04:05Z07", "2006-01-02 15:04:05Z07:00", "2006-01-02"}

// parseTime reads a timestamp, timestamptz or date in the ISO DateStyle.
func parseTime(d *time.Time, b []byte) error {
	if b == nil {
		*d = time.Time{}
		return nil
	}
	s := string(b)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			*d = t
			return nil
		}
	}
	return fmt.Errorf("cannot scan %q into *time.Time (the server's DateStyle must be ISO)", b)
}
