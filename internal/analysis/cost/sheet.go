// Package cost reads price sheets and computes the cost-performance model:
// what a system of instances, volumes and fees costs per hour, month, year and
// over a period, its throughput per dollar and price-performance, the
// difference between systems, and the equal-cost and equal-compute scenarios.
// It never touches a database; throughput figures come from the caller.
package cost

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/base/suggest"
)

// Arch names accepted in a sheet's instances.
const (
	ArchARM64 = "arm64"
	ArchX8664 = "x86_64"
	// ArchMixed is a system whose instances have more than one architecture.
	ArchMixed = "mixed"
)

// Unit is what a price is per.
type Unit string

// The units a price can be per.
const (
	PerHour     Unit = "hour"
	PerMonth    Unit = "month"
	PerYear     Unit = "year"
	PerGiBMonth Unit = "GiB-month" // volumes only: multiplied by the volume's size
)

// Price is an amount of the sheet's currency per Unit.
type Price struct {
	Amount float64 `json:"amount"`
	Per    Unit    `json:"per"`
}

// String writes the price as "0.272/hour".
func (p Price) String() string {
	return strconv.FormatFloat(p.Amount, 'f', -1, 64) + "/" + string(p.Per)
}

// Instance is a machine type at a provider, priced per hour, month or year.
type Instance struct {
	Name     string `json:"name"`
	Provider string `json:"provider,omitempty"`
	// Type is the provider's instance type ("m6g.2xlarge") and Region its
	// region ("us-east-1"): cost matches them with the instance type and
	// region a result records of its server machines. Both optional.
	Type      string  `json:"type,omitempty"`
	Region    string  `json:"region,omitempty"`
	Arch      string  `json:"arch"`           // ArchARM64 or ArchX8664
	VCPU      int     `json:"vcpu,omitempty"` // 0 when the sheet does not say
	MemoryGiB float64 `json:"memory_gib,omitempty"`
	CPUModel  string  `json:"cpu_model,omitempty"`
	GHz       float64 `json:"ghz,omitempty"`       // base clock; 0 when the sheet does not say
	TurboGHz  float64 `json:"turbo_ghz,omitempty"` // 0 when the sheet does not say
	Price     Price   `json:"price"`
	Notes     string  `json:"notes,omitempty"`
}

// Volume is block storage priced per GiB-month (times SizeGiB) or per month.
type Volume struct {
	Name           string  `json:"name"`
	Provider       string  `json:"provider,omitempty"`
	Region         string  `json:"region,omitempty"`
	Type           string  `json:"type,omitempty"`
	SizeGiB        float64 `json:"size_gib,omitempty"`
	IOPS           int     `json:"iops,omitempty"`
	ThroughputMiBs float64 `json:"throughput_mibps,omitempty"`
	Price          Price   `json:"price"`
	Notes          string  `json:"notes,omitempty"`
}

// Fee is a fixed charge (a managed control plane, a support plan) priced per
// hour, month or year.
type Fee struct {
	Name     string `json:"name"`
	Provider string `json:"provider,omitempty"`
	Region   string `json:"region,omitempty"`
	Price    Price  `json:"price"`
	Notes    string `json:"notes,omitempty"`
}

// Kind says what an Item of a system refers to.
type Kind string

// The kinds of item in a system.
const (
	KindInstance Kind = "instance"
	KindVolume   Kind = "volume"
	KindFee      Kind = "fee"
)

// Item is one line of a system: Count of an instance, volume or fee, in a role.
type Item struct {
	Kind  Kind   `json:"kind"`
	Name  string `json:"name"` // the instance, volume or fee
	Count int    `json:"count"`
	Role  string `json:"role"` // e.g. "TiKV"; the item's name when the sheet gives none
}

// System is a named set of items that together run one database deployment.
type System struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Items       []Item `json:"items"`
}

// Period is the span a period cost covers, in whole months.
type Period struct {
	Months int
}

var periodRe = lazyre.New(`^\s*(\d+)\s*(y|mo)\s*$`)

