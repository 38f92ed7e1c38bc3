package cpuset

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseString(t *testing.T) {
	tests := []struct {
		in, want string
		n        int
	}{
		{"", "", 0},
		{"\n", "", 0},
		{"0", "0", 1},
		{"0-1\n", "0-1", 2},
		{"0-3,8,10-11", "0-3,8,10-11", 7},
		{"3,2,1,0", "0-3", 4},
		{"0-3,2-5", "0-5", 6},
		{"0,0,0", "0", 1},
		{"1,3,5", "1,3,5", 3},
		{"4-4", "4", 1},
		{"0-1,2-3", "0-3", 4},
		{" 0 - 2 , 7 ", "0-2,7", 4},
		{"65535", "65535", 1},
		{"0-15,32-47", "0-15,32-47", 32},
	}
	for _, tt := range tests {
		s, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := s.String(); got != tt.want || s.Len() != tt.n {
			t.Errorf("Parse(%q) = %q (%d CPUs), want %q (%d)", tt.in, got, s.Len(), tt.want, tt.n)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, bad string }{
		{"a", `"a"`},
		{"0-3,x", `"x"`},
		{"0,,1", "empty entry"},
		{"0,", "empty entry"},
		{"3-1", `"3-1" runs backwards`},
		{"-1", `"-1"`},
		{"1-", `"1-"`},
		{"0-3:2/4", `"0-3:2/4"`},
		{"65536", "too large"},
		{"0-99999999999999999999", "too large"},
		{"1.5", `"1.5"`},
		{"+1", `"+1"`},
		{"0x1", `"0x1"`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q): no error", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.bad) {
			t.Errorf("Parse(%q) = %v, want it to name %s", tt.in, err, tt.bad)
		}
	}
}

func TestSetOperations(t *testing.T) {
	a, b := MustParse("0-7"), MustParse("4-11,20")
	if got := a.Intersect(b).String(); got != "4-7" {
		t.Errorf("Intersect = %q", got)
	}
	if got := a.Union(b).String(); got != "0-11,20" {
		t.Errorf("Union = %q", got)
	}
	if got := b.Minus(a).String(); got != "8-11,20" {
		t.Errorf("Minus = %q", got)
	}
	if !a.Overlaps(b) || a.Overlaps(MustParse("8-9")) || a.Overlaps(Set{}) {
		t.Error("Overlaps wrong")
	}
	if !a.Contains(0) || !a.Contains(7) || a.Contains(8) || (Set{}).Contains(0) {
		t.Error("Contains wrong")
	}
	if !MustParse("1-2").SubsetOf(a) || b.SubsetOf(a) || !(Set{}).SubsetOf(a) {
		t.Error("SubsetOf wrong")
	}
	if !Of(3, 1, 2, 2).Equal(MustParse("1-3")) || Range(2, 5).String() != "2-5" || !Range(5, 2).IsEmpty() {
		t.Error("Of/Range/Equal wrong")
	}
	var u Set
	if err := u.UnmarshalText([]byte("1,0")); err != nil || u.String() != "0-1" {
		t.Errorf("UnmarshalText = %q, %v", u, err)
	}
	if err := u.UnmarshalText([]byte("z")); err == nil {
		t.Error("UnmarshalText(z): no error")
	}
}

