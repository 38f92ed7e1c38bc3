package servermachine

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fairbench/fairbench/internal/base/yamlkeys"
)

// A plan's server_machine section decodes into Spec by its yaml tags, its
// keys check with yamlkeys, and a bad value's FieldError names the key.
func TestSpecInPlan(t *testing.T) {
	doc := `
files:
  - {role: tidb, file: tidb.json}
  - {role: tikv, file: tikv.json}
role: pd
arch: aarch64
vcpus: 8
ghz: 2.5
memory: 32GiB
instance_type: m6g.2xlarge
region: us-east-1
zone: us-east-1b
`
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	c := yamlkeys.Checker{Lines: map[string]int{}}
	if err := c.Check(n.Content[0], reflect.TypeOf(Spec{}), "server_machine"); err != nil {
		t.Fatal(err)
	}
	var s Spec
	if err := n.Decode(&s); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Spec{Files: []FileRef{{"tidb", "tidb.json"}, {"tikv", "tikv.json"}}, Role: "pd", Arch: "arm64", VCPUs: 8, GHz: 2.5, Memory: "32GiB",
		InstanceType: "m6g.2xlarge", Region: "us-east-1", Zone: "us-east-1b", memoryBytes: 32 << 30}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("%+v\nwant %+v", s, want)
	}

	var bad yaml.Node
	_ = yaml.Unmarshal([]byte("vcpu: 8\n"), &bad)
	err := (&yamlkeys.Checker{Lines: map[string]int{}}).Check(bad.Content[0], reflect.TypeOf(Spec{}), "server_machine")
	if err == nil || !strings.Contains(err.Error(), `"vcpus"`) {
		t.Errorf("unknown key: %v", err)
	}
	s = Spec{VCPUs: -1}
	fe, ok := s.Validate().(*FieldError)
	if !ok || fe.Key != "vcpus" {
		t.Errorf("Validate of vcpus -1: %#v", fe)
	}
}
