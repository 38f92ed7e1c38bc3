package postgres

import (
	"math"
	"testing"
	"time"
)

func TestEncoders(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 4, 5, 123456000, time.UTC)
	cases := []struct {
		arg            any
		param, literal string
		null           bool
		copyText       string
	}{
		{int64(-42), "-42", "(-42)", false, "-42"},
		{7, "7", "7", false, "7"},
		{int32(3), "3", "3", false, "3"},
		{1.5, "1.5", "1.5", false, "1.5"},
		{-0.25, "-0.25", "(-0.25)", false, "-0.25"},
		{math.Inf(1), "Infinity", "'Infinity'::float8", false, "Infinity"},
		{"it's\t\\", "it's\t\\", `'it''s` + "\t" + `\'`, false, `it's\t\\`},
		{[]byte("a\nb"), "a\nb", "'a\nb'", false, `a\nb`},
		{ts, "2024-02-29 13:04:05.123456+00:00", "'2024-02-29 13:04:05.123456+00:00'", false, "2024-02-29 13:04:05.123456+00:00"},
		{true, "t", "TRUE", false, "t"},
		{nil, "", "NULL", true, `\N`},
		{[]byte(nil), "", "NULL", true, `\N`},
	}
	for _, tc := range cases {
		p, null, err := appendParam(nil, tc.arg)
		if err != nil || string(p) != tc.param || null != tc.null {
			t.Errorf("appendParam(%#v) = %q, %v, %v; want %q, %v", tc.arg, p, null, err, tc.param, tc.null)
		}
		l, err := appendLiteral(nil, tc.arg, false)
		if err != nil || string(l) != tc.literal {
			t.Errorf("appendLiteral(%#v) = %q, %v; want %q", tc.arg, l, err, tc.literal)
		}
		c, err := appendCopyValue(nil, tc.arg)
		if err != nil || string(c) != tc.copyText {
			t.Errorf("appendCopyValue(%#v) = %q, %v; want %q", tc.arg, c, err, tc.copyText)
		}
	}
	if l, _ := appendLiteral(nil, `a\'`, true); string(l) != `'a\\'''` {
		t.Errorf("literal with escaped backslash = %q", l)
	}
	for _, bad := range []any{struct{}{}, uint64(1)} {
		if _, _, err := appendParam(nil, bad); err == nil {
			t.Errorf("appendParam(%T) succeeded", bad)
		}
		if _, err := appendLiteral(nil, bad, false); err == nil {
			t.Errorf("appendLiteral(%T) succeeded", bad)
		}
		if _, err := appendCopyValue(nil, bad); err == nil {
			t.Errorf("appendCopyValue(%T) succeeded", bad)
		}
	}
}

func TestParamsKeepEmptyStringsApartFromNull(t *testing.T) {
	var p params
	values, err := p.encode([]any{"", nil, int64(12), "abc"})
	if err != nil {
		t.Fatal(err)
	}
	if values[0] == nil || len(values[0]) != 0 || values[1] != nil || string(values[2]) != "12" || string(values[3]) != "abc" {
		t.Errorf("encode = %q (nil at 1 only expected)", values)
	}
}
