package rerun

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// onlyKeys are the plan lists --only filters, by the name --only gives them.
var onlyKeys = map[string][2]string{
	"workloads":   {"matrix", "workloads"},
	"rand_types":  {"matrix", "rand_types"},
	"threads":     {"matrix", "threads"},
	"server_cpus": {"matrix", "server_cpus"},
	"profiles":    {"server", "profiles"},
}

// only keeps the values of the plan's lists that each "KEY=V1,V2" names.
func (e *editor) only(filters []string) error {
	for _, f := range filters {
		key, values, ok := strings.Cut(f, "=")
		path, known := onlyKeys[strings.TrimSpace(key)]
		if !ok || !known {
			return fmt.Errorf("--only %q: give KEY=VALUE[,VALUE…] with KEY one of workloads, rand_types, threads, server_cpus, profiles (e.g. --only threads=1,4)", f)
		}
		_, list := lookup(mapping(e.root, path[0]), path[1])
		if list == nil || list.Kind != yaml.SequenceNode {
			return fmt.Errorf("--only %s: the plan of %s has no %s.%s list", key, e.rec.Name, path[0], path[1])
		}
		var keep []*yaml.Node
		for _, v := range strings.Split(values, ",") {
			v = strings.TrimSpace(v)
			i := slices.IndexFunc(list.Content, func(n *yaml.Node) bool { return n.Value == v })
			if i < 0 {
				return fmt.Errorf("--only %s: %q is not among the plan's %s.%s (%s)", key, v, path[0], path[1], strings.Join(scalarValues(list), ", "))
			}
			keep = append(keep, list.Content[i])
		}
		list.Content = keep
		e.note("--only %s: the plan's other %s.%s values are left out", f, path[0], path[1])
	}
	return nil
}

// threadsAsRun replaces "threads: auto" (this machine's CPUs would choose
// other counts than the bundle's machine did) with the counts the bundle ran.
func (e *editor) threadsAsRun(counts []int) error {
	m := mapping(e.root, "matrix")
	_, t := lookup(m, "threads")
	if t == nil || t.Kind != yaml.ScalarNode || t.Value != "auto" {
		return nil
	}
	if len(counts) == 0 {
		return fmt.Errorf("%s: its plan has matrix.threads auto and its manifest records no cell's thread count, so the counts it ran are not known", e.rec.Name)
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, c := range counts {
		seq.Content = append(seq.Content, scalar(strconv.Itoa(c)))
	}
	setNode(m, "threads", seq)
	e.note("matrix.threads is auto in the bundle's plan: this re-run runs the counts the bundle ran (%s), not this machine's auto", strings.Trim(fmt.Sprint(counts), "[]"))
	return nil
}

// scalarValues lists a sequence's scalar values.
func scalarValues(seq *yaml.Node) []string {
	var out []string
	for _, n := range seq.Content {
		out = append(out, n.Value)
	}
	return out
}

// lookup returns the key and value nodes of key in mapping m (nil, nil when
// m is nil or has no such key).
func lookup(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// mapping is the mapping value of key in m, nil when there is none.
func mapping(m *yaml.Node, key string) *yaml.Node {
	_, v := lookup(m, key)
	if v == nil || v.Kind != yaml.MappingNode {
		return nil
	}
	return v
}

// deleteKey removes key from mapping m.
func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// setNode sets key of mapping m to v, in place when the key is there.
func setNode(m *yaml.Node, key string, v *yaml.Node) {
	if _, old := lookup(m, key); old != nil {
		*old = *v
		return
	}
	m.Content = append(m.Content, scalar(key), v)
}

// set sets key of mapping m to the string value.
func set(m *yaml.Node, key, value string) { setValue(m, key, false, value) }

// setValue sets key of m to value, or with lines to the list of value's lines.
func setValue(m *yaml.Node, key string, lines bool, value string) {
	if !lines {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Style: yaml.DoubleQuotedStyle}
		setNode(m, key, n)
		return
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, l := range strings.Split(value, "\n") {
		if l != "" {
			seq.Content = append(seq.Content, scalar(l))
		}
	}
	setNode(m, key, seq)
}

// scalar is a plain scalar, typed as YAML reads it ("4" an integer).
func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }
