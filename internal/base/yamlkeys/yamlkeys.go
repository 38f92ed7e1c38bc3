// Package yamlkeys checks a YAML document's keys against the Go type it will
// be decoded into, before decoding: a misspelt or unknown key becomes an error
// with its line, the keys that would fit and the nearest of them; a key given
// twice is refused; and the line of every key is recorded, so that later
// checks of values can point at them too. Plans and price sheets use it.
package yamlkeys

import (
	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/base/suggest"

	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a key that the type does not take (or one given twice).
type Error struct {
	Line int
	Path string // the key's path when it is known to the type ("matrix.threads")
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Checker walks a YAML tree along a Go type.
type Checker struct {
	// Lines receives the line of every key and list element by path
	// ("systems[1].items[0].count"); it must not be nil.
	Lines map[string]int
	// Opaque are types that read their YAML themselves (UnmarshalYAML): what
	// is under them is not checked.
	Opaque []reflect.Type
	// OneOrMany maps a slice type that also accepts a single mapping to the
	// type of that mapping.
	OneOrMany map[reflect.Type]reflect.Type
}

// Check walks n, found at path, along t.
func (c *Checker) Check(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for _, o := range c.Opaque {
		if t == o {
			return nil
		}
	}
	if one, ok := c.OneOrMany[t]; ok && n.Kind == yaml.MappingNode {
		return c.Check(n, one, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // decoding reports the wrong kind
		}
		fields := fieldsOf(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := JoinPath(path, k.Value)
			if line, dup := c.Lines[sub]; dup {
				return &Error{Line: k.Line, Path: sub, Msg: fmt.Sprintf("the key %q is given twice (also on line %d): keep one", k.Value, line)}
			}
			c.Lines[sub] = k.Line
			f, ok := fields[k.Value]
			if !ok {
				return &Error{Line: k.Line, Msg: unknownKeyMsg(k.Value, path, fields)}
			}
			if err := c.Check(v, f.Type, sub); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, v := range n.Content {
			sub := fmt.Sprintf("%s[%d]", path, i)
			c.Lines[sub] = v.Line
			if err := c.Check(v, t.Elem(), sub); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			c.Lines[JoinPath(path, n.Content[i].Value)] = n.Content[i].Line
		}
	}
	return nil
}

// JoinPath appends key to a key path.
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldsOf maps the yaml names of t's exported fields to the fields.
func fieldsOf(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" && f.IsExported() {
			out[name] = f
		}
	}
	return out
}

// unknownKeyMsg names the keys that would have been accepted, and the nearest one.
func unknownKeyMsg(key, path string, fields map[string]reflect.StructField) string {
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	where := "at the top level"
	if path != "" {
		where = "in " + path
	}
	msg := fmt.Sprintf("unknown key %q %s", key, where)
	if near := suggest.Nearest(key, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + "; the keys here are " + strings.Join(known, ", ")
}

// FileError is a mistake in a YAML file, located by line and key path.
type FileError struct {
	File string
	Line int    // 0 when the mistake has no single place
	Path string // the key, as "matrix.threads"; "" when unknown
	Msg  string // what is wrong and what to change
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Problem is one complaint of the YAML library.
type Problem struct {
	Line int    // 0 when the library gave none
	Text string // the complaint, without "yaml: line N:"
	// Value and GoType are set when a value did not fit the Go type it
	// decodes into ("abc", "int").
	Value, GoType string
}

var (
	lineRe = lazyre.New(`^(?:yaml: )?line (\d+): (.*)$`)
	typeRe = lazyre.New("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
)

// Problems splits an error of the YAML library into its complaints, with
// lines corrected (the parser's "did not find expected …" counts from 0)
// and a hint for tabs.
func Problems(err error) []Problem {
	msgs := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	out := make([]Problem, 0, len(msgs))
	for _, m := range msgs {
		p := Problem{Text: strings.TrimPrefix(m, "yaml: ")}
		if sub := lineRe().FindStringSubmatch(m); sub != nil {
			p.Line, _ = strconv.Atoi(sub[1])
			p.Text = sub[2]
			if strings.HasPrefix(p.Text, "did not find expected") {
				p.Line++
			}
		}
		if strings.Contains(p.Text, "tab character") {
			p.Text += ": indent with spaces, not tabs"
		}
		if t := typeRe().FindStringSubmatch(p.Text); t != nil {
			p.Value, p.GoType = t[2], t[3]
		}
		out = append(out, p)
	}
	return out
}

// LineOf returns the line of path in lines, or of its nearest parent that was
// written ("data[1].options.x" falls back to "data[1].options", "data[1]", …);
// 0 when none was.
func LineOf(lines map[string]int, path string) int {
	for path != "" {
		if l, ok := lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}
