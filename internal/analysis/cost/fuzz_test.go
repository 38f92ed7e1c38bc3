package cost

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSheet parses and validates price sheets (the repository's sheets and
// mutations of them): no input panics, a refusal names the sheet, and a sheet
// that validates gives a report of its systems that renders in every format.
func FuzzSheet(f *testing.F) {
	files, _ := filepath.Glob("../../../prices/*.yaml")
	more, _ := filepath.Glob("testdata/*.yaml")
	files = append(files, more...)
	if len(files) == 0 {
		f.Fatal("no price sheets")
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "[]", "currency: USD\n", "instances: [{name: a, hourly: -1}]\n", "round_monthly_to: 1e400\n",
		"source: s\ninstances: [{name: a, type: m6g.2xlarge, region: us-east-1, arch: arm64, vcpu: 8, price_per_hour: 0.308}, {name: b, type: m6g.2xlarge, arch: arm64, price_per_hour: 0.3}]\nsystems: [{name: s, items: [{instance: a}]}]\n",
		"source: s\ninstances: [{name: a, type: '', region: [x], arch: arm64, price_per_hour: 1}]\nsystems: [{name: s, items: [{instance: a}]}]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSheet("fuzz.yaml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Errorf("error %q does not name the sheet", err)
			}
			return
		}
		var names []string
		for _, sys := range s.Systems {
			names = append(names, sys.Name)
		}
		// Every instance's type and region, as a result would record them,
		// finds a system to price or a refusal that says to give --system.
		for _, in := range s.Instances {
			typ := in.Type
			if typ == "" {
				typ = in.Name
			}
			m, err := s.SystemFor("x", []Recorded{{InstanceType: typ, Region: in.Region, VCPUs: 2}})
			if err != nil {
				if !strings.Contains(err.Error(), "--system") {
					t.Errorf("refusal %q does not say to give --system", err)
				}
				continue
			}
			if _, err := s.System(m.System); err != nil {
				t.Errorf("matched system %q is not in the sheet: %v", m.System, err)
			}
			names = append(names, m.System)
			break
		}
		r, err := NewReport(s, names...)
		if err != nil {
			return
		}
		for _, w := range []func(*bytes.Buffer) error{
			func(b *bytes.Buffer) error { return WriteText(b, r) },
			func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
			func(b *bytes.Buffer) error { return WriteCSV(b, r) },
			func(b *bytes.Buffer) error { return WriteJSON(b, r) },
		} {
			var b bytes.Buffer
			if err := w(&b); err != nil {
				t.Errorf("a validated sheet does not render: %v", err)
			}
		}
	})
}
