package pgbenchcli

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fuzzPassword is the PGPASSWORD of the fuzz target, which no rendering
// may show.
const fuzzPassword = "pw-do-not-print"

// FuzzParse feeds command lines (arguments separated by single spaces, so
// that empty arguments occur) and environments (NAME=VALUE;NAME=VALUE) to
// Parse: it never panics, refuses with an *Error that has a message, and a
// line it accepts renders (Args) to a line that reads back to the same
// Command and does not show the password.
func FuzzParse(f *testing.F) {
	for _, tc := range goodLines {
		f.Add(tc.args, strings.Join(tc.env, ";"))
	}
	for _, tc := range badLines {
		f.Add(tc.args, strings.Join(tc.env, ";"))
	}
	f.Add("-Sn -c8 -T60 -P1 --progress-timestamp -R 1e3 -L .5 --max-tries=0", "PGPASSWORD=x")
	f.Add("-b tpcb@ 3 -f -x@2 -D é=1 -- -db", "POSIXLY_CORRECT=1")
	f.Add("-i -I ' d' -n --foreign-keys --partitions=2 --partition-method=HaSh", "")
	f.Fuzz(func(t *testing.T, line, envText string) {
		var args []string
		if line != "" {
			args = strings.Split(line, " ")
		}
		env := envOf(append(strings.Split(envText, ";"), "PGPASSWORD="+fuzzPassword)...)
		c, err := Parse(args, env)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("%q: %#v is not an *Error with a message", line, err)
			}
			return
		}
		if c == nil {
			t.Fatalf("%q: neither a Command nor an error", line)
		}
		rendered := c.Args()
		again, err := Parse(rendered, env)
		if err != nil {
			t.Fatalf("%q renders as %q, which Parse refuses: %v", line, rendered, err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("%q renders as %q, which reads differently:\n%+v\n%+v", line, rendered, c, again)
		}
		if !strings.Contains(line, fuzzPassword) {
			for _, s := range append(rendered, c.Differences()...) {
				if strings.Contains(s, fuzzPassword) {
					t.Fatalf("%q: the password shows in %q", line, s)
				}
			}
		}
	})
}
