package cost

import (
	"fmt"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/base/yamlkeys"
)

// validator turns a raw sheet into a Sheet, keeping the first mistake.
type validator struct {
	file  string
	lines map[string]int
	err   error
}

// fail records a mistake at the key path (its line, or its nearest written
// parent's) unless one is already recorded.
func (v *validator) fail(path, format string, args ...any) {
	if v.err == nil {
		v.err = &SheetError{File: v.file, Line: v.line(path), Path: path, Msg: fmt.Sprintf(format, args...)}
	}
}

func (v *validator) line(path string) int {
	return yamlkeys.LineOf(v.lines, path)
}

func (v *validator) sheet(r *rawSheet) *Sheet {
	s := &Sheet{File: v.file, Source: strings.TrimSpace(r.Source), URL: r.URL, Date: r.Date,
		Currency: strings.TrimSpace(r.Currency), Notes: r.Notes, HoursPerMonth: DefaultHoursPerMonth}
	if s.Source == "" {
		v.fail("source", "no source: say where the prices come from, e.g. source: \"AWS EC2 on-demand pricing, us-west-2\"")
	}
	if s.Currency == "" {
		s.Currency = DefaultCurrency
	}
	if r.HoursPerMonth != nil {
		s.HoursPerMonth = *r.HoursPerMonth
		if !(s.HoursPerMonth > 0 && s.HoursPerMonth <= 744) {
			v.fail("hours_per_month", "%v hours is not a month: give the hours a month is billed for, between 1 and 744 (cloud calculators use 730)", s.HoursPerMonth)
		}
	}
	period := DefaultPeriod
	if r.Period != nil {
		period = *r.Period
	}
	p, err := ParsePeriod(period)
	if err != nil {
		v.fail("period", "%v", err)
	}
	s.Period = p
	if r.RoundMonthlyTo != nil {
		s.RoundMonthlyTo = *r.RoundMonthlyTo
		if !(s.RoundMonthlyTo >= 0 && s.RoundMonthlyTo <= 1000) {
			v.fail("round_monthly_to", "%v: give the amount monthly costs are rounded to, e.g. 0.01 for cents, or 0 for no rounding", s.RoundMonthlyTo)
		}
	}

	seen := map[string]int{}
	for i, ri := range r.Instances {
		path := fmt.Sprintf("instances[%d]", i)
		s.Instances = append(s.Instances, v.instance(path, ri))
		v.unique(seen, path, "instance", ri.Name, i)
	}
	seen = map[string]int{}
	for i, rv := range r.Volumes {
		path := fmt.Sprintf("volumes[%d]", i)
		s.Volumes = append(s.Volumes, v.volume(path, rv))
		v.unique(seen, path, "volume", rv.Name, i)
	}
	seen = map[string]int{}
	for i, rf := range r.Fees {
		path := fmt.Sprintf("fees[%d]", i)
		s.Fees = append(s.Fees, v.fee(path, rf))
		v.unique(seen, path, "fee", rf.Name, i)
	}
	if len(r.Systems) == 0 {
		v.fail("systems", "no systems: list at least one, e.g. systems: [{name: arm, items: [{instance: c6g.2xlarge, count: 3, role: TiDB}]}]")
	}
	seen = map[string]int{}
	for i, rs := range r.Systems {
		path := fmt.Sprintf("systems[%d]", i)
		s.Systems = append(s.Systems, v.system(s, path, rs))
		v.unique(seen, path, "system", rs.Name, i)
	}
	return s
}

// unique refuses a second definition of name.
func (v *validator) unique(seen map[string]int, path, what, name string, i int) {
	if name == "" {
		v.fail(path, "a %s without a name: add name: ...", what)
		return
	}
	if j, dup := seen[name]; dup {
		v.fail(path+".name", "%s %q is defined twice (also %ss[%d], line %d): rename one", what, name, what, j, v.line(fmt.Sprintf("%ss[%d]", what, j)))
		return
	}
	seen[name] = i
}

// priceKey is one of the price keys an entry may give.
type priceKey struct {
	key  string
	val  *float64
	unit Unit
}

// price picks the one price an entry gives.
func (v *validator) price(path, what string, keys []priceKey) Price {
	var given []priceKey
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.key
		if k.val != nil {
			given = append(given, k)
		}
	}
	switch len(given) {
	case 0:
		v.fail(path, "%s has no price: give one of %s", what, strings.Join(names, ", "))
		return Price{}
	case 1:
	default:
		last := given[len(given)-1]
		v.fail(path+"."+last.key, "%s has %d prices (%s and %s): give exactly one of %s",
			what, len(given), given[0].key, last.key, strings.Join(names, ", "))
		return Price{}
	}
	g := given[0]
	if *g.val < 0 || math.IsNaN(*g.val) || math.IsInf(*g.val, 0) {
		v.fail(path+"."+g.key, "%s: the price %v is negative: give the amount charged, 0 or more", what, *g.val)
	}
	return Price{Amount: *g.val, Per: g.unit}
}

func (v *validator) nonNegative(path, what string, x float64) {
	if x < 0 {
		v.fail(path, "%s is %v: give 0 or more (or leave it out)", what, x)
	}
}

