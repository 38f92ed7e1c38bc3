package cpuset

import (
	"os"
	"strings"
	"testing"
)

// TestPinnedClient: ClientEnv is believed only when this process has the
// mask it names; then Usable of this process is what it could use before.
func TestPinnedClient(t *testing.T) {
	own, err := Effective(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	before := Range(0, own.CPUs()[own.Len()-1]+8)
	other := Of(own.CPUs()[own.Len()-1] + 1)
	tests := []struct {
		env  string
		ok   bool
		want string // error
	}{
		{own.String() + ";" + before.String(), true, ""},
		{other.String() + ";" + before.String(), false, "says this process runs on CPUs " + other.String()},
		{own.String(), false, "want CLIENT-CPUS;USABLE-CPUS"},
		{"x;0", false, `"x" is not a CPU id`},
		{";0", false, "no CPUs"},
	}
	for _, tt := range tests {
		t.Setenv(ClientEnv, tt.env)
		c, ok, err := PinnedClient()
		if ok != tt.ok || (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s=%q: %+v, %v, %v; want ok %v, error %q", ClientEnv, tt.env, c, ok, err, tt.ok, tt.want)
			continue
		}
		usable, err := Usable(os.DirFS("/"), os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if ok && (!c.CPUs.Equal(own) || !c.Before.Equal(before) || !usable.Equal(before)) {
			t.Errorf("%s=%q: client %+v, Usable %s; want %s, before and Usable %s", ClientEnv, tt.env, c, usable, own, before)
		}
		if !ok && usable.Equal(before) {
			t.Errorf("%s=%q, not believed, still gives Usable %s", ClientEnv, tt.env, usable)
		}
	}
}

// TestCommandDropsClientEnv: a pinned client's mark does not reach the
// programs it starts pinned.
func TestCommandDropsClientEnv(t *testing.T) {
	t.Setenv(ClientEnv, "0;0")
	usable, err := Online(os.DirFS("/"))
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := Command(t.Context(), Of(usable.CPUs()[0]), nil, "sh", "-c", "echo ${"+ClientEnv+"-unset}")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "unset\n" {
		t.Errorf("%s in the pinned program: %q, %v", ClientEnv, out, err)
	}
}
