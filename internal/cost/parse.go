package cost

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SheetError is a mistake in a price sheet, located in its file.
type SheetError struct {
	File string
	Line int    // 0 when the mistake has no single place
	Path string // the key, as "instances[2].price_per_hour"
	Msg  string // what is wrong and what to change
}

func (e *SheetError) Error() string {
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

// The YAML shape of a sheet. Pointers tell a key that is absent from a zero.
type rawSheet struct {
	Source         string        `yaml:"source"`
	URL            string        `yaml:"url"`
	Date           string        `yaml:"date"`
	Currency       string        `yaml:"currency"`
	Notes          string        `yaml:"notes"`
	HoursPerMonth  *float64      `yaml:"hours_per_month"`
	Period         *string       `yaml:"period"`
	RoundMonthlyTo *float64      `yaml:"round_monthly_to"`
	Instances      []rawInstance `yaml:"instances"`
	Volumes        []rawVolume   `yaml:"volumes"`
	Fees           []rawFee      `yaml:"fees"`
	Systems        []rawSystem   `yaml:"systems"`
}

type rawInstance struct {
	Name      string   `yaml:"name"`
	Provider  string   `yaml:"provider"`
	Region    string   `yaml:"region"`
	Arch      string   `yaml:"arch"`
	VCPU      int      `yaml:"vcpu"`
	MemoryGiB float64  `yaml:"memory_gib"`
	CPUModel  string   `yaml:"cpu_model"`
	GHz       float64  `yaml:"ghz"`
	TurboGHz  float64  `yaml:"turbo_ghz"`
	PerHour   *float64 `yaml:"price_per_hour"`
	PerMonth  *float64 `yaml:"price_per_month"`
	PerYear   *float64 `yaml:"price_per_year"`
	Notes     string   `yaml:"notes"`
}

type rawVolume struct {
	Name           string   `yaml:"name"`
	Provider       string   `yaml:"provider"`
	Region         string   `yaml:"region"`
	Type           string   `yaml:"type"`
	SizeGiB        float64  `yaml:"size_gib"`
	IOPS           int      `yaml:"iops"`
	ThroughputMiBs float64  `yaml:"throughput_mibps"`
	PerGiBMonth    *float64 `yaml:"price_per_gib_month"`
	PerMonth       *float64 `yaml:"price_per_month"`
	Notes          string   `yaml:"notes"`
}

type rawFee struct {
	Name     string   `yaml:"name"`
	Provider string   `yaml:"provider"`
	Region   string   `yaml:"region"`
	PerHour  *float64 `yaml:"price_per_hour"`
	PerMonth *float64 `yaml:"price_per_month"`
	PerYear  *float64 `yaml:"price_per_year"`
	Notes    string   `yaml:"notes"`
}

type rawSystem struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Items       []rawItem `yaml:"items"`
}

type rawItem struct {
	Instance string `yaml:"instance"`
	Volume   string `yaml:"volume"`
	Fee      string `yaml:"fee"`
	Count    *int   `yaml:"count"`
	Role     string `yaml:"role"`
}

// decodeSheet parses the YAML, refusing unknown keys, and returns the line
// of every key by its path ("systems[1].items[0].count").
func decodeSheet(file string, data []byte) (*rawSheet, map[string]int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, yamlError(file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil, &SheetError{File: file, Msg: "the price sheet is empty: see docs/price-sheet.md and prices/ for examples"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, &SheetError{File: file, Line: root.Line, Msg: "a price sheet is a mapping of keys (source, date, currency, period, instances, volumes, fees, systems): see docs/price-sheet.md"}
	}
	lines := map[string]int{}
	if err := checkKeys(file, root, reflect.TypeOf(rawSheet{}), "", lines); err != nil {
		return nil, nil, err
	}
	raw := &rawSheet{}
	if err := root.Decode(raw); err != nil {
		return nil, nil, yamlError(file, err)
	}
	return raw, lines, nil
}

// checkKeys walks the YAML tree along the Go type, refusing keys that no
// field takes, and records the line of every key and list element.
func checkKeys(file string, n *yaml.Node, t reflect.Type, path string, lines map[string]int) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
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
			if _, dup := lines[sub]; dup {
				return &SheetError{File: file, Line: k.Line, Path: sub, Msg: fmt.Sprintf("the key %q is given twice (also on line %d): keep one", k.Value, lines[sub])}
			}
			lines[sub] = k.Line
			f, ok := fields[k.Value]
			if !ok {
				return &SheetError{File: file, Line: k.Line, Msg: unknownKeyMsg(k.Value, path, fields)}
			}
			if err := checkKeys(file, v, f.Type, sub, lines); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, v := range n.Content {
			sub := fmt.Sprintf("%s[%d]", path, i)
			lines[sub] = v.Line
			if err := checkKeys(file, v, t.Elem(), sub, lines); err != nil {
				return err
			}
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
		if name != "" && name != "-" {
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

var (
	yamlLineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlTypeRe = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
)

// yamlError turns the YAML library's errors into a SheetError with the line
// of the first mistake and a message that says what to write instead.
func yamlError(file string, err error) error {
	msgs := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	first := &SheetError{File: file}
	var more []string
	for i, m := range msgs {
		line, text := 0, strings.TrimPrefix(m, "yaml: ")
		if sub := yamlLineRe.FindStringSubmatch(m); sub != nil {
			line, _ = strconv.Atoi(sub[1])
			text = sub[2]
			if strings.HasPrefix(text, "did not find expected") {
				line++ // the library gives its parser's 0-based line (its scanner's are right)
			}
		}
		if strings.Contains(text, "tab character") {
			text += ": indent with spaces, not tabs"
		}
		if t := yamlTypeRe.FindStringSubmatch(text); t != nil {
			text = fmt.Sprintf("%q is not %s", t[2], wantedType(t[3]))
		}
		if i == 0 {
			first.Line, first.Msg = line, text
		} else {
			more = append(more, fmt.Sprintf("line %d: %s", line, text))
		}
	}
	if len(more) > 0 {
		first.Msg += "; also " + strings.Join(more, "; ")
	}
	return first
}

// wantedType describes a Go type the YAML value did not fit.
func wantedType(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"):
		return "a whole number: write e.g. 3"
	case strings.HasPrefix(goType, "float"):
		return "a number: write e.g. 0.272 (no currency sign or thousands separator)"
	case goType == "string":
		return "text: quote it"
	case strings.HasPrefix(goType, "[]"):
		return "a list: write one \"- ...\" item per line"
	default:
		return "a mapping of keys: see docs/price-sheet.md"
	}
}
