package script

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/testing/golden"
	"github.com/fairbench/fairbench/internal/workload/pgbench/expr"
)

// parseCases are scripts Parse (and pgbench) accept, with the commands
// they give, one line each: Text, then SQL and Params for an SQL command.
var parseCases = []struct {
	name, src string
	want      []string
}{
	{"multi-line SQL, comments, casts", "-- a comment\n\nselect :x::int,\n  'a:b' -- :y\n  , \"c:d\" /* :z */\n;\n",
		[]string{`3:1: select :x::int, 'a:b' , "c:d" /* :z */ | select ?::int, 'a:b' , "c:d" /* :z */ [x]`}},
	{"semicolons in quotes, parentheses and dollar quotes", "select ';', $$;$$, (select 1; ), e'\\\\;''' ;select 2",
		[]string{`1:1: select ';', $$;$$, (select 1; ), e'\\;''' | select ';', $$;$$, (select 1; ), e'\\;''' []`,
			`1:44: select 2 | select 2 []`}},
	{"a meta-command ends an SQL command", "select :a, :a \\set a 1\n\\set b :a + 1",
		[]string{"1:1: select :a, :a | select ?, ? [a a]", `1:15: \set a 1`, `2:1: \set b :a + 1`}},
	{"continuation lines", "\\set x 1 + \\\n  2 *\\\r\n 3\n\\sleep 10ms\n\\sleep :x us\n",
		[]string{`1:1: \set x 1 + 2 * 3`, `4:1: \sleep 10ms`, `5:1: \sleep :x us`}},
	{"gset and aset", "select 1 as a \\gset\nselect 2 as b;\n\\aset p_\n",
		[]string{`1:1: select 1 as a \gset | select 1 as a []`, `2:1: select 2 as b \aset p_ | select 2 as b []`}},
	{"if chain", "\\if :x\nselect 1;\n\\elif :x = 2\n\\else\n\\endif\n",
		[]string{`1:1: \if :x`, "2:1: select 1 | select 1 []", `3:1: \elif :x = 2`, `4:1: \else`, `5:1: \endif`}},
	{"meta-command names ignore case", "\\SET x 1\n\\Sleep 1 MS\nselect 1; \\set y 2",
		[]string{`1:1: \SET x 1`, `2:1: \Sleep 1 MS`, "3:1: select 1 | select 1 []", `3:11: \set y 2`}},
	{"positional dollar and identifiers with $", "select a$b, $1 from t",
		[]string{"1:1: select a$b, $1 from t | select a$b, $1 from t []"}},
}

