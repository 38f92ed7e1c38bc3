package suggest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestNearest(t *testing.T) {
	for _, tc := range []struct{ s, want string }{{"treads", "threads"}, {"threads", "threads"}, {"xyz", ""}, {"round", "rounds"}} {
		if got := Nearest(tc.s, []string{"threads", "rounds", "workloads"}); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestQuoted(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{{nil, ""}, {[]string{"run"}, `"run"`}, {[]string{"a", "b"}, `"a" or "b"`}, {[]string{"a", "b", "c"}, `"a", "b" or "c"`}} {
		if got := Quoted(tc.names); got != tc.want {
			t.Errorf("Quoted(%q) = %s, want %s", tc.names, got, tc.want)
		}
	}
}

// TestFlagError parses command lines with pflag and checks the reworded
// errors: the flag is named with what it takes, never strconv's wording.
func TestFlagError(t *testing.T) {
	newSet := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.Int("threads", 1, "")
		fs.Uint64("rand-seed", 0, "")
		fs.Float64("rate", 0, "")
		fs.Bool("histogram", false, "")
		fs.Duration("interval", time.Second, "")
		fs.IntSlice("weight", nil, "")
		fs.String("format", "text", "")
		fs.Var(&failing{}, "cpus", "")
		return fs
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--thread=2"}, "unknown flag --thread; did you mean --threads?"},
		{[]string{"--fromat", "json"}, "unknown flag --fromat; did you mean --format?"},
		{[]string{"--nothing-like-it"}, "unknown flag --nothing-like-it"},
		{[]string{"--threads=two"}, `--threads: "two" is not a whole number (e.g. --threads=8)`},
		{[]string{"--threads=99999999999999999999"}, `--threads: "99999999999999999999" is out of range for a whole number (e.g. --threads=8)`},
		{[]string{"--rand-seed=-1"}, `--rand-seed: "-1" is not a whole number, 0 or more (e.g. --rand-seed=8)`},
		{[]string{"--rate=fast"}, `--rate: "fast" is not a number (e.g. --rate=2.5)`},
		{[]string{"--histogram=maybe"}, `--histogram: "maybe" is not true or false (e.g. --histogram=true)`},
		{[]string{"--interval=5x"}, `--interval: "5x" is not a duration (e.g. --interval=90s)`},
		{[]string{"--weight=1,x"}, `--weight: "1,x" is not a comma list of whole numbers (e.g. --weight=1,2)`},
		{[]string{"--cpus=x"}, `--cpus: "x" is not a CPU list`},
		{[]string{"--threads"}, "--threads needs a value (e.g. --threads=8)"},
		{[]string{"--format"}, "--format needs a value: --format=STRING"},
	} {
		fs := newSet()
		err := fs.Parse(tc.args)
		if err == nil {
			t.Fatalf("%q parsed", tc.args)
		}
		got := FlagError(err, fs)
		if got.Error() != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
		if strings.Contains(got.Error(), "strconv") || strings.Contains(got.Error(), "invalid argument") {
			t.Errorf("%q: %q keeps pflag's wording", tc.args, got)
		}
	}
	other := errors.New("something else")
	if got := FlagError(other, newSet()); got != other {
		t.Errorf("another error became %v", got)
	}
}

// failing is a flag value of its own type whose error says what it takes.
type failing struct{}

func (failing) String() string { return "" }
func (failing) Type() string   { return "LIST" }
func (failing) Set(s string) error {
	return errors.New(`"` + s + `" is not a CPU list`)
}
