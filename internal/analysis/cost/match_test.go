package cost

import (
	"strings"
	"testing"
)

// matchSheet has m6g.2xlarge in two regions, a system of one of them, and
// c6g.large in two regions under the same type without a system.
const matchSheet = `source: test
instances:
  - {name: use1/m6g.2xlarge, type: m6g.2xlarge, region: us-east-1, arch: arm64, vcpu: 8, price_per_hour: 0.308}
  - {name: usw2/m6g.2xlarge, type: m6g.2xlarge, region: us-west-2, arch: arm64, vcpu: 8, price_per_hour: 0.308}
  - {name: use1/c6g.large, type: c6g.large, region: us-east-1, arch: arm64, vcpu: 2, price_per_hour: 0.068}
  - {name: r6g.large, arch: arm64, vcpu: 2, price_per_hour: 0.1}
volumes:
  - {name: gp3-100, size_gib: 100, price_per_gib_month: 0.08}
systems:
  - {name: arm-east, items: [{instance: use1/m6g.2xlarge}, {volume: gp3-100}]}
  - {name: arm-west, items: [{instance: usw2/m6g.2xlarge}]}
  - {name: arm-west-again, items: [{instance: usw2/m6g.2xlarge}]}
`

func TestSystemFor(t *testing.T) {
	for _, tt := range []struct {
		name     string
		machines []Recorded
		system   string   // "" = refused
		made     bool     // a system of the instances alone
		warn     string   // a warning contains it
		refusal  []string // the refusal contains each
	}{
		{name: "type and region pick the instance and its system",
			machines: []Recorded{{InstanceType: "m6g.2xlarge", Region: "us-east-1", VCPUs: 8}}, system: "arm-east"},
		{name: "two instances of the type without a region",
			machines: []Recorded{{InstanceType: "m6g.2xlarge", VCPUs: 8}},
			refusal:  []string{"use1/m6g.2xlarge and usw2/m6g.2xlarge", "--system arm=SYSTEM"}},
		{name: "two systems of the instance",
			machines: []Recorded{{InstanceType: "m6g.2xlarge", Region: "us-west-2"}},
			refusal:  []string{"arm-west and arm-west-again", "--system arm=SYSTEM"}},
		{name: "vCPUs differ from the sheet's",
			machines: []Recorded{{InstanceType: "m6g.2xlarge", Region: "us-east-1", VCPUs: 6}}, system: "arm-east",
			warn: "arm: its server machine (m6g.2xlarge) recorded 6 vCPUs, the price sheet's instance use1/m6g.2xlarge has 8"},
		{name: "no system of the instance: priced alone",
			machines: []Recorded{{InstanceType: "c6g.large", Region: "us-east-1", VCPUs: 2}, {Role: "tikv", InstanceType: "c6g.large", Region: "us-east-1", VCPUs: 2}},
			system:   "arm (recorded instances)", made: true, warn: "priced 2 × use1/c6g.large alone (no volumes or fees)"},
		{name: "an instance without a type matches by name, in any region",
			machines: []Recorded{{InstanceType: "r6g.large", Region: "eu-west-1"}}, system: "arm (recorded instances)", made: true},
		{name: "no such type",
			machines: []Recorded{{InstanceType: "m5.large", Region: "us-east-1"}}, refusal: []string{"no instance of type m5.large in us-east-1", "--system arm=SYSTEM"}},
		{name: "no type recorded",
			machines: []Recorded{{Region: "us-east-1"}}, refusal: []string{"records no instance type", "--system arm=SYSTEM"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSheet("t.yaml", []byte(matchSheet))
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.SystemFor("arm", tt.machines)
			if tt.system == "" {
				if err == nil {
					t.Fatalf("matched %+v, want a refusal", m)
				}
				for _, want := range tt.refusal {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("refusal %q lacks %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.System != tt.system || m.Made != tt.made {
				t.Errorf("system %q (made %v), want %q (%v)", m.System, m.Made, tt.system, tt.made)
			}
			if tt.warn != "" && !strings.Contains(strings.Join(m.Warnings, "\n"), tt.warn) {
				t.Errorf("warnings %q lack %q", m.Warnings, tt.warn)
			}
			if tt.warn == "" && !tt.made && len(m.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", m.Warnings)
			}
			// What was matched can be priced.
			r, err := NewReport(s, m.System)
			if err != nil {
				t.Fatal(err)
			}
			r.Warnings = m.Warnings
			var b strings.Builder
			if err := WriteText(&b, r); err != nil {
				t.Fatal(err)
			}
			for _, w := range m.Warnings {
				if !strings.Contains(b.String(), "warning: "+w) {
					t.Errorf("text lacks the warning line %q:\n%s", w, b.String())
				}
			}
		})
	}
}
