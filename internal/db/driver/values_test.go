package driver

import (
	sqldriver "database/sql/driver"
	"testing"
	"time"
)

func TestValuesToStrings(t *testing.T) {
	cases := []struct {
		in   sqldriver.Value
		want string
	}{
		{nil, ""},
		{[]byte("bytes"), "bytes"},
		{"text", "text"},
		{int64(-42), "-42"},
		{uint64(18446744073709551615), "18446744073709551615"},
		{1.5, "1.5"},
		{float32(0.1), "0.1"},
		{true, "true"},
		{time.Date(2024, 2, 29, 13, 14, 15, 500000000, time.UTC), "2024-02-29 13:14:15.5"},
		{struct{ A int }{7}, "{7}"},
	}
	in := make([]sqldriver.Value, len(cases))
	for i, tc := range cases {
		in[i] = tc.in
	}
	got := ValuesToStrings(in)
	if len(got) != len(cases) {
		t.Fatalf("got %d strings for %d values", len(got), len(cases))
	}
	for i, tc := range cases {
		if got[i] != tc.want {
			t.Errorf("ValuesToStrings(%#v) = %q, want %q", tc.in, got[i], tc.want)
		}
	}
}

func TestColumnDefinitionAndStandardType(t *testing.T) {
	cases := []struct {
		col    Column
		def    string
		stdOK  bool
		stdTyp string
	}{
		{Column{Name: "k", Type: Integer, NotNull: true, Default: "'0'"}, "k INTEGER DEFAULT '0' NOT NULL", true, "INTEGER"},
		{Column{Name: "s", Type: SmallInt}, "s SMALLINT", true, "SMALLINT"},
		{Column{Name: "b", Type: BigInt, NotNull: true}, "b BIGINT NOT NULL", true, "BIGINT"},
		{Column{Name: "c", Type: Char, Size: 120}, "c CHAR(120)", true, "CHAR(120)"},
		{Column{Name: "v", Type: Varchar, Size: 24, Default: "''"}, "v VARCHAR(24) DEFAULT ''", true, "VARCHAR(24)"},
		{Column{Name: "d", Type: Decimal, Size: 12, Scale: 2}, "d DECIMAL(12,2)", true, "DECIMAL(12,2)"},
		{Column{Name: "f", Type: Float}, "f X", false, ""},
		{Column{Name: "ts", Type: Timestamp, NotNull: true}, "ts X NOT NULL", false, ""},
	}
	for _, tc := range cases {
		typ, ok := StandardType(tc.col)
		if ok != tc.stdOK || typ != tc.stdTyp {
			t.Errorf("StandardType(%s) = %q, %v; want %q, %v", tc.col.Name, typ, ok, tc.stdTyp, tc.stdOK)
		}
		if !ok {
			typ = "X"
		}
		if got := ColumnDefinition(tc.col, typ); got != tc.def {
			t.Errorf("ColumnDefinition(%s) = %q, want %q", tc.col.Name, got, tc.def)
		}
	}
}
