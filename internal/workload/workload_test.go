package workload

import (
	"strings"
	"testing"
)

// TestLookupUnknown: an unknown workload's error lists the workloads as
// text and names the nearest when one is near.
func TestLookupUnknown(t *testing.T) {
	r := NewRegistry(Spec{Name: "oltp_point_select"}, Spec{Name: "oltp_read_write"}, Spec{Name: "tpcc"})
	for _, tc := range []struct{ name, want string }{
		{"oltp_point_selec", `unknown workload "oltp_point_selec"; did you mean "oltp_point_select"? The workloads are oltp_point_select, oltp_read_write, tpcc ('fairbench list' describes them)`},
		{"nothing", `unknown workload "nothing": the workloads are oltp_point_select, oltp_read_write, tpcc ('fairbench list' describes them)`},
	} {
		if _, err := r.Lookup(tc.name); err == nil || err.Error() != tc.want {
			t.Errorf("Lookup(%q): %v, want %s", tc.name, err, tc.want)
		}
	}
	if s, err := r.Lookup("tpcc"); err != nil || s.Name != "tpcc" {
		t.Errorf("Lookup(tpcc) = %+v, %v", s, err)
	}
	if _, err := r.Lookup("x"); err != nil && strings.Contains(err.Error(), "[") {
		t.Errorf("the list is a Go slice: %v", err)
	}
}
