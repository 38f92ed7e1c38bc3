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
	files, _ := filepath.Glob("../../prices/*.yaml")
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
	for _, s := range []string{"", "[]", "currency: USD\n", "instances: [{name: a, hourly: -1}]\n", "round_monthly_to: 1e400\n"} {
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