func describe(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		line := fmt.Sprintf("%d:%d: %s", c.Line, c.Column, c.Text)
		if c.Kind == KindSQL {
			line += fmt.Sprintf(" | %s %v", c.SQL, c.Params)
		}
		out = append(out, line)
	}
	return out
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.sql", c.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(s); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// parseErrorCases are bad scripts with Parse's exact error; pgbenchRefuses
// says whether real pgbench refuses them too (the others are fairbench's
// refusals of what it does not support).
var parseErrorCases = []struct {
	src, want      string
	pgbenchRefuses bool
}{
	{"", `f.sql:1:1: empty command list: the script has no SQL command nor meta-command`, true},
	{"-- only a comment\n\n", `f.sql:1:1: empty command list: the script has no SQL command nor meta-command`, true},
	{"select 1;\n\\foo bar\n", `f.sql:2:1: unknown meta-command \foo: pgbench's are \set, \sleep, \if, \elif, \else, \endif, \gset, \aset, \setshell, \shell, \startpipeline, \endpipeline`, true},
	{"select 1;\n  \\slep 1\n", `f.sql:2:3: unknown meta-command \slep (did you mean \sleep?)`, true},
	{"\\set x 1 +\n", `f.sql:1:11: syntax error in \set: expected an operand (number, :variable, function call, TRUE, FALSE, NULL, CASE, NOT, unary operator or "("), found end of expression`, true},
	{"\\set x (1 +\\\n 2\n", `f.sql:2:3: syntax error in \set: expected ")", found end of expression`, true},
	{"\\set\n", `f.sql:1:1: \set: missing argument: write \set NAME EXPRESSION`, true},
	{"\\set 1x 2\n", `f.sql:1:6: \set: invalid variable name "1x": a name is letters, digits and _, not starting with a digit`, false},
	{"select 1;\n\\if 1\n", `f.sql:2:1: \if without matching \endif: close it with \endif`, true},
	{"\\if 1\n\\if 2\n\\endif\n", `f.sql:1:1: \if without matching \endif: close it with \endif`, true},
	{"\\endif\n", `f.sql:1:1: \endif without matching \if`, true},
	{"\\else\n", `f.sql:1:1: \else without matching \if`, true},
	{"\\if 1\n\\else\n\\elif 2\n\\endif\n", `f.sql:3:1: \elif after \else: the \else must be the chain's last branch`, true},
	{"\\if 1\n\\else\n\\else\n\\endif\n", `f.sql:3:1: \else after \else: the \else must be the chain's last branch`, true},
	{"\\if 1\n\\else x\n\\endif\n", `f.sql:2:7: \else: unexpected argument "x": it takes none`, true},
	{"\\if\n\\endif\n", `f.sql:1:4: syntax error in \if: expected an operand (number, :variable, function call, TRUE, FALSE, NULL, CASE, NOT, unary operator or "("), found end of expression`, true},
	{"\\sleep\n", `f.sql:1:1: \sleep: missing argument: write \sleep N [us|ms|s] or \sleep :variable [us|ms|s]`, true},
	{"\\sleep 1 ms 2\n", `f.sql:1:13: \sleep: too many arguments: write \sleep N [us|ms|s]`, true},
	{"\\sleep x\n", `f.sql:1:8: \sleep: invalid sleep time "x", must be an integer`, true},
	{"\\sleep 10 min\n", `f.sql:1:11: \sleep: unrecognized time unit "min", must be us, ms or s`, true},
	{"\\sleep 10min\n", `f.sql:1:10: \sleep: unrecognized time unit "min", must be us, ms or s`, true},
	{"\\gset\n", `f.sql:1:1: \gset must follow an SQL command (it stores that command's result): put it right after the query, instead of its semicolon or on the next line`, true},
	{"\\set x 1\n\\aset\n", `f.sql:2:1: \aset must follow an SQL command (it stores that command's result): put it right after the query, instead of its semicolon or on the next line`, true},
	{"select 1 \\gset\n\\gset\n", `f.sql:2:1: \gset must follow an SQL command (it stores that command's result): put it right after the query, instead of its semicolon or on the next line`, true},
	{"select 1 \\gset 1a\n", `f.sql:1:16: \gset: invalid prefix "1a": the variables are named prefix+column, so it must be letters, digits and _, not starting with a digit`, false},
	{"select 1 \\gset a b\n", `f.sql:1:18: \gset: too many arguments: write \gset [PREFIX]`, true},
	{"\\setshell x echo 1\n", `f.sql:1:1: \setshell is not supported: fairbench does not run shell commands from a benchmark script; compute the value with \set, or run the command before the benchmark and pass its output with -D NAME=VALUE`, false},
	{"\\shell true\n", `f.sql:1:1: \shell is not supported: fairbench does not run shell commands from a benchmark script; compute the value with \set, or run the command before the benchmark and pass its output with -D NAME=VALUE`, false},
	{"\\startpipeline\nselect 1;\n\\endpipeline\n", `f.sql:1:1: \startpipeline is not supported: fairbench does not run pgbench's pipeline mode; remove \startpipeline and \endpipeline to send the commands one by one`, false},
	{"select 1 \\; select 2;\n", `f.sql:1:10: \; (several queries sent as one) is not supported: end each query with ; so that each is a command of its own`, false},
	{"select :'x';\n", `f.sql:1:8: :'name' is psql's quoting of a variable, which pgbench does not substitute (the server would get it as written): write :name, which fairbench sends as a parameter`, false},
	{"select data ? 'k' from t;\n", `f.sql:1:13: ? outside quotes: fairbench's drivers take ? as a parameter placeholder; write a variable as :name, and a PostgreSQL ? operator as its function (jsonb_exists and the like)`, false},
	{"select 'abc;\n", `f.sql:1:8: unterminated quoted string: close it with '`, false},
	{"select (1;\nselect 2;\n", `f.sql:1:8: unbalanced parentheses: this ( is never closed, so no ; after it ends the command (pgbench would send the rest as one query)`, false},
	{"select e'a\\'b';\n", `f.sql:1:11: \' in an E'…' string is not supported (fairbench's drivers would take it for the end of the string when looking for ? placeholders): write the quote doubled, ''`, false},
	{"select 1 /* x\n", `f.sql:1:10: unterminated /* comment: close it with */`, false},
	{"select $q$a'b$q$;\n", `f.sql:1:8: a dollar-quoted string holding ', " or ? is not supported (fairbench's drivers would take them for quotes or placeholders): use a '…' string`, false},
}

