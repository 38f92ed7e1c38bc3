package script

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	"\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
	"-- c\nselect :x::int, 'a:b', \"c:d\" /* :z */, $$;$$, e'\\\\';\nselect 1 \\gset p_\n\\set y :p_a + 1\n",
	"\\if :client_id = 0\n\\sleep 1 ms\n\\elif :x\nselect 1 as a \\aset\n\\else\n\\set x debug(1)\n\\endif\n",
	"\\set x 1 + \\\n 2\n\\sleep :x us\nselect (1; 2);\n",
	"\\if 1\n\\if 0\n\\else\n\\endif\n\\endif\nselect :'x';\n\\setshell x\n\\foo\n",
}

// FuzzParse checks that Parse never panics, that its errors are *Error with
// a position inside the text, and that an accepted script parses again, to
// the same commands, from its commands' Texts.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("f.sql", text)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse error %v is not an *Error", err)
			}
			if se.Line < 1 || se.Column < 1 || se.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("Parse error at %d:%d outside the text", se.Line, se.Column)
			}
			return
		}
		var again strings.Builder
		for _, c := range s.Commands {
			again.WriteString(c.Text)
			if c.Kind == KindSQL && c.Store == StoreNone {
				again.WriteString(";")
			}
			again.WriteString("\n")
		}
		s2, err := Parse("f.sql", again.String())
		if err != nil {
			t.Fatalf("the commands' texts do not parse: %v\n%s", err, again.String())
		}
		if a, b := shape(s), shape(s2); a != b {
			t.Fatalf("parsing the commands' texts gives other commands:\n%s\n---\n%s", a, b)
		}
	})
}

// shape renders what a script does, without positions.
func shape(s *Script) string {
	var b strings.Builder
	for _, c := range s.Commands {
		e := ""
		if c.Expr != nil {
			e = c.Expr.String()
		}
		fmt.Fprintf(&b, "%d %q %q %q %d %q %q %s %q %d %v %d %d\n", c.Kind, c.Text, c.SQL, c.Params, c.Store, c.Prefix,
			c.Var, e, c.SleepVar, c.SleepCount, c.SleepUnit, c.Next, c.End)
	}
	return b.String()
}

// fuzzExec answers every query with one row of two columns, or none for
// every other \aset.
type fuzzExec struct{ n int }

func (f *fuzzExec) SQL(_ context.Context, _ int, cmd *Command, args []any) (Row, error) {
	if len(args) != len(cmd.Params) {
		return Row{}, fmt.Errorf("%d args for %d parameters", len(args), len(cmd.Params))
	}
	f.n++
	if cmd.Store == StoreAset && f.n%2 == 0 {
		return Row{}, nil
	}
	return Row{Rows: 1, Columns: []string{"a", "b"}, Values: []any{int64(f.n), "x"}}, nil
}

func (f *fuzzExec) Sleep(context.Context, time.Duration) error { return nil }

// FuzzRun parses a script and runs it a few times for two clients with
// every variable it reads defined: it never panics and its errors are
// *Error.
func FuzzRun(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "7")
	}
	f.Fuzz(func(t *testing.T, text, value string) {
		s, err := Parse("f.sql", text)
		if err != nil {
			return
		}
		defines := map[string]Value{}
		for _, name := range s.Uses() {
			if name != "client_id" {
				defines[name] = TextValue(value)
			}
		}
		for id := 0; id < 2; id++ {
			c := NewClient(ClientConfig{ID: id, Clients: 2, Seed: 42, Scale: 3, Defines: defines, Scripts: []*Script{s}})
			for range 3 {
				c.Mark()
				err := c.Run(context.Background(), s, &fuzzExec{})
				c.Rewind()
				var se *Error
				if err != nil && !errors.As(err, &se) {
					t.Fatalf("Run error %v is not an *Error", err)
				}
			}
		}
	})
}