// ParsePeriod reads "5y", "3y" or "12mo".
func ParsePeriod(s string) (Period, error) {
	m := periodRe().FindStringSubmatch(s)
	if m == nil {
		return Period{}, fmt.Errorf("period %q: write a whole number of years or months, e.g. \"5y\", \"3y\" or \"18mo\"", s)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 || n > 1200 {
		return Period{}, fmt.Errorf("period %q: give between 1 month and 100 years, e.g. \"5y\" or \"18mo\"", s)
	}
	if m[2] == "y" {
		n *= 12
	}
	return Period{Months: n}, nil
}

// String writes the period as "5y" when it is whole years, else "18mo".
func (p Period) String() string {
	if p.Months%12 == 0 {
		return strconv.Itoa(p.Months/12) + "y"
	}
	return strconv.Itoa(p.Months) + "mo"
}

// Defaults of a sheet's optional settings.
const (
	DefaultHoursPerMonth = 730
	DefaultPeriod        = "1y"
	DefaultCurrency      = "USD"
)

// Sheet is a parsed and validated price sheet.
type Sheet struct {
	File     string `json:"file"`
	Source   string `json:"source"`
	URL      string `json:"url,omitempty"`
	Date     string `json:"date,omitempty"`
	Currency string `json:"currency"`
	Notes    string `json:"notes,omitempty"`

	HoursPerMonth float64 `json:"hours_per_month"`
	Period        Period  `json:"-"`
	// RoundMonthlyTo rounds each line's monthly cost to this amount (0.01:
	// cents) before lines are added up; 0 leaves costs unrounded.
	RoundMonthlyTo float64 `json:"round_monthly_to,omitempty"`

	Instances []Instance `json:"instances"`
	Volumes   []Volume   `json:"volumes,omitempty"`
	Fees      []Fee      `json:"fees,omitempty"`
	Systems   []System   `json:"systems"`
}

// LoadSheet reads and validates the price sheet at path.
func LoadSheet(path string) (*Sheet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading price sheet: %w", err)
	}
	return ParseSheet(path, data)
}

// ParseSheet parses and validates a price sheet's YAML; name (usually the
// file's path) names it in messages. Mistakes are *SheetError values that
// give the line and what to change.
func ParseSheet(name string, data []byte) (*Sheet, error) {
	raw, lines, err := decodeSheet(name, data)
	if err != nil {
		return nil, err
	}
	v := validator{file: name, lines: lines}
	s := v.sheet(raw)
	if v.err != nil {
		return nil, v.err
	}
	return s, nil
}

// System returns the system called name.
func (s *Sheet) System(name string) (*System, error) {
	for i := range s.Systems {
		if s.Systems[i].Name == name {
			return &s.Systems[i], nil
		}
	}
	return nil, fmt.Errorf("price sheet %s has no system %q: %s", s.File, name, choices("the systems are", s.SystemNames(), name))
}

// SystemNames lists the sheet's systems in the order it gives them.
func (s *Sheet) SystemNames() []string {
	out := make([]string, len(s.Systems))
	for i, sys := range s.Systems {
		out[i] = sys.Name
	}
	return out
}

// Instance returns the instance called name.
func (s *Sheet) Instance(name string) (*Instance, bool) {
	for i := range s.Instances {
		if s.Instances[i].Name == name {
			return &s.Instances[i], true
		}
	}
	return nil, false
}

// Volume returns the volume called name.
func (s *Sheet) Volume(name string) (*Volume, bool) {
	for i := range s.Volumes {
		if s.Volumes[i].Name == name {
			return &s.Volumes[i], true
		}
	}
	return nil, false
}

// Fee returns the fee called name.
func (s *Sheet) Fee(name string) (*Fee, bool) {
	for i := range s.Fees {
		if s.Fees[i].Name == name {
			return &s.Fees[i], true
		}
	}
	return nil, false
}

// choices writes "what: a, b, c (did you mean "x"?)".
func choices(what string, names []string, wrong string) string {
	msg := what + " " + strings.Join(names, ", ")
	if len(names) == 0 {
		msg = what + " none"
	}
	if near := suggest.Nearest(wrong, names); near != "" {
		msg = fmt.Sprintf("did you mean %q? %s", near, msg)
	}
	return msg
}