func TestParseErrors(t *testing.T) {
	for _, c := range parseErrorCases {
		_, err := Parse("f.sql", c.src)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want an *Error", c.src, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", c.src, err, c.want)
		}
	}
}

func TestBuiltins(t *testing.T) {
	if got := strings.Join(BuiltinNames(), " "); got != "tpcb-like simple-update select-only" {
		t.Errorf("BuiltinNames() = %s", got)
	}
	for prefix, want := range map[string]string{"tpcb-like": "tpcb-like", "t": "tpcb-like", "simple": "simple-update", "sel": "select-only"} {
		s, err := Builtin(prefix)
		if err != nil {
			t.Fatalf("Builtin(%q): %v", prefix, err)
		}
		if s.Name != want || s.Weight != 1 || len(s.Hash) != 64 {
			t.Errorf("Builtin(%q) = %s weight %d hash %q", prefix, s.Name, s.Weight, s.Hash)
		}
	}
	for name, want := range map[string]string{
		"s":   `ambiguous built-in script name "s": it begins simple-update and select-only; give more of the name`,
		"foo": `no built-in script named "foo": the built-in scripts are tpcb-like, simple-update, select-only`,
	} {
		if _, err := Builtin(name); err == nil || err.Error() != want {
			t.Errorf("Builtin(%q) = %v, want %s", name, err, want)
		}
	}
	// The texts as --show-script prints them, against a golden file
	// (TestBuiltinsAgainstPgbench compares them with pgbench's own).
	var shown strings.Builder
	for _, name := range BuiltinNames() {
		s, _ := Builtin(name)
		shown.WriteString(ShowScript(s))
	}
	golden.Check(t, "testdata/builtins.golden", []byte(shown.String()))
	s, _ := Builtin("select-only")
	if want := "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"; s.Text != want {
		t.Errorf("select-only text %q", s.Text)
	}
	tpcb, _ := Builtin("tpcb-like")
	if len(tpcb.Commands) != 11 || strings.Join(tpcb.Uses(), " ") != "aid bid delta scale tid" ||
		strings.Join(tpcb.Sets(), " ") != "aid bid delta tid" {
		t.Errorf("tpcb-like: %d commands, uses %v, sets %v", len(tpcb.Commands), tpcb.Uses(), tpcb.Sets())
	}
}

