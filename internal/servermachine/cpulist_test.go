package servermachine

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseFormatCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		out  string
		err  bool
	}{
		{"", nil, "", false},
		{"0", []int{0}, "0", false},
		{"0-3", []int{0, 1, 2, 3}, "0-3", false},
		{"0,2,4-7\n", []int{0, 2, 4, 5, 6, 7}, "0,2,4-7", false},
		{"4-5,0-1,1", []int{0, 1, 4, 5}, "0-1,4-5", false},
		{"3-1", nil, "", true},
		{"a", nil, "", true},
		{"-1", nil, "", true},
		{"0-70000", nil, "", true},
		{"1,,2", nil, "", true},
	} {
		got, err := ParseCPUList(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseCPUList(%q) error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ParseCPUList(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if f := FormatCPUList(got); f != tc.out {
			t.Errorf("FormatCPUList(%v) = %q, want %q", got, f, tc.out)
		}
	}
}

func TestProcessCPUList(t *testing.T) {
	base := fixture()
	narrowed := fstest.MapFS{}
	for k, v := range base {
		narrowed[k] = v
	}
	narrowed["proc/200/status"] = &fstest.MapFile{Data: []byte("Cpus_allowed_list:\t1,3\n")}
	noOnline := fstest.MapFS{}
	for k, v := range base {
		if k != "sys/devices/system/cpu/online" {
			noOnline[k] = v
		}
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		pid  int
		want string
		err  string
	}{
		{"cgroup cpuset narrows the affinity", base, 100, "2-3", ""},
		{"every online CPU is left empty", base, 200, "", ""},
		{"affinity alone", base, 300, "0-1", ""},
		{"affinity of some CPUs", narrowed, 200, "1,3", ""},
		{"no online file: the list as read", noOnline, 200, "0-3", ""},
		{"no such process", base, 999, "", "process 999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ProcessCPUList(tc.fsys, tc.pid)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ProcessCPUList = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"", "0", "0-3", "0,2,4-7", "4-5,0-1", "3-1", "x", "0-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		again, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(again, cpus) {
			t.Fatalf("%q → %v → %q → %v, %v", s, cpus, FormatCPUList(cpus), again, err)
		}
	})
}
