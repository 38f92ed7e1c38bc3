package analysis

import (
	"errors"
	"strings"
	"testing"
)

// TestLoadSystems groups operands by label: one system per label (its
// operands pooled, a path given twice read once), one per unlabelled
// operand, in the order first given; a load error stops it.
func TestLoadSystems(t *testing.T) {
	for _, tc := range []struct {
		name     string
		operands []string
		labels   string // the systems' labels, in order
		loaded   string // the loads, as path:label
		err      string
	}{
		{"unlabelled", []string{"x", "y"}, "x y", "x: y:", ""},
		{"labelled", []string{"arm=x", "x86=y"}, "arm x86", "x:arm y:x86", ""},
		{"one label pooled", []string{"arm=x", "x86=z", "arm=y"}, "arm x86", "x:arm z:x86 y:arm", ""},
		{"a path given twice", []string{"arm=x", "arm=./x", "arm=y"}, "arm", "x:arm y:arm", ""},
		{"a path with = is a path", []string{"dir/a=b"}, "dir/a=b", "dir/a=b:", ""},
		{"a load fails", []string{"arm=x", "bad"}, "", "x:arm bad:", "cannot read bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var loaded []string
			load := func(path, label string) (*System, error) {
				loaded = append(loaded, path+":"+label)
				if path == "bad" {
					return nil, errors.New("cannot read bad")
				}
				l := label
				if l == "" {
					l = path
				}
				return &System{Label: l, Source: path}, nil
			}
			systems, err := LoadSystems(tc.operands, load)
			if got := strings.Join(loaded, " "); got != tc.loaded {
				t.Errorf("loaded %q, want %q", got, tc.loaded)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, s := range systems {
				labels = append(labels, s.Label)
			}
			if got := strings.Join(labels, " "); got != tc.labels {
				t.Errorf("systems %q, want %q", got, tc.labels)
			}
		})
	}
}