func TestParseWeighted(t *testing.T) {
	for _, c := range []struct {
		arg, name string
		weight    int
		err       string
	}{
		{"x.sql", "x.sql", 1, ""},
		{"x.sql@3", "x.sql", 3, ""},
		{"a@b.sql@2", "a@b.sql", 2, ""},
		{"x.sql@0", "x.sql", 0, ""},
		{"x.sql@+2", "x.sql", 2, ""},
		{"x.sql@-1", "", 0, `weight specification out of range (0 .. 2147483647): -1 in "x.sql@-1"`},
		{"x.sql@2147483648", "", 0, `weight specification out of range (0 .. 2147483647): 2147483648 in "x.sql@2147483648"`},
		{"a@b.sql", "", 0, `invalid weight specification @b.sql in "a@b.sql": write NAME@W with W a whole number (a path holding @ needs an explicit weight: a@b.sql@1)`},
		{"x@", "", 0, `invalid weight specification @ in "x@": write NAME@W with W a whole number (a path holding @ needs an explicit weight: x@@1)`},
	} {
		name, w, err := ParseWeighted(c.arg)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseWeighted(%q) error %v, want %s", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || name != c.name || w != c.weight {
			t.Errorf("ParseWeighted(%q) = %q, %d, %v", c.arg, name, w, err)
		}
	}
}

func TestParseDefine(t *testing.T) {
	for _, c := range []struct {
		arg, name string
		param     any
		typed     string // the value an expression reads, or "malformed"
	}{
		{"x=5", "x", int64(5), "int 5"},
		{"x= -7", "x", int64(-7), "int -7"},
		{"d=2.5", "d", 2.5, "double 2.5"},
		{"s=abc", "s", "abc", "malformed"},
		{"s='it''s'", "s", "it's", "malformed"},
		{"b=true", "b", "true", "boolean true"},
		{"b=of", "b", "of", "boolean false"},
		{"n=NULL", "n", nil, "null"},
		{"e=", "e", "", "malformed"},
		{"big=99999999999999999999", "big", "99999999999999999999", "malformed"},
	} {
		name, v, err := ParseDefine(c.arg)
		if err != nil || name != c.name || !v.IsText {
			t.Errorf("ParseDefine(%q) = %q, %+v, %v", c.arg, name, v, err)
			continue
		}
		if p := paramOfText(v.Text); p != c.param {
			t.Errorf("-D %s: parameter %#v, want %#v", c.arg, p, c.param)
		}
		typed := "malformed"
		if tv, ok := interpret(v.Text); ok {
			typed = tv.String()
		}
		if typed != c.typed {
			t.Errorf("-D %s: an expression reads %s, want %s", c.arg, typed, c.typed)
		}
	}
	for _, arg := range []string{"x", "1x=2", "=3"} {
		if _, _, err := ParseDefine(arg); err == nil {
			t.Errorf("ParseDefine(%q) accepted", arg)
		}
	}
}

