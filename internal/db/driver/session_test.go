package driver

import (
	"strings"
	"testing"
)

func TestParseIsolation(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"", "", ""},
		{"default", "", ""},
		{"READ COMMITTED", ReadCommitted, ""},
		{"read_uncommitted", ReadUncommitted, ""},
		{" Repeatable-Read ", RepeatableRead, ""},
		{"SERIALIZABLE", Serializable, ""},
		{"snapshot", "", `unknown isolation level "snapshot"`},
		{"4", "", "unknown isolation level"},
	} {
		got, err := ParseIsolation(c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseIsolation(%q) = %q, %v; want %q, %q", c.in, got, err, c.want, c.err)
		}
	}
	if got := IsolationSQL(RepeatableRead); got != "REPEATABLE READ" {
		t.Errorf("IsolationSQL = %q", got)
	}
}

func TestParseSessionVar(t *testing.T) {
	for _, c := range []struct {
		in   string
		want SessionVar
		err  string
	}{
		{"sql_mode=STRICT_TRANS_TABLES,NO_ZERO_DATE", SessionVar{"sql_mode", "STRICT_TRANS_TABLES,NO_ZERO_DATE"}, ""},
		{" work_mem = 64MB ", SessionVar{"work_mem", "64MB"}, ""},
		{"fairbench.tag=a=b", SessionVar{"fairbench.tag", "a=b"}, ""},
		{"empty=", SessionVar{"empty", ""}, ""},
		{"novalue", SessionVar{}, "write NAME=VALUE"},
		{"=1", SessionVar{}, "write NAME=VALUE"},
		{"a;drop=1", SessionVar{}, "letters, digits"},
		{"1abc=1", SessionVar{}, "letters, digits"},
		{".a=1", SessionVar{}, "letters, digits"},
		{"a b=1", SessionVar{}, "letters, digits"},
	} {
		got, err := ParseSessionVar(c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseSessionVar(%q) = %+v, %v; want %+v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestLiteralValue(t *testing.T) {
	for _, c := range []struct {
		in        string
		backslash bool
		want      string
	}{
		{"1", true, "1"},
		{"-0.5", true, "-0.5"},
		{"NaN", true, "'NaN'"},
		{"0x10", true, "'0x10'"},
		{"ON", true, "'ON'"},
		{"'tikv,tiflash'", true, "'tikv,tiflash'"},
		{"it's", true, "'it''s'"},
		{`a\b`, true, `'a\\b'`},
		{`a\b`, false, `'a\b'`},
		{"'", true, "''''"},
	} {
		if got := LiteralValue(c.in, c.backslash); got != c.want {
			t.Errorf("LiteralValue(%q, %v) = %s, want %s", c.in, c.backslash, got, c.want)
		}
	}
}

// FuzzSessionVar: a NAME=VALUE either parses to a name that can be written
// into a statement unquoted, or is refused; its literal never ends a string early.
func FuzzSessionVar(f *testing.F) {
	for _, s := range []string{"sql_mode=STRICT_ALL_TABLES", "a.b='x'", "x=it's", `y=\'; DROP TABLE t; --`, "=", "1=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSessionVar(s)
		if err != nil {
			return
		}
		if v.Name == "" || strings.ContainsAny(v.Name, " ;'\"`-=()\\\n") {
			t.Fatalf("name %q accepted", v.Name)
		}
		for _, backslash := range []bool{true, false} {
			lit := LiteralValue(v.Value, backslash)
			if !strings.HasPrefix(lit, "'") {
				continue // a number
			}
			inner := lit[1 : len(lit)-1]
			if backslash {
				inner = strings.ReplaceAll(inner, `\\`, "")
			}
			if strings.Count(strings.ReplaceAll(inner, "''", ""), "'") != 0 || (backslash && strings.HasSuffix(inner, `\`)) {
				t.Fatalf("literal %s of %q ends the string early", lit, v.Value)
			}
		}
	})
}
