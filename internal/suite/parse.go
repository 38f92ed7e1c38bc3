package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// PlanError is a mistake in a plan, located in its file.
type PlanError struct {
	File string
	Line int    // 0 when the mistake has no single place
	Path string // the key, as "matrix.threads"
	Msg  string
}

func (e *PlanError) Error() string {
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

// ReadPlan reads and parses the plan file at path (without validating it
// against workloads and targets; see Validate).
func ReadPlan(path string) (*Plan, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	return ParsePlan(path, text)
}

// ParsePlan parses a plan's YAML text; file names it in messages. Unknown keys
// and values of the wrong type are errors that give the line.
func ParsePlan(file string, text []byte) (*Plan, error) {
	sum := sha256.Sum256(text)
	p := &Plan{source: source{file: file, text: text, hash: hex.EncodeToString(sum[:]), lines: map[string]int{}}}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, p.yamlError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &PlanError{File: file, Msg: "the plan is empty: see plans/quick.yaml for an example"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &PlanError{File: file, Line: root.Line, Msg: "a plan is a mapping of keys (name, target, data, matrix, run, steps): see plans/quick.yaml"}
	}
	if err := p.checkKeys(root, reflect.TypeOf(Plan{}), ""); err != nil {
		return nil, err
	}
	if err := root.Decode(p); err != nil {
		return nil, p.yamlError(err)
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	return p, nil
}

// errAt is a PlanError at the key path (its line when known).
func (p *Plan) errAt(path, format string, args ...any) error {
	return &PlanError{File: p.source.file, Line: p.line(path), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// line returns the line of path, or of its nearest written parent.
func (p *Plan) line(path string) int {
	for path != "" {
		if l, ok := p.source.lines[path]; ok {
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

// checkKeys walks the YAML tree along the Go type, refusing keys that no field
// takes, and records the line of every key.
func (p *Plan) checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeOf(DataSets{}):
		if n.Kind == yaml.MappingNode {
			return p.checkKeys(n, reflect.TypeOf(Data{}), path)
		}
	case t == reflect.TypeOf(ThreadList{}) || t == reflect.TypeOf(Seconds(0)):
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // Decode reports the wrong kind
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := joinPath(path, k.Value)
			p.source.lines[sub] = k.Line
			f, ok := fields[k.Value]
			if !ok {
				return &PlanError{File: p.source.file, Line: k.Line, Msg: unknownKeyMsg(k.Value, path, fields)}
			}
			if err := p.checkKeys(v, f.Type, sub); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, v := range n.Content {
			sub := fmt.Sprintf("%s[%d]", path, i)
			p.source.lines[sub] = v.Line
			if err := p.checkKeys(v, t.Elem(), sub); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p.source.lines[joinPath(path, n.Content[i].Value)] = n.Content[i].Line
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlFields maps the yaml names of t's fields to the fields.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
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
	if near := nearest(key, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + "; the keys here are " + strings.Join(known, ", ")
}

// nearest returns the candidate within edit distance 2 of s, if any.
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// lineError is a custom unmarshaler's complaint about the node at Line.
type lineError struct {
	Line int
	Msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

var (
	yamlLineRe   = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlTypeRe   = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
	yamlGoTypeRe = regexp.MustCompile(`^(?:\[\])?(?:suite\.)?(\w+)$`)
)

// yamlError turns the YAML library's errors into PlanErrors with lines.
func (p *Plan) yamlError(err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &PlanError{File: p.source.file, Line: le.Line, Path: p.pathAtLine(le.Line), Msg: le.Msg}
	}
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var out []string
	firstLine := 0
	for _, m := range msgs {
		sub := yamlLineRe.FindStringSubmatch(m)
		if sub == nil {
			out = append(out, fmt.Sprintf("%s: %s", p.source.file, strings.TrimPrefix(m, "yaml: ")))
			continue
		}
		line, _ := strconv.Atoi(sub[1])
		if firstLine == 0 {
			firstLine = line
		}
		out = append(out, fmt.Sprintf("%s:%d: %s", p.source.file, line, explainYAML(sub[2], p.pathAtLine(line))))
	}
	if len(out) == 1 {
		return &PlanError{File: p.source.file, Line: firstLine, Msg: strings.TrimPrefix(out[0], fmt.Sprintf("%s:%d: ", p.source.file, firstLine))}
	}
	return fmt.Errorf("%s", strings.Join(out, "\n"))
}

// pathAtLine returns the deepest key written on line.
func (p *Plan) pathAtLine(line int) string {
	best := ""
	for path, l := range p.source.lines {
		if l == line && len(path) > len(best) {
			best = path
		}
	}
	return best
}

// explainYAML rewrites "cannot unmarshal !!str `abc` into int" as advice.
func explainYAML(msg, path string) string {
	sub := yamlTypeRe.FindStringSubmatch(msg)
	if sub == nil {
		return msg
	}
	value, goType := sub[2], sub[3]
	want := goType
	if m := yamlGoTypeRe.FindStringSubmatch(goType); m != nil {
		want = map[string]string{
			"int": "a whole number", "uint64": "a whole number ≥ 0", "float64": "a number", "bool": "true or false",
			"string": "text", "Data": "a mapping (tables, table_size, warehouses, options)",
			"Action": "a mapping (purge_binary_logs, drop_caches or sql)", "QueryWarmup": "a mapping (workload, threads, time)",
			"ServerSpec": "a mapping (flavor, dir, port, profiles, settings)",
		}[m[1]]
		if want == "" {
			want = goType
		}
		if strings.HasPrefix(goType, "[]") {
			want = "a list of " + strings.TrimPrefix(want, "a ")
		}
	}
	if path != "" {
		return fmt.Sprintf("%s: %q is not %s", path, value, want)
	}
	return fmt.Sprintf("%q is not %s", value, want)
}

// UnmarshalYAML reads "auto" or a list of thread counts.
func (l *ThreadList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value == "auto" {
			l.Auto = true
			return nil
		}
		c, err := strconv.Atoi(n.Value)
		if err != nil {
			return &lineError{n.Line, fmt.Sprintf("%q: give a list of thread counts ([1, 2, 4, 8]) or auto", n.Value)}
		}
		l.Counts = []int{c}
		return nil
	case yaml.SequenceNode:
		for _, v := range n.Content {
			c, err := strconv.Atoi(v.Value)
			if err != nil || v.Kind != yaml.ScalarNode {
				return &lineError{v.Line, fmt.Sprintf("%q is not a thread count: give whole numbers, e.g. [1, 2, 4, 8], or auto", v.Value)}
			}
			l.Counts = append(l.Counts, c)
		}
		return nil
	}
	return &lineError{n.Line, "give a list of thread counts ([1, 2, 4, 8]) or auto"}
}

// UnmarshalYAML reads seconds (300, 0.5) or a Go duration ("5m", "90s").
func (s *Seconds) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &lineError{n.Line, "give a duration as seconds (300) or with a unit (\"5m\", \"90s\")"}
	}
	if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
		if f < 0 {
			return &lineError{n.Line, fmt.Sprintf("duration %s is negative", n.Value)}
		}
		*s = Seconds(time.Duration(f * float64(time.Second)))
		return nil
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		return &lineError{n.Line, fmt.Sprintf("%q is not a duration: give seconds (300) or a value with a unit (\"5m\", \"90s\")", n.Value)}
	}
	*s = Seconds(d)
	return nil
}

// UnmarshalYAML reads one data set (a mapping) or a list of them.
func (d *DataSets) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		var one Data
		if err := n.Decode(&one); err != nil {
			return err
		}
		*d = DataSets{one}
		return nil
	case yaml.SequenceNode:
		var many []Data
		if err := n.Decode(&many); err != nil {
			return err
		}
		*d = many
		return nil
	}
	return &lineError{n.Line, "give a data set (tables and table_size, or warehouses) or a list of them"}
}
