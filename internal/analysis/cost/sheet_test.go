package cost

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validSheet = `source: constructed for tests
date: "2024-01-01"
period: 3y
instances:
  - name: arm8
    arch: arm64
    vcpu: 8
    ghz: 2.5
    price_per_hour: 0.25
  - name: x868
    arch: x86_64
    vcpu: 8
    ghz: 3.0
    price_per_month: 250
volumes:
  - {name: disk, size_gib: 100, price_per_gib_month: 0.08}
fees:
  - {name: cp, price_per_hour: 0.10}
systems:
  - name: arm
    items:
      - {instance: arm8, count: 2, role: db}
      - {volume: disk, count: 2}
      - {fee: cp, role: control plane}
  - name: x86
    items:
      - {instance: x868, count: 2, role: db}
`

func TestParseSheetDefaultsAndCosts(t *testing.T) {
	s, err := ParseSheet("t.yaml", []byte(validSheet))
	if err != nil {
		t.Fatal(err)
	}
	if s.HoursPerMonth != 730 || s.Currency != "USD" || s.Period.Months != 36 || s.RoundMonthlyTo != 0 {
		t.Errorf("defaults: %v hours, %q, %d months, rounding %v", s.HoursPerMonth, s.Currency, s.Period.Months, s.RoundMonthlyTo)
	}
	c, err := s.Cost("arm")
	if err != nil {
		t.Fatal(err)
	}
	// 2 × 0.25 × 730 = 365; 2 × 100 GiB × 0.08 = 16; 0.10 × 730 = 73.
	want := map[string]float64{"compute": 365, "storage": 16, "fees": 73, "month": 454, "year": 5448, "period": 16344, "hour": 0.5 + 16.0/730 + 0.1}
	got := map[string]float64{"compute": c.ComputeMonthly, "storage": c.StorageMonthly, "fees": c.FeesMonthly,
		"month": c.Monthly, "year": c.Yearly, "period": c.PeriodCost, "hour": c.Hourly}
	for k, w := range want {
		if d := got[k] - w; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: got %v, want %v", k, got[k], w)
		}
	}
	if c.Lines[1].Role != "disk" || c.Lines[2].Role != "control plane" || c.Lines[0].Count != 2 {
		t.Errorf("lines: %+v", c.Lines)
	}
	if c.VCPU != 16 || c.ComputePower != 40 || c.Arch != ArchARM64 {
		t.Errorf("vCPU %d, power %v, arch %s; want 16, 40, arm64", c.VCPU, c.ComputePower, c.Arch)
	}
	for b, w := range map[Basis]float64{BasisHour: c.Hourly, BasisMonth: 454, BasisYear: 5448, BasisPeriod: 16344} {
		if d := c.On(b) - w; d > 1e-9 || d < -1e-9 {
			t.Errorf("On(%s) = %v, want %v", b, c.On(b), w)
		}
	}
	x, err := s.Cost("x86")
	if err != nil {
		t.Fatal(err)
	}
	if x.Hourly != 500.0/730 || x.Yearly != 6000 {
		t.Errorf("x86 priced per month: hourly %v, yearly %v", x.Hourly, x.Yearly)
	}
	if _, err := s.Cost("arn"); err == nil || !strings.Contains(err.Error(), `no system "arn": did you mean "arm"? the systems are arm, x86`) {
		t.Errorf("unknown system: %v", err)
	}
}

