package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/base/yamlkeys"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload"
)

// PlanError is a mistake in a plan, located in its file by line and key path
// ("matrix.threads").
type PlanError = yamlkeys.FileError

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
	if err := p.checkKeys(root); err != nil {
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
	return yamlkeys.LineOf(p.source.lines, path)
}

// given reports whether the plan's text sets the key at path
// ("run.report_interval"), as opposed to leaving it to its default.
func (p *Plan) given(path string) bool {
	_, ok := p.source.lines[path]
	return ok
}

// checkKeys refuses keys that no field of the plan takes, and records the line
// of every key.
func (p *Plan) checkKeys(root *yaml.Node) error {
	c := yamlkeys.Checker{
		Lines:     p.source.lines,
		Opaque:    []reflect.Type{reflect.TypeOf(ThreadList{}), reflect.TypeOf(Seconds(0))},
		OneOrMany: map[reflect.Type]reflect.Type{reflect.TypeOf(DataSets{}): reflect.TypeOf(Data{})},
	}
	if err := c.Check(root, reflect.TypeOf(Plan{}), ""); err != nil {
		var ke *yamlkeys.Error
		if errors.As(err, &ke) {
			return &PlanError{File: p.source.file, Line: ke.Line, Path: ke.Path, Msg: ke.Msg}
		}
		return err
	}
	return nil
}

// lineError is a custom unmarshaler's complaint about the node at Line.
type lineError struct {
	Line int
	Msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// yamlError turns the YAML library's errors into PlanErrors with lines.
func (p *Plan) yamlError(err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &PlanError{File: p.source.file, Line: le.Line, Path: p.pathAtLine(le.Line), Msg: le.Msg}
	}
	first := &PlanError{File: p.source.file}
	var more []string
	for i, pr := range yamlkeys.Problems(err) {
		text := pr.Text
		if pr.GoType != "" {
			text = explainType(pr.Value, pr.GoType, p.pathAtLine(pr.Line))
		}
		if i == 0 {
			first.Line, first.Msg = pr.Line, text
		} else {
			more = append(more, fmt.Sprintf("line %d: %s", pr.Line, text))
		}
	}
	if len(more) > 0 {
		first.Msg += "; also " + strings.Join(more, "; ")
	}
	return first
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

// goTypeRe takes the name out of a Go type the YAML library names ("[]suite.Data").
var goTypeRe = lazyre.New(`^(?:\[\])?(?:suite\.)?(\w+)$`)

// explainType says what a value at path should have been.
func explainType(value, goType, path string) string {
	want := goType
	if m := goTypeRe().FindStringSubmatch(goType); m != nil {
		want = map[string]string{
			"int": "a whole number", "uint64": "a whole number ≥ 0", "float64": "a number", "bool": "true or false",
			"string": "text", "Data": "a mapping (tables, table_size, warehouses, scale, options)",
			"Action": "a mapping (purge_binary_logs, drop_caches or sql)", "QueryWarmup": "a mapping (workload, threads, time)",
			"ServerSpec":  "a mapping (flavor, dir, port, profiles, settings)",
			"ClientsSpec": "a mapping (count, wait)",
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

// UnmarshalYAML reads a list of percentiles or one comma-separated string of
// them through the run command's parser: an empty or null element is refused,
// not dropped.
func (p *Percentiles) UnmarshalYAML(n *yaml.Node) error {
	var (
		out []float64
		err error
	)
	switch n.Kind {
	case yaml.ScalarNode:
		out, err = runner.ParsePercentileList(n.Value)
	case yaml.SequenceNode:
		elems := make([]string, len(n.Content))
		for i, v := range n.Content {
			if v.Kind != yaml.ScalarNode {
				return &lineError{v.Line, "give percentiles as numbers, e.g. [50, 95, 99.9]"}
			}
			if v.Tag != "!!null" {
				elems[i] = v.Value
			}
		}
		if out, err = runner.ParsePercentiles(elems); err != nil {
			// Point at the first element the list is refused at.
			for i := range elems {
				if _, e := runner.ParsePercentiles(elems[:i+1]); e != nil {
					return &lineError{n.Content[i].Line, e.Error()}
				}
			}
		}
	default:
		return &lineError{n.Line, "give percentiles as a list, e.g. [50, 95, 99.9]"}
	}
	if err != nil {
		return &lineError{n.Line, err.Error()}
	}
	*p = out
	return nil
}

// UnmarshalYAML reads seconds (300, 0.5) or a Go duration ("5m", "90s").
func (s *Seconds) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &lineError{n.Line, "give a duration as seconds (300) or with a unit (\"5m\", \"90s\")"}
	}
	d, err := ParseSeconds(n.Value)
	if err != nil {
		return &lineError{n.Line, err.Error()}
	}
	*s = Seconds(d)
	return nil
}

// ParseSeconds reads a duration written as seconds (300, 2.5) or a Go
// duration ("5m", "90s"), as plans and the run command's duration options
// take them; negative durations are refused.
func ParseSeconds(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case math.IsNaN(f):
			return 0, fmt.Errorf("%q is not a duration: give seconds (300) or a value with a unit (\"5m\", \"90s\")", v)
		case f < 0:
			return 0, fmt.Errorf("duration %s is negative", v)
		case f > float64(workload.MaxSeconds):
			return 0, fmt.Errorf("duration %s s is longer than 30 days: give at most %d seconds", v, workload.MaxSeconds)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration: give seconds (300) or a value with a unit (\"5m\", \"90s\")", v)
	}
	if d > workload.MaxDuration {
		return 0, fmt.Errorf("duration %s is longer than 30 days: give at most %s", v, workload.MaxDuration)
	}
	return d, nil
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
	return &lineError{n.Line, "give a data set (tables and table_size, warehouses, or scale) or a list of them"}
}
