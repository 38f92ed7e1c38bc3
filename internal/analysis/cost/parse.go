package cost

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fairbench/fairbench/internal/base/yamlkeys"
)

// SheetError is a mistake in a price sheet, located in its file by line and
// key path ("instances[2].price_per_hour").
type SheetError = yamlkeys.FileError

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
	Type      string   `yaml:"type"`
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
	if err := checkKeys(file, root, lines); err != nil {
		return nil, nil, err
	}
	raw := &rawSheet{}
	if err := root.Decode(raw); err != nil {
		return nil, nil, yamlError(file, err)
	}
	return raw, lines, nil
}

// checkKeys refuses keys that no field of the sheet takes (or that are given
// twice), and records the line of every key and list element.
func checkKeys(file string, root *yaml.Node, lines map[string]int) error {
	c := yamlkeys.Checker{Lines: lines}
	if err := c.Check(root, reflect.TypeOf(rawSheet{}), ""); err != nil {
		var ke *yamlkeys.Error
		if errors.As(err, &ke) {
			return &SheetError{File: file, Line: ke.Line, Path: ke.Path, Msg: ke.Msg}
		}
		return err
	}
	return nil
}

// yamlError turns the YAML library's errors into a SheetError with the line
// of the first mistake and a message that says what to write instead.
func yamlError(file string, err error) error {
	first := &SheetError{File: file}
	var more []string
	for i, p := range yamlkeys.Problems(err) {
		text := p.Text
		if p.GoType != "" {
			text = fmt.Sprintf("%q is not %s", p.Value, wantedType(p.GoType))
		}
		if i == 0 {
			first.Line, first.Msg = p.Line, text
		} else {
			more = append(more, fmt.Sprintf("line %d: %s", p.Line, text))
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