// TestSheetErrors asserts each mistake's whole message: the file, the line,
// the key and what to change.
func TestSheetErrors(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"unknown key", "    vcpu: 8\n    ghz: 2.5", "    vcpu: 8\n    ghz: 2.5\n    vcpus: 8",
			`t.yaml:9: unknown key "vcpus" in instances[0] (did you mean "vcpu"?); the keys here are arch, cpu_model, ghz, memory_gib, name, notes, price_per_hour, price_per_month, price_per_year, provider, region, turbo_ghz, type, vcpu`},
		{"unknown top-level key", "period: 3y", "period: 3y\nperiods: 5y",
			`t.yaml:4: unknown key "periods" at the top level (did you mean "period"?); the keys here are currency, date, fees, hours_per_month, instances, notes, period, round_monthly_to, source, systems, url, volumes`},
		{"two prices on one instance", "    price_per_hour: 0.25", "    price_per_hour: 0.25\n    price_per_year: 2000",
			`t.yaml:10: instances[0].price_per_year: instance "arm8" has 2 prices (price_per_hour and price_per_year): give exactly one of price_per_hour, price_per_month, price_per_year`},
		{"no price", "    price_per_month: 250\n", "",
			`t.yaml:10: instances[1]: instance "x868" has no price: give one of price_per_hour, price_per_month, price_per_year`},
		{"unknown instance in a system", "{instance: x868, count: 2", "{instance: x86-8, count: 2",
			`t.yaml:27: systems[1].items[0].instance: system "x86": unknown instance "x86-8": define it under instances, or use one that is defined (did you mean "x868"? the instances are arm8, x868)`},
		{"unknown volume in a system", "{volume: disk, count: 2}", "{volume: dsk, count: 2}",
			`t.yaml:23: systems[0].items[1].volume: system "arm": unknown volume "dsk": define it under volumes, or use one that is defined (did you mean "disk"? the volumes are disk)`},
		{"negative count", "{instance: arm8, count: 2, role: db}", "{instance: arm8, count: -2, role: db}",
			`t.yaml:22: systems[0].items[0].count: system "arm": count -2 for arm8: give how many, 1 or more (leave the item out for none)`},
		{"bad period", "period: 3y", "period: 3 years",
			`t.yaml:3: period: period "3 years": write a whole number of years or months, e.g. "5y", "3y" or "18mo"`},
		{"zero period", "period: 3y", "period: 0mo",
			`t.yaml:3: period: period "0mo": give between 1 month and 100 years, e.g. "5y" or "18mo"`},
		{"count not a number", "{instance: arm8, count: 2, role: db}", "{instance: arm8, count: two, role: db}",
			`t.yaml:22: "two" is not a whole number: write e.g. 3`},
		{"price not a number", "    price_per_hour: 0.25", "    price_per_hour: $0.25",
			`t.yaml:9: "$0.25" is not a number: write e.g. 0.272 (no currency sign or thousands separator)`},
		{"negative price", "    price_per_hour: 0.25", "    price_per_hour: -0.25",
			`t.yaml:9: instances[0].price_per_hour: instance "arm8": the price -0.25 is negative: give the amount charged, 0 or more`},
		{"bad arch", "    arch: arm64", "    arch: sparc",
			`t.yaml:6: instances[0].arch: instance "arm8": unknown arch "sparc": write arm64 or x86_64`},
		{"duplicate instance", "  - name: x868", "  - name: arm8",
			`t.yaml:10: instances[1].name: instance "arm8" is defined twice (also instances[0], line 5): rename one`},
		{"item names two things", "{fee: cp, role: control plane}", "{fee: cp, volume: disk}",
			`t.yaml:24: systems[0].items[2]: system "arm": an item names both a volume and a fee: split it into one item each`},
		{"GiB price without size", "{name: disk, size_gib: 100, price_per_gib_month: 0.08}", "{name: disk, price_per_gib_month: 0.08}",
			`t.yaml:16: volumes[0]: volume "disk" is priced per GiB-month but has no size: add size_gib`},
		{"no source", "source: constructed for tests\n", "",
			`t.yaml: source: no source: say where the prices come from, e.g. source: "AWS EC2 on-demand pricing, us-west-2"`},
		{"hours per month", "period: 3y", "period: 3y\nhours_per_month: 8760",
			`t.yaml:4: hours_per_month: 8760 hours is not a month: give the hours a month is billed for, between 1 and 744 (cloud calculators use 730)`},
		{"key twice", "period: 3y", "period: 3y\nperiod: 5y",
			`t.yaml:4: period: the key "period" is given twice (also on line 3): keep one`},
		{"not YAML", "period: 3y", "period: [3y",
			`t.yaml:3: did not find expected ',' or ']'`},
		{"list item among keys", "period: 3y", "period: 3y\n- 5y",
			`t.yaml:4: did not find expected key`},
		{"tab indentation", "    vcpu: 8\n    ghz: 2.5", "    vcpu: 8\n\tghz: 2.5",
			`t.yaml:7: found a tab character that violates indentation: indent with spaces, not tabs`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(validSheet, c.old) {
				t.Fatalf("the test's old text %q is not in the sheet", c.old)
			}
			text := strings.Replace(validSheet, c.old, c.new, 1)
			_, err := ParseSheet("t.yaml", []byte(text))
			if err == nil {
				t.Fatalf("no error for\n%s", text)
			}
			if err.Error() != c.want {
				t.Errorf("got  %s\nwant %s", err, c.want)
			}
			var se *SheetError
			if !errors.As(err, &se) {
				t.Errorf("%T is not a *SheetError", err)
			}
		})
	}
}