func TestOnlineEffective(t *testing.T) {
	status := func(list string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("Name:\tx\nCpus_allowed:\tff\nCpus_allowed_list:\t" + list + "\nMems_allowed_list:\t0\n")}
	}
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
		err   string
	}{
		{"affinity only, no cgroup file", fstest.MapFS{"proc/7/status": status("0-7")}, "0-7", ""},
		{"cgroup v2 leaf narrows", fstest.MapFS{
			"proc/7/status": status("0-7"),
			"proc/7/cgroup": {Data: []byte("0::/kubepods/pod1/ctr\n")},
			"sys/fs/cgroup/kubepods/pod1/ctr/cpuset.cpus.effective": {Data: []byte("2-3,6\n")},
			"sys/fs/cgroup/cpuset.cpus.effective":                   {Data: []byte("0-7\n")},
		}, "2-3,6", ""},
		{"cgroup v2 nearest ancestor", fstest.MapFS{
			"proc/7/status":                         status("0-7"),
			"proc/7/cgroup":                         {Data: []byte("0::/a/b\n")},
			"sys/fs/cgroup/a/cpuset.cpus.effective": {Data: []byte("4-5\n")},
		}, "4-5", ""},
		{"cgroup v1 cpuset", fstest.MapFS{
			"proc/7/status": status("0-3"),
			"proc/7/cgroup": {Data: []byte("4:memory:/x\n3:cpuset:/docker/abc\n0::/\n")},
			"sys/fs/cgroup/cpuset/docker/abc/cpuset.effective_cpus": {Data: []byte("1-2\n")},
		}, "1-2", ""},
		{"cgroup without cpuset files", fstest.MapFS{
			"proc/7/status": status("0-1"),
			"proc/7/cgroup": {Data: []byte("0::/user.slice\n")},
		}, "0-1", ""},
		{"no process", fstest.MapFS{}, "", "process 7"},
		{"no Cpus_allowed_list", fstest.MapFS{"proc/7/status": {Data: []byte("Name:\tx\n")}}, "", "no Cpus_allowed_list"},
		{"bad cgroup list", fstest.MapFS{
			"proc/7/status":                       status("0-1"),
			"proc/7/cgroup":                       {Data: []byte("0::/\n")},
			"sys/fs/cgroup/cpuset.cpus.effective": {Data: []byte("zz\n")},
		}, "", "cpuset.cpus.effective"},
	}
	for _, tt := range tests {
		got, err := Effective(tt.files, 7)
		checkList(t, tt.name+": Effective", got.String(), err, tt.want, tt.err)
	}
	on, err := Online(fstest.MapFS{onlinePath: {Data: []byte("0-3,6\n")}})
	if err != nil || on.String() != "0-3,6" {
		t.Errorf("Online = %q, %v", on, err)
	}
	if _, err := Online(fstest.MapFS{}); err == nil {
		t.Error("Online without the file: no error")
	}
}

func TestProcessList(t *testing.T) {
	status := func(list string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("Name:\tx\nCpus_allowed_list:\t" + list + "\n")}
	}
	online := &fstest.MapFile{Data: []byte("0-3\n")}
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
		err   string
	}{
		{"every online CPU is left empty", fstest.MapFS{onlinePath: online, "proc/7/status": status("0-3")}, "", ""},
		{"affinity beyond the online CPUs is every online CPU", fstest.MapFS{onlinePath: online, "proc/7/status": status("0-63")}, "", ""},
		{"affinity of some CPUs", fstest.MapFS{onlinePath: online, "proc/7/status": status("1,3")}, "1,3", ""},
		{"cgroup cpuset narrows the affinity", fstest.MapFS{
			onlinePath:      online,
			"proc/7/status": status("0-3"),
			"proc/7/cgroup": {Data: []byte("0::/system.slice/mariadb.service\n")},
			"sys/fs/cgroup/system.slice/mariadb.service/cpuset.cpus.effective": {Data: []byte("2-3\n")},
		}, "2-3", ""},
		{"offline CPUs are left out", fstest.MapFS{onlinePath: {Data: []byte("0-1,3\n")}, "proc/7/status": status("1-3")}, "1,3", ""},
		{"no online file: the list as read", fstest.MapFS{"proc/7/status": status("0-3")}, "0-3", ""},
		{"no such process", fstest.MapFS{onlinePath: online}, "", "process 7"},
	}
	for _, tt := range tests {
		got, err := ProcessList(tt.files, 7)
		checkList(t, tt.name+": ProcessList", got, err, tt.want, tt.err)
	}
}

// checkList checks a CPU list read from a fixture: the list want, or an
// error containing wantErr when that is not empty.
func checkList(t *testing.T, what, got string, err error, want, wantErr string) {
	t.Helper()
	switch {
	case wantErr != "":
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", what, err, wantErr)
		}
	case err != nil:
		t.Errorf("%s: %v", what, err)
	case got != want:
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "0", "0-3,8,10-11", "3-1", "0,,1", "65535", "65536", "0-3:2/4", " 1 , 2-2 ", "a-b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			return
		}
		canon := s.String()
		back, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", in, canon, err)
		}
		if !back.Equal(s) || back.String() != canon {
			t.Fatalf("Parse(%q) = %q, round trip %q", in, canon, back)
		}
		for _, id := range s.CPUs() {
			if id < 0 || id >= MaxCPU {
				t.Fatalf("Parse(%q) holds CPU %d", in, id)
			}
		}
	})
}