func TestCheck(t *testing.T) {
	parse := func(src string) *Script {
		s, err := Parse("f.sql", src)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	defined := func(name string) bool { return name == "d" }
	for _, c := range []struct {
		srcs []string
		want string
	}{
		{[]string{"\\set a :d + :client_id + :scale + :random_seed + hash(1)\nselect :a;"}, ""},
		{[]string{"select :b;", "\\set b 1"}, ""},
		{[]string{"select 1 as x \\gset p_\nselect :p_x, :p_y;"}, ""},
		{[]string{"select 1;\n\\set a 2 * :nope\n"}, `f.sql:2:12: variable nope is used but never set (set it with \set or -D nope=…)`},
		{[]string{"select :a,\n   :zz;\n\\set a 1"}, `f.sql:2:4: variable zz is used but never set (set it with \set or -D zz=…)`},
		{[]string{"select 1 \\gset p_\nselect :q_x;"}, `f.sql:2:8: variable q_x is used but never set (set it with \set or -D q_x=…)`},
		{[]string{"\\sleep :s ms\n"}, `f.sql:1:8: variable s is used but never set (set it with \set or -D s=…)`},
		{[]string{"select 'x:d';"}, `f.sql:1:10: :d is inside a quoted string: pgbench's simple mode would paste its value there, but fairbench sends variables as parameters, which cannot go inside a string; write it outside the quotes (for example '…' || :d || '…')`},
		{[]string{"select 'x:other';"}, ""},
		// Constant expressions are evaluated before the run: their errors are
		// known then; expressions with variables or random draws are not.
		{[]string{"\\set x 1 / 0\nselect :x;"}, `f.sql:1:1: \set x 1 / 0: division by zero (the expression is constant: it would fail in every transaction)`},
		{[]string{"\\set x 9223372036854775807 + 1\nselect :x;"}, `f.sql:1:1: \set x 9223372036854775807 + 1: bigint add out of range (the expression is constant: it would fail in every transaction)`},
		{[]string{"\\if 1 / 0 = 1\nselect 1;\n\\endif"}, `f.sql:1:1: \if 1 / 0 = 1: division by zero (the expression is constant: it would fail in every transaction)`},
		{[]string{"\\set x 1 / :d\nselect :x;"}, ""},
		{[]string{"\\set x random(0, 0)\n\\set y 1 / :x\nselect :y;"}, ""},
		{[]string{"\\set x case when 1 = 1 then 2 else 3 end * 4\nselect :x;"}, ""},
	} {
		var scripts []*Script
		for _, src := range c.srcs {
			scripts = append(scripts, parse(src))
		}
		err := Check(scripts, defined)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%q):\n got %s\nwant %s", c.srcs, got, c.want)
		}
	}
	s := parse("select 1;")
	s.Weight = 0
	if err := Check([]*Script{s}, nil); err == nil || !strings.Contains(err.Error(), "total script weight must not be zero") {
		t.Errorf("Check of a zero total weight: %v", err)
	}
}

// fakeExec is an Executor answering from a table of rows by command index.
type fakeExec struct {
	rows   map[int]Row
	sql    []string
	sleeps []time.Duration
	err    error
}

func (f *fakeExec) SQL(_ context.Context, i int, cmd *Command, args []any) (Row, error) {
	f.sql = append(f.sql, fmt.Sprintf("%s %v", cmd.SQL, args))
	return f.rows[i], f.err
}

func (f *fakeExec) Sleep(_ context.Context, d time.Duration) error {
	f.sleeps = append(f.sleeps, d)
	return nil
}