func TestParseSheetRefusesEmptyAndNonMapping(t *testing.T) {
	for text, want := range map[string]string{
		"":                                  "t.yaml: the price sheet is empty: see docs/price-sheet.md and prices/ for examples",
		"- a\n- b\n":                        "t.yaml:1: a price sheet is a mapping of keys",
		"source: x\n":                       "t.yaml: systems: no systems: list at least one",
		"source: x\nsystems: [{name: a}]\n": `t.yaml:2: systems[0]: system "a" has no items`,
	} {
		_, err := ParseSheet("t.yaml", []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want %s…", text, err, want)
		}
	}
}

func TestLoadSheetNamesTheFile(t *testing.T) {
	_, err := LoadSheet(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || !strings.Contains(err.Error(), "reading price sheet") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v", err)
	}
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("source: x\nsystem: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadSheet(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+`:2: unknown key "system" at the top level (did you mean "systems"?)`) {
		t.Errorf("got %v", err)
	}
}

func TestParsePeriod(t *testing.T) {
	for in, months := range map[string]int{"5y": 60, "3y": 36, "12mo": 12, " 18mo ": 18, "1y": 12} {
		p, err := ParsePeriod(in)
		if err != nil || p.Months != months {
			t.Errorf("ParsePeriod(%q) = %d, %v; want %d", in, p.Months, err, months)
		}
	}
	for _, in := range []string{"", "5", "5 years", "-1y", "1.5y", "0y", "y"} {
		if _, err := ParsePeriod(in); err == nil {
			t.Errorf("ParsePeriod(%q) accepted", in)
		}
	}
	if s := (Period{Months: 60}).String(); s != "5y" {
		t.Errorf("60 months = %q", s)
	}
	if s := (Period{Months: 18}).String(); s != "18mo" {
		t.Errorf("18 months = %q", s)
	}
}

func TestParseBasis(t *testing.T) {
	for in, want := range map[string]Basis{"hour": BasisHour, "Monthly": BasisMonth, "yearly": BasisYear, "period": BasisPeriod} {
		if b, err := ParseBasis(in); err != nil || b != want {
			t.Errorf("ParseBasis(%q) = %q, %v", in, b, err)
		}
	}
	if _, err := ParseBasis("week"); err == nil || !strings.Contains(err.Error(), "write hour, month, year or period") {
		t.Errorf("week: %v", err)
	}
}

// Every example sheet in prices/ must load.
func TestExamplePriceSheetsLoad(t *testing.T) {
	paths, err := filepath.Glob("../../../prices/*.yaml")
	if err != nil || len(paths) < 2 {
		t.Fatalf("example sheets: %v, %v", paths, err)
	}
	for _, p := range paths {
		s, err := LoadSheet(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if s.Source == "" || s.Date == "" {
			t.Errorf("%s: every example names its source and date", p)
		}
		for _, name := range s.SystemNames() {
			if c, err := s.Cost(name); err != nil || !(c.Monthly > 0) {
				t.Errorf("%s: system %s: %v, %v", p, name, c, err)
			}
		}
	}
}

// The example in docs/price-sheet.md must be a valid sheet.
func TestDocumentedExampleParses(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/price-sheet.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no ```yaml example in docs/price-sheet.md")
	}
	s, err := ParseSheet("docs/price-sheet.md", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Cost("tidb-arm")
	if err != nil {
		t.Fatal(err)
	}
	// 3 × 0.272 × 730 + 3 × 0.4032 × 730 + 0.068 × 730, 3 × 1000 × 0.08, 0.10 × 730.
	if !near(c.ComputeMonthly, 1528.33) || !near(c.StorageMonthly, 240) || !near(c.FeesMonthly, 73) {
		t.Errorf("compute %v, storage %v, fees %v", c.ComputeMonthly, c.StorageMonthly, c.FeesMonthly)
	}
}
