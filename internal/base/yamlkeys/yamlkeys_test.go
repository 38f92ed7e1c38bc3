package yamlkeys

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type inner struct {
	Count int `yaml:"count"`
}

type doc struct {
	Name   string            `yaml:"name"`
	Items  []inner           `yaml:"items"`
	One    []inner           `yaml:"one"`
	Free   map[string]string `yaml:"free"`
	Opaque opaque            `yaml:"opaque"`
	hidden int               `yaml:"hidden"`
}

type opaque struct {
	X int `yaml:"x"`
}

func check(t *testing.T, text string) (map[string]int, error) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	c := Checker{Lines: map[string]int{}, Opaque: []reflect.Type{reflect.TypeOf(opaque{})},
		OneOrMany: map[reflect.Type]reflect.Type{reflect.TypeOf([]inner{}): reflect.TypeOf(inner{})}}
	return c.Lines, c.Check(n.Content[0], reflect.TypeOf(doc{}), "")
}

func TestCheck(t *testing.T) {
	lines, err := check(t, "name: x\nitems:\n  - count: 1\n  - count: 2\none: {count: 3}\nfree: {anything: 1}\nopaque: {whatever: 2}\n")
	if err != nil {
		t.Fatal(err)
	}
	for path, line := range map[string]int{"name": 1, "items": 2, "items[1]": 4, "items[1].count": 4, "one.count": 5, "free.anything": 6} {
		if lines[path] != line {
			t.Errorf("line of %s = %d, want %d", path, lines[path], line)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"nmae: x\n", `line 1: unknown key "nmae" at the top level (did you mean "name"?); the keys here are free, items, name, one, opaque`},
		{"items:\n  - cuont: 1\n", `line 2: unknown key "cuont" in items[0] (did you mean "count"?)`},
		{"hidden: 1\n", `unknown key "hidden"`},
		{"one: {count: 1, total: 2}\n", `unknown key "total" in one`},
		{"name: a\nname: b\n", `line 2: the key "name" is given twice (also on line 1)`},
		{"zzzzzz: 1\n", `unknown key "zzzzzz" at the top level; the keys`},
	} {
		_, err := check(t, tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestProblemsAndFileError(t *testing.T) {
	var v struct {
		N int `yaml:"n"`
		M int `yaml:"m"`
	}
	err := yaml.Unmarshal([]byte("n: abc\nm: xyz\n"), &v)
	ps := Problems(err)
	if len(ps) != 2 || ps[0].Line != 1 || ps[0].Value != "abc" || ps[0].GoType != "int" || ps[1].Line != 2 {
		t.Errorf("problems %+v", ps)
	}
	err = yaml.Unmarshal([]byte("a:\n\tb: 1\n"), &v)
	if ps := Problems(err); len(ps) != 1 || ps[0].Line != 2 || ps[0].GoType != "" {
		t.Errorf("syntax problem %+v", ps)
	}
	for _, tc := range []struct {
		e    FileError
		want string
	}{
		{FileError{File: "p.yaml", Line: 3, Path: "run.time", Msg: "bad"}, "p.yaml:3: run.time: bad"},
		{FileError{File: "p.yaml", Msg: "empty"}, "p.yaml: empty"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

func TestLineOf(t *testing.T) {
	lines := map[string]int{"data": 3, "data[1]": 5, "matrix.threads": 9}
	for path, want := range map[string]int{"data[1].options.x": 5, "data[0].tables": 3, "matrix.threads": 9, "matrix.rounds": 0, "": 0} {
		if got := LineOf(lines, path); got != want {
			t.Errorf("LineOf(%q) = %d, want %d", path, got, want)
		}
	}
}
