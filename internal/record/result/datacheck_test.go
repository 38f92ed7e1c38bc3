package result

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDataCheckString(t *testing.T) {
	for _, tc := range []struct {
		c    DataCheck
		want string
	}{
		{DataCheck{Option: "warehouses", Found: "2", Source: "tpcc_meta"}, "warehouses 2 (tpcc_meta; not given)"},
		{DataCheck{Option: "warehouses", Asked: "2", Found: "2", Source: "tpcc_meta"}, "warehouses 2 (tpcc_meta)"},
		{DataCheck{Option: "table-size", Asked: "10000", Found: "5000..10000", Source: "MAX(id) of sbtest1..sbtest4", Differs: true},
			"table-size asked 10000, found 5000..10000 (MAX(id) of sbtest1..sbtest4)"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestWarningsAndDataRoundTrip writes the 1.3 fields and reads them back; a
// result without them omits them.
func TestWarningsAndDataRoundTrip(t *testing.T) {
	r := sample()
	r.Warnings = []string{"--table-size is 10000, but the largest id is 5000 in sbtest1"}
	r.Data = []DataCheck{{Option: "table-size", Asked: "10000", Found: "5000", Source: "MAX(id) of sbtest1", Differs: true}}
	var buf bytes.Buffer
	if err := Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"warnings": [`, `"data": [`, `"option": "table-size"`, `"differs": true`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	got, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Warnings, r.Warnings) || !reflect.DeepEqual(got.Data, r.Data) {
		t.Errorf("read back warnings %q data %+v", got.Warnings, got.Data)
	}
	buf.Reset()
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	if _, ok := top["warnings"]; ok {
		t.Errorf("a result without warnings writes the field")
	}
	if _, ok := top["data"]; ok {
		t.Errorf("a result without data checks writes the field")
	}
}

// TestMergeKeepsWarningsPerClient: each client's warnings, named by client;
// the data checks of the first client (they read one database).
func TestMergeKeepsWarningsPerClient(t *testing.T) {
	parts := threeClients(t)
	for _, p := range parts {
		p.Result.Data = []DataCheck{{Option: "table-size", Asked: "100", Found: "50", Source: "MAX(id) of sbtest1", Differs: true}}
	}
	parts[0].Result.Warnings = []string{"tables shrank"}
	parts[2].Result.Warnings = []string{"tables shrank"}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"client 1 (c1.json): tables shrank", // merged in client id order
		"client 2 (c2.json): tables shrank",
	}
	if !reflect.DeepEqual(m.Warnings, want) {
		t.Errorf("merged warnings %q, want %q", m.Warnings, want)
	}
	if len(m.Data) != 1 || m.Data[0].Found != "50" {
		t.Errorf("merged data %+v", m.Data)
	}
}
