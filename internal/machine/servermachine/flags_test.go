package servermachine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestRegisterFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Spec
		err  string
	}{
		{[]string{"--server-machine", "a.json", "--server-machine=tikv=b.json,pd=c.json", "--server-role", "tidb"},
			Spec{Files: []FileRef{{File: "a.json"}, {Role: "tikv", File: "b.json"}, {Role: "pd", File: "c.json"}}, Role: "tidb"}, ""},
		{[]string{"--server-arch=x86_64", "--server-cpu-model", "Xeon", "--server-vcpus=24", "--server-ghz=3", "--server-memory=64G",
			"--server-instance-type=c6i.8xlarge", "--server-region=us-east-1", "--server-zone=us-east-1a", "--server-pid=42"},
			Spec{Arch: "amd64", CPUModel: "Xeon", VCPUs: 24, GHz: 3, Memory: "64G", InstanceType: "c6i.8xlarge", Region: "us-east-1", Zone: "us-east-1a", PID: 42}, ""},
		{[]string{"--server-vcpus=0"}, Spec{}, `invalid argument "0" for "--server-vcpus" flag: "0": give the machine's logical CPUs, 1 to 65536`},
		{[]string{"--server-ghz=3000"}, Spec{}, "give GHz, not MHz (3)"},
		{[]string{"--server-ghz=fast"}, Spec{}, `"fast" is not a number of GHz`},
		{[]string{"--server-memory=64"}, Spec{}, "give a unit"},
		{[]string{"--server-arch=sparc"}, Spec{}, "unknown architecture"},
		{[]string{"--server-pid=-3"}, Spec{}, "not a process id"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		var s Spec
		RegisterFlags(fs, &s, true)
		err := fs.Parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err == nil {
			err = s.Validate()
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		s.memoryBytes = 0
		if !reflect.DeepEqual(s, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.args, s, tc.want)
		}
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	RegisterFlags(fs, &Spec{}, false)
	if fs.Lookup("server-pid") != nil {
		t.Error("--server-pid registered without withPID")
	}
}

func TestValidate(t *testing.T) {
	s := Spec{Arch: "AArch64", Memory: "1.5GiB", GHz: 2.6}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Arch != "arm64" || s.MemoryBytes() != 3<<29 {
		t.Fatalf("%+v", s)
	}
	bad := Spec{Files: []FileRef{{Role: "a", File: "x"}, {Role: "a", File: "y"}}}
	err := bad.Validate()
	fe, ok := err.(*FieldError)
	if !ok || fe.Key != "files" || fe.Flag != "--server-machine" || !strings.Contains(fe.Msg, "both have the role a") {
		t.Fatalf("error %#v", err)
	}
}