func (v *validator) instance(path string, r rawInstance) Instance {
	what := fmt.Sprintf("instance %q", r.Name)
	in := Instance{Name: r.Name, Provider: r.Provider, Type: strings.TrimSpace(r.Type), Region: strings.TrimSpace(r.Region), VCPU: r.VCPU, MemoryGiB: r.MemoryGiB,
		CPUModel: r.CPUModel, GHz: r.GHz, TurboGHz: r.TurboGHz, Notes: r.Notes}
	switch strings.ToLower(strings.TrimSpace(r.Arch)) {
	case "arm64", "aarch64", "arm":
		in.Arch = ArchARM64
	case "x86_64", "x86-64", "amd64", "x86", "x64":
		in.Arch = ArchX8664
	case "":
		v.fail(path, "%s has no arch: add arch: arm64 or arch: x86_64", what)
	default:
		v.fail(path+".arch", "%s: unknown arch %q: write arm64 or x86_64", what, r.Arch)
	}
	if r.VCPU < 0 {
		v.fail(path+".vcpu", "%s: vcpu is %d: give the instance's vCPU count, 1 or more (or leave it out when unknown)", what, r.VCPU)
	}
	v.nonNegative(path+".memory_gib", what+": memory_gib", r.MemoryGiB)
	v.nonNegative(path+".ghz", what+": ghz", r.GHz)
	v.nonNegative(path+".turbo_ghz", what+": turbo_ghz", r.TurboGHz)
	in.Price = v.price(path, what, []priceKey{
		{"price_per_hour", r.PerHour, PerHour}, {"price_per_month", r.PerMonth, PerMonth}, {"price_per_year", r.PerYear, PerYear}})
	return in
}

func (v *validator) volume(path string, r rawVolume) Volume {
	what := fmt.Sprintf("volume %q", r.Name)
	vol := Volume{Name: r.Name, Provider: r.Provider, Region: r.Region, Type: r.Type, SizeGiB: r.SizeGiB,
		IOPS: r.IOPS, ThroughputMiBs: r.ThroughputMiBs, Notes: r.Notes}
	v.nonNegative(path+".size_gib", what+": size_gib", r.SizeGiB)
	v.nonNegative(path+".iops", what+": iops", float64(r.IOPS))
	v.nonNegative(path+".throughput_mibps", what+": throughput_mibps", r.ThroughputMiBs)
	vol.Price = v.price(path, what, []priceKey{
		{"price_per_gib_month", r.PerGiBMonth, PerGiBMonth}, {"price_per_month", r.PerMonth, PerMonth}})
	if vol.Price.Per == PerGiBMonth && r.SizeGiB <= 0 {
		v.fail(path, "%s is priced per GiB-month but has no size: add size_gib", what)
	}
	return vol
}

func (v *validator) fee(path string, r rawFee) Fee {
	what := fmt.Sprintf("fee %q", r.Name)
	f := Fee{Name: r.Name, Provider: r.Provider, Region: r.Region, Notes: r.Notes}
	f.Price = v.price(path, what, []priceKey{
		{"price_per_hour", r.PerHour, PerHour}, {"price_per_month", r.PerMonth, PerMonth}, {"price_per_year", r.PerYear, PerYear}})
	return f
}

func (v *validator) system(s *Sheet, path string, r rawSystem) System {
	sys := System{Name: r.Name, Description: r.Description}
	what := fmt.Sprintf("system %q", r.Name)
	if len(r.Items) == 0 {
		v.fail(path, "%s has no items: list its instances, volumes and fees, e.g. items: [{instance: NAME, count: 3, role: TiDB}]", what)
	}
	for i, ri := range r.Items {
		ipath := fmt.Sprintf("%s.items[%d]", path, i)
		it := Item{Count: 1, Role: strings.TrimSpace(ri.Role)}
		var refs []string
		if ri.Instance != "" {
			it.Kind, it.Name = KindInstance, ri.Instance
			refs = append(refs, "instance")
		}
		if ri.Volume != "" {
			it.Kind, it.Name = KindVolume, ri.Volume
			refs = append(refs, "volume")
		}
		if ri.Fee != "" {
			it.Kind, it.Name = KindFee, ri.Fee
			refs = append(refs, "fee")
		}
		switch len(refs) {
		case 0:
			v.fail(ipath, "%s: an item names nothing: give one of instance, volume or fee", what)
		case 1:
			v.reference(s, ipath+"."+refs[0], what, it.Kind, it.Name)
		default:
			v.fail(ipath, "%s: an item names both a %s and a %s: split it into one item each", what, refs[0], refs[1])
		}
		if ri.Count != nil {
			it.Count = *ri.Count
			if it.Count < 1 {
				v.fail(ipath+".count", "%s: count %d for %s: give how many, 1 or more (leave the item out for none)", what, it.Count, it.Name)
			}
		}
		if it.Role == "" {
			it.Role = it.Name
		}
		sys.Items = append(sys.Items, it)
	}
	return sys
}

// reference checks that the item's instance, volume or fee is defined.
func (v *validator) reference(s *Sheet, path, what string, kind Kind, name string) {
	var names []string
	switch kind {
	case KindInstance:
		for _, in := range s.Instances {
			names = append(names, in.Name)
		}
	case KindVolume:
		for _, vol := range s.Volumes {
			names = append(names, vol.Name)
		}
	case KindFee:
		for _, f := range s.Fees {
			names = append(names, f.Name)
		}
	}
	for _, n := range names {
		if n == name {
			return
		}
	}
	v.fail(path, "%s: unknown %s %q: define it under %ss, or use one that is defined (%s)", what, kind, name, kind, choices("the "+string(kind)+"s are", names, name))
}
