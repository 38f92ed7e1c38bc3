package postgres

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"
)

// The type OIDs the binary COPY encoder writes.
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidFloat4      = 700
	oidFloat8      = 701
	oidBPChar      = 1042
	oidVarchar     = 1043
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
)

// binaryHeader starts the data of a binary COPY: signature, flags, no extension.
var binaryHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// binaryTrailer ends the data of a binary COPY: a tuple with -1 fields.
var binaryTrailer = []byte{0xff, 0xff}

// postgresEpoch is where PostgreSQL's binary timestamps count from.
var postgresEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// binaryEncodable reports whether appendBinaryValue knows every type in oids.
func binaryEncodable(oids []uint32) bool {
	for _, oid := range oids {
		switch oid {
		case oidBool, oidBytea, oidInt8, oidInt2, oidInt4, oidText, oidFloat4, oidFloat8,
			oidBPChar, oidVarchar, oidTimestamp, oidTimestampTZ:
		default:
			return false
		}
	}
	return true
}

// appendBinaryRow appends one tuple of a binary COPY.
func appendBinaryRow(b []byte, oids []uint32, values []any) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, uint16(len(values)))
	var err error
	for i, v := range values {
		if b, err = appendBinaryValue(b, oids[i], v); err != nil {
			return b, fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return b, nil
}

// appendBinaryValue appends v as a length-prefixed field of type oid.
func appendBinaryValue(b []byte, oid uint32, v any) ([]byte, error) {
	if v == nil {
		return binary.BigEndian.AppendUint32(b, math.MaxUint32), nil // length -1: NULL
	}
	if p, ok := v.([]byte); ok && p == nil {
		return binary.BigEndian.AppendUint32(b, math.MaxUint32), nil
	}
	switch oid {
	case oidInt2, oidInt4, oidInt8:
		n, err := binaryInt(v)
		if err != nil {
			return b, err
		}
		return appendBinaryInt(b, oid, n)
	case oidFloat4, oidFloat8:
		f, ok := v.(float64)
		if !ok {
			n, err := binaryInt(v)
			if err != nil {
				return b, fmt.Errorf("%T for a floating-point column: use float64", v)
			}
			f = float64(n)
		}
		if oid == oidFloat4 {
			b = binary.BigEndian.AppendUint32(b, 4)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f))), nil
		}
		b = binary.BigEndian.AppendUint32(b, 8)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f)), nil
	case oidText, oidVarchar, oidBPChar, oidBytea:
		return appendBinaryText(b, v)
	case oidBool:
		t, ok := v.(bool)
		if !ok {
			return b, fmt.Errorf("%T for a boolean column: use bool", v)
		}
		b = binary.BigEndian.AppendUint32(b, 1)
		if t {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case oidTimestamp, oidTimestampTZ:
		t, ok := v.(time.Time)
		if !ok {
			return b, fmt.Errorf("%T for a timestamp column: use time.Time", v)
		}
		if oid == oidTimestamp { // the wall clock, whatever its zone
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		}
		b = binary.BigEndian.AppendUint32(b, 8)
		return binary.BigEndian.AppendUint64(b, uint64(t.Sub(postgresEpoch).Microseconds())), nil
	}
	return b, fmt.Errorf("no binary encoding for type OID %d", oid)
}

// binaryInt returns an integer argument as int64.
func binaryInt(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q for an integer column: %w", v, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%T for an integer column: use int64", v)
}

// appendBinaryInt appends n as an integer of type oid, checking its range.
func appendBinaryInt(b []byte, oid uint32, n int64) ([]byte, error) {
	switch oid {
	case oidInt2:
		if n < math.MinInt16 || n > math.MaxInt16 {
			return b, fmt.Errorf("%d is out of range for SMALLINT", n)
		}
		b = binary.BigEndian.AppendUint32(b, 2)
		return binary.BigEndian.AppendUint16(b, uint16(n)), nil
	case oidInt4:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return b, fmt.Errorf("%d is out of range for INTEGER", n)
		}
		b = binary.BigEndian.AppendUint32(b, 4)
		return binary.BigEndian.AppendUint32(b, uint32(n)), nil
	}
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(n)), nil
}

// appendBinaryText appends a string-like value; numbers are written as text.
func appendBinaryText(b []byte, v any) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	switch v := v.(type) {
	case string:
		b = append(b, v...)
	case []byte:
		b = append(b, v...)
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case int:
		b = strconv.AppendInt(b, int64(v), 10)
	case float64:
		b = appendFloat(b, v)
	case time.Time:
		b = v.AppendFormat(b, timestampLayout)
	default:
		return b[:start], fmt.Errorf("%T for a text column: use string or []byte", v)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b, nil
}
