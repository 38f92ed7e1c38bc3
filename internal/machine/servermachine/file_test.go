package servermachine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

func TestParseMachine(t *testing.T) {
	full, _ := json.Marshal(here)
	for _, tc := range []struct {
		name string
		in   string
		want result.ServerMachine
		err  string
	}{
		{"sysinfo output", string(full), result.ServerMachine{Machine: here, Source: result.ServerSourceFile}, ""},
		{"uname arch", `{"arch":"aarch64","logical_cpus":8}`, result.ServerMachine{Machine: result.Machine{Arch: "arm64", LogicalCPUs: 8}, Source: result.ServerSourceFile}, ""},
		{"server machine with role", `{"arch":"arm64","logical_cpus":8,"role":"tikv","source":"agent","agent":"http://db:9100","pid":5}`,
			result.ServerMachine{Machine: result.Machine{Arch: "arm64", LogicalCPUs: 8}, Role: "tikv", Source: result.ServerSourceFile, PID: 5}, ""},
		{"unknown field", `{"arch":"amd64","logical_cpus":8,"vcpus":8}`, result.ServerMachine{}, `unknown field "vcpus"`},
		{"wrong type", `{"arch":"amd64","logical_cpus":"8"}`, result.ServerMachine{}, "logical_cpus"},
		{"a result file", `{"schema":"1.4","workload":"tpcc","machine":{}}`, result.ServerMachine{}, "this is a result file, not a machine"},
		{"empty", ``, result.ServerMachine{}, "the file is empty"},
		{"empty object", `{}`, result.ServerMachine{}, "describes no machine"},
		{"two documents", `{"arch":"amd64"} {"arch":"arm64"}`, result.ServerMachine{}, "more follows"},
		{"negative cpus", `{"arch":"amd64","logical_cpus":-1}`, result.ServerMachine{}, "logical_cpus -1"},
		{"MHz as GHz", `{"arch":"amd64","given_ghz":2600}`, result.ServerMachine{}, "given_ghz"},
		{"bad cpu list", `{"arch":"amd64","cpu_list":"3-1"}`, result.ServerMachine{}, "cpu_list"},
		{"bad role", `{"arch":"amd64","role":"Ti KV"}`, result.ServerMachine{}, "role"},
		{"unknown arch", `{"arch":"vax"}`, result.ServerMachine{}, "unknown architecture"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMachine([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseFileRefs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []FileRef
		err  string
	}{
		{"db.json", []FileRef{{File: "db.json"}}, ""},
		{"tidb=a.json, tikv=/x/b.json", []FileRef{{Role: "tidb", File: "a.json"}, {Role: "tikv", File: "/x/b.json"}}, ""},
		{"/data/a=b.json", []FileRef{{File: "/data/a=b.json"}}, ""},
		{"tikv=", nil, "names no file"},
		{"", nil, ""},
	} {
		got, err := ParseFileRefs(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFileRefs(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseFileRefs(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseMachine(f *testing.F) {
	full, _ := json.Marshal(here)
	for _, s := range []string{string(full), `{"arch":"aarch64","logical_cpus":8}`, `{"role":"tikv","arch":"arm64","cpu_list":"0-3"}`,
		`{"schema":"1.4","workload":"x"}`, `{}`, ``, `{"arch":"amd64"} 1`, `{"given_ghz":1e308}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMachine(data)
		if err != nil {
			return
		}
		if m.Source != result.ServerSourceFile || (m.Arch == "" && m.CPUModel == "" && m.LogicalCPUs == 0) {
			t.Fatalf("accepted %q as %+v", data, m)
		}
		// What was accepted is read back the same once written.
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseMachine(b)
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("%q → %s → %+v, %v", data, b, again, err)
		}
	})
}

func FuzzParseFileRefs(f *testing.F) {
	for _, s := range []string{"db.json", "tidb=a.json,tikv=b.json", "/a=b", "x=,", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		refs, err := ParseFileRefs(s)
		if err != nil {
			return
		}
		for _, r := range refs {
			if r.File == "" || strings.Contains(r.File, ",") || (r.Role != "" && !roleRE().MatchString(r.Role)) {
				t.Fatalf("%q gave %+v", s, r)
			}
		}
	})
}
