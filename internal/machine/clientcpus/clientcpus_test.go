package clientcpus

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"", "", ""},
		{" ", "", ""},
		{"2-3", "2-3", ""},
		{"3,2", "2-3", ""},
		{"rest", "rest", ""},
		{" REST ", "rest", ""},
		{"x", "", `"x" is not a CPU id or a range of them (write ids and ranges such as 0-3,8), or rest`},
		{"3-1", "", "runs backwards"},
	}
	for _, tt := range tests {
		s, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) = %v, want an error with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || s.String() != tt.want || s.IsZero() != (tt.want == "") {
			t.Errorf("Parse(%q) = %q (zero %v), %v; want %q", tt.in, s, s.IsZero(), err, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	usable := cpuset.MustParse("0-7")
	server := Server{Local: true, CPUs: cpuset.MustParse("0-5"), What: "mariadbd (pid 9)"}
	unknown := Server{Local: true, What: "permission denied"}
	remote := Server{}
	spec := func(s string) Spec {
		sp, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	tests := []struct {
		name    string
		spec    Spec
		srv     Server
		allow   bool
		cpus    string
		shared  string
		warning string
		err     string
	}{
		{"unpinned, local server", Spec{}, server, false, "", AdviceUnpinned, "", ""},
		{"unpinned, remote server", Spec{}, remote, false, "", "", "", ""},
		{"apart", spec("6-7"), server, false, "6-7", "", "", ""},
		{"rest", spec("rest"), server, false, "6-7", "", "", ""},
		{"overlap refused", spec("5-6"), server, false, "", "", "", "--client-cpus 5-6: CPU 5 is also the database server's (mariadbd (pid 9) may use CPUs 0-5)"},
		{"overlap allowed", spec("5-6"), server, true, "5-6", AdviceAllowed, "", ""},
		{"allowed, no overlap", spec("6"), server, true, "6", "", "", ""},
		{"not usable", spec("7-9"), server, false, "", "", "", "--client-cpus 7-9: CPU 8-9 not usable here: this process may use CPUs 0-7"},
		{"remote server: any usable list", spec("0-1"), remote, false, "0-1", "", "", ""},
		{"rest, remote server", spec("rest"), remote, false, "", "", "", "the server does not run on this machine"},
		{"rest, server CPUs unknown", spec("rest"), unknown, false, "", "", "", "the server's CPUs are not known (permission denied)"},
		{"rest, nothing left", spec("rest"), Server{Local: true, CPUs: usable, What: "x"}, false, "", "", "", "none is left for the client"},
		{"server CPUs unknown", spec("1"), unknown, false, "1", "", "whether the client's CPUs 1 overlap them was not checked", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Resolve(tt.spec, usable, tt.srv, tt.allow, "--client-cpus")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.CPUs.String() != tt.cpus || d.Shared != tt.shared || strings.Join(d.Warnings, "|") != "" != (tt.warning != "") ||
				tt.warning != "" && !strings.Contains(d.Warnings[0], tt.warning) {
				t.Errorf("got %+v, want CPUs %q shared %q warning %q", d, tt.cpus, tt.shared, tt.warning)
			}
		})
	}
}

// FuzzParse: no input panics, and what parses prints as it reads again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "rest", "0-3,8", "x", "1-", "65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			return
		}
		again, err := Parse(s.String())
		if err != nil || again.String() != s.String() || again.Rest != s.Rest || !again.List.Equal(s.List) {
			t.Fatalf("Parse(%q) = %q, which reads back as %q, %v", in, s, again, err)
		}
	})
}