func newTestClient(t *testing.T, src string, defines map[string]Value) (*Client, *Script) {
	t.Helper()
	s, err := Parse("f.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	return NewClient(ClientConfig{ID: 2, Clients: 4, Seed: 1, Scale: 10, Defines: defines, Scripts: []*Script{s}}), s
}

func TestRun(t *testing.T) {
	ifChain := "\\if :x = 1\nselect 'one';\n\\elif :x = 2\n  \\if :y\n  select 'two y';\n  \\else\n  select 'two';\n  \\endif\n" +
		"\\elif :x = 3\nselect 'three';\n\\else\nselect 'other';\n\\endif\nselect 'end';"
	for _, c := range []struct {
		name, src string
		defines   map[string]Value
		rows      map[int]Row
		sql       string
		sleeps    string
	}{
		{"variables and parameters", "\\set a 5 * :scale\n\\set d :a / 2.0\n\\set b :a > 3\n\\set n NULL\nselect :a, :d, :b, :n, :client_id, :s, :i;",
			map[string]Value{"s": TextValue("txt"), "i": TextValue("12")}, nil,
			"[select ?, ?, ?, ?, ?, ?, ? [50 25 true <nil> 2 txt 12]]", "[]"},
		{"if x=1", ifChain, map[string]Value{"x": TextValue("1"), "y": TextValue("true")}, nil, "[select 'one' [] select 'end' []]", "[]"},
		{"if x=2 y", ifChain, map[string]Value{"x": TextValue("2"), "y": TextValue("true")}, nil, "[select 'two y' [] select 'end' []]", "[]"},
		{"if x=2 not y", ifChain, map[string]Value{"x": TextValue("2"), "y": TextValue("0")}, nil, "[select 'two' [] select 'end' []]", "[]"},
		{"if x=3", ifChain, map[string]Value{"x": TextValue("3"), "y": TextValue("no")}, nil, "[select 'three' [] select 'end' []]", "[]"},
		{"if x=4", ifChain, map[string]Value{"x": TextValue("4"), "y": TextValue("no")}, nil, "[select 'other' [] select 'end' []]", "[]"},
		{"if without else, false", "\\if false\nselect 1;\n\\endif\n\\if NULL\n\\elif 0\n\\endif\nselect 2;", nil, nil, "[select 2 []]", "[]"},
		{"sleep units", "\\set t 3\n\\sleep 2\n\\sleep 5 ms\n\\sleep 7us\n\\sleep :t ms\n\\sleep :f s\n\\sleep 0\n\\sleep -1\n",
			map[string]Value{"f": TextValue("1.9")}, nil, "[]", "[2s 5ms 7µs 3ms 1s]"},
		{"gset and aset", "select 1 \\gset p_\nselect :p_a, :p_b, :p_c;\nselect 2 \\aset\nselect :a;\nselect 3 \\aset\nselect :a;",
			nil, map[int]Row{
				0: {Rows: 1, Columns: []string{"a", "b", "c"}, Values: []any{int64(7), "x", nil}},
				2: {Rows: 3, Columns: []string{"a"}, Values: []any{[]byte("9")}},
				4: {Rows: 0},
			}, "[select 1 [] select ?, ?, ? [7 x ] select 2 [] select ? [9] select 3 [] select ? [9]]", "[]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, s := newTestClient(t, c.src, c.defines)
			ex := &fakeExec{rows: c.rows}
			if err := cl.Run(context.Background(), s, ex); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(ex.sql); got != c.sql {
				t.Errorf("SQL:\n got %s\nwant %s", got, c.sql)
			}
			if got := fmt.Sprint(ex.sleeps); got != c.sleeps {
				t.Errorf("sleeps: got %s, want %s", got, c.sleeps)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	for _, c := range []struct {
		src     string
		defines map[string]Value
		rows    map[int]Row
		want    string
		isEval  bool
	}{
		{"select 1;\n\\set x 1 / 0", nil, nil, `f.sql:2:1: \set x 1 / 0: division by zero`, true},
		{"\\set x 9223372036854775807 + 1", nil, nil, `f.sql:1:1: \set x 9223372036854775807 + 1: bigint add out of range`, true},
		{"\\set x :s + 1", map[string]Value{"s": TextValue("abc")}, nil,
			`f.sql:1:1: \set x :s + 1: malformed variable "s" value: "abc" (an expression needs NULL, a boolean, an integer or a double; a string is usable only in SQL)`, false},
		{"select 1 as v \\aset\nselect :v;", nil, nil,
			`f.sql:2:1: select :v: undefined variable "v": nothing set it before this command (a \gset that returned no row? set it with \set or -D v=…)`, false},
		{"select 1 \\gset", nil, map[int]Row{0: {Rows: 2, Columns: []string{"a"}, Values: []any{"1"}}},
			`f.sql:1:1: select 1 \gset: \gset expected one row, got 2 (use \aset to accept none or several)`, false},
		{"select 1 \\gset", nil, map[int]Row{0: {Rows: 1, Columns: []string{"?column?"}, Values: []any{"1"}}},
			`f.sql:1:1: select 1 \gset: cannot store column "?column?" into a variable: "?column?" is not a valid variable name (name the column with AS, or give a prefix)`, false},
	} {
		cl, s := newTestClient(t, c.src, c.defines)
		err := cl.Run(context.Background(), s, &fakeExec{rows: c.rows})
		var se *Error
		if !errors.As(err, &se) || err.Error() != c.want {
			t.Errorf("Run(%q):\n got %v\nwant %s", c.src, err, c.want)
		}
		if errors.Is(err, expr.ErrEval) != c.isEval {
			t.Errorf("Run(%q): errors.Is(err, expr.ErrEval) = %v", c.src, !c.isEval)
		}
	}
	// An executor's error comes back as it is.
	cl, s := newTestClient(t, "select 1;", nil)
	boom := errors.New("boom")
	if err := cl.Run(context.Background(), s, &fakeExec{err: boom}); err != boom {
		t.Errorf("executor error came back as %v", err)
	}
	// A script the client was not given.
	other, _ := Parse("g.sql", "select 1;")
	if err := cl.Run(context.Background(), other, &fakeExec{}); err == nil {
		t.Error("Run accepted a script that is not the client's")
	}
}

// TestMarkRewind checks that a retried transaction draws the same numbers,
// and that variables are not rolled back (as in pgbench).
func TestMarkRewind(t *testing.T) {
	cl, s := newTestClient(t, "\\set n :n + 1\n\\set r random(1, 1000000000)\nselect :r;", map[string]Value{"n": TextValue("0")})
	ex := &fakeExec{}
	cl.Mark()
	_ = cl.Run(context.Background(), s, ex)
	cl.Rewind()
	_ = cl.Run(context.Background(), s, ex)
	_ = cl.Run(context.Background(), s, ex)
	if ex.sql[0] != ex.sql[1] || ex.sql[1] == ex.sql[2] {
		t.Errorf("draws %v: the retry must repeat the first, the next must differ", ex.sql)
	}
	if v, _ := cl.Var("n"); v.String() != "3" {
		t.Errorf("n = %s after three runs, want 3 (Rewind leaves variables)", v)
	}
}

// TestChooserWeights checks that Choose follows the weights and never
// picks a script of weight 0.
func TestChooserWeights(t *testing.T) {
	var scripts []*Script
	for _, w := range []int{1, 0, 3} {
		s, _ := Parse("f.sql", "select 1;")
		s.Weight = w
		scripts = append(scripts, s)
	}
	ch := NewChooser(ClientConfig{Clients: 1, Seed: 3, Scripts: scripts}, 0)
	counts := make([]int, 3)
	const n = 40000
	for range n {
		counts[ch.Choose()]++
	}
	if counts[1] != 0 {
		t.Errorf("a script of weight 0 was chosen %d times", counts[1])
	}
	// Binomial(n, 1/4): standard deviation about 87.
	if d := counts[0] - n/4; d < -600 || d > 600 {
		t.Errorf("weight 1 of 4 chosen %d times of %d", counts[0], n)
	}
}

type noopExec struct{}

func (noopExec) SQL(context.Context, int, *Command, []any) (Row, error) { return Row{}, nil }
func (noopExec) Sleep(context.Context, time.Duration) error             { return nil }

func TestRunAllocations(t *testing.T) {
	s, _ := Builtin("tpcb-like")
	c := NewClient(ClientConfig{Clients: 1, Seed: 1, Scale: 10, Scripts: []*Script{s}})
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() { _ = c.Run(ctx, s, noopExec{}) })
	// The four \\set values are boxed from the client's arena (a block of
	// 1024 now and then), not one by one.
	if allocs >= 0.5 {
		t.Errorf("%.2f allocations per run of tpcb-like, want almost none", allocs)
	}
}

func BenchmarkRunTPCB(b *testing.B) {
	s, _ := Builtin("tpcb-like")
	c := NewClient(ClientConfig{Clients: 1, Seed: 1, Scale: 10, Scripts: []*Script{s}})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Run(ctx, s, noopExec{}); err != nil {
			b.Fatal(err)
		}
	}
}
