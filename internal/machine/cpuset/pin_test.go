package cpuset

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"
)

// The test binary links this package, so its init serves the pinned-exec
// mode just as fairbench's does.

func TestCommandPins(t *testing.T) {
	usable, err := Usable(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []Set{Of(usable.CPUs()[0]), usable} {
		cmd, err := Command(context.Background(), set, nil, "sh", "-c", `grep Cpus_allowed_list /proc/self/status; echo "pin=${`+PinEnv+`-unset}"`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		want := "Cpus_allowed_list:\t" + set.String() + "\npin=unset\n"
		if string(out) != want {
			t.Errorf("pinned to %s: got %q, want %q", set, out, want)
		}
	}
}

func TestPinnedExecFailures(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ list, prog, want string }{
		{"x", "/bin/true", `"x" is not a CPU id`},
		{"", "/bin/true", "no CPUs to pin to"},
		{"4000", "/bin/true", "CPUs below 1024"},
		{"0", "/nonexistent/prog", "exec /nonexistent/prog"},
	}
	for _, tt := range tests {
		cmd := exec.Command(self, tt.prog)
		cmd.Env = append(os.Environ(), PinEnv+"="+tt.list)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || !strings.Contains(string(out), tt.want) {
			t.Errorf("pin %q %s: %v, %q; want exit 127 naming %q", tt.list, tt.prog, err, out, tt.want)
		}
	}
	if _, err := Command(context.Background(), Set{}, nil, "/bin/true"); err == nil {
		t.Error("Command with no CPUs: no error")
	}
	if _, err := Command(context.Background(), Of(0), nil, "no-such-program-here"); err == nil || !strings.Contains(err.Error(), "no-such-program-here") {
		t.Errorf("Command of a missing program: %v", err)
	}
}

func TestCheckUsable(t *testing.T) {
	fsys := fstest.MapFS{
		onlinePath:                              {Data: []byte("0-7\n")},
		"proc/9/status":                         {Data: []byte("Cpus_allowed_list:\t0-5\n")},
		"proc/9/cgroup":                         {Data: []byte("0::/c\n")},
		"sys/fs/cgroup/c/cpuset.cpus.effective": {Data: []byte("1-6\n")},
	}
	tests := []struct {
		list, want string
	}{
		{"1-5", ""},
		{"3", ""},
		{"0", "--cpus 0: CPU 0 not usable here: this process may use CPUs 1-5 (online: 0-7"},
		{"5-9", "CPU 6-9 not usable here"},
		{"", "no CPUs given"},
	}
	for _, tt := range tests {
		err := CheckUsable(fsys, 9, MustParse(tt.list), "--cpus")
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckUsable(%q) = %v, want %q", tt.list, err, tt.want)
		}
	}
}
