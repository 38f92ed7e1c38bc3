package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// TestPinnedExecMode: the fairbench binary serves the hidden pinned-exec
// mode that server start --cpus uses (cpuset.Command): it pins itself, then
// becomes the program, which sees the mask and not the mode's variable.
func TestPinnedExecMode(t *testing.T) {
	usable, err := cpuset.Usable(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	last := cpuset.Of(usable.CPUs()[usable.Len()-1])
	bin := buildBinary(t)
	cmd := exec.Command(bin, "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo pin=${"+cpuset.PinEnv+"-unset}")
	cmd.Env = append(os.Environ(), cpuset.PinEnv+"="+last.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := "Cpus_allowed_list:\t" + last.String() + "\npin=unset\n"; string(out) != want {
		t.Errorf("pinned exec printed %q, want %q", out, want)
	}
	// A bad list: refused with the reason, exit 127, nothing run.
	cmd = exec.Command(bin, "/bin/echo", "PROGRAM-RAN")
	cmd.Env = append(os.Environ(), cpuset.PinEnv+"=zero")
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || !strings.Contains(string(out), `fairbench: pinned start (FAIRBENCH_PIN_EXEC is set): CPU list "zero"`) || strings.Contains(string(out), "PROGRAM-RAN") {
		t.Errorf("bad list: %v, %q", err, out)
	}
}
