package fairbench_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

const module = "github.com/fairbench/fairbench"

// The areas that stand aside from the ranked table of ARCHITECTURE.md.
const (
	testingArea = "testing" // test servers and helpers: imported by tests only
	releaseArea = "release" // the container image: used by cmd/ only
)

// TestArchitecture holds ARCHITECTURE.md true: every package under internal/
// lives in one of its areas, no package imports an area above its own, and
// test helpers and release tools are not imported by the product's code.
func TestArchitecture(t *testing.T) {
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	areas, err := readAreas(doc)
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: %v", err)
	}
	for _, a := range append(areas, testingArea, releaseArea) {
		if st, err := os.Stat("internal/" + a); err != nil || !st.IsDir() {
			t.Errorf("ARCHITECTURE.md names area %s, but internal/%s is not a folder", a, a)
		}
	}
	for _, p := range checkLayout(os.DirFS("."), areas) {
		t.Error(p)
	}
}

// TestArchitectureCheckFindsViolations shows that checkLayout reports each
// kind of breach on a small tree of its own.
func TestArchitectureCheckFindsViolations(t *testing.T) {
	doc := []byte("intro\n<!-- areas: top first -->\n| area | what |\n|---|---|\n| `high` | x |\n| `low` | y |\n\nmore\n")
	areas, err := readAreas(doc)
	if err != nil || !slices.Equal(areas, []string{"high", "low"}) {
		t.Fatalf("readAreas = %v, %v", areas, err)
	}
	file := func(imports ...string) *fstest.MapFile {
		var b strings.Builder
		b.WriteString("package p\n\nimport (\n")
		for _, im := range imports {
			fmt.Fprintf(&b, "\t%q\n", module+"/internal/"+im)
		}
		b.WriteString(")\n")
		return &fstest.MapFile{Data: []byte(b.String())}
	}
	tree := fstest.MapFS{
		"internal/high/a/a.go":           file("low/b"),                    // down: fine
		"internal/low/b/b.go":            file("high/a"),                   // up
		"internal/low/c/c.go":            file("testing/tdb", "low/btest"), // test helpers from product code
		"internal/low/c/c_test.go":       file("high/a", "testing/tdb"),    // a test may import anything
		"internal/low/btest/btest.go":    file("high/a"),                   // a helper may import anything
		"internal/stray/s/s.go":          file(),                           // not an area
		"internal/testing/tdb/tdb.go":    file("low/b"),
		"internal/release/img/img.go":    file(),
		"internal/high/d/d.go":           file("release/img"), // release tools from product code
		"cmd/tool/main.go":               file("release/img", "high/a"),
		"internal/high/a/testdata/x.go":  file("low/b"), // testdata is not code
		"internal/high/vendor/README.md": {Data: []byte("x")},
	}
	got := strings.Join(checkLayout(tree, areas), "\n")
	for _, want := range []string{
		"internal/low/b imports internal/high/a, in area high above its own area low",
		"internal/low/c imports internal/testing/tdb, a test helper",
		"internal/low/c imports internal/low/btest, a test helper",
		"internal/stray/s is in no area of ARCHITECTURE.md",
		"internal/high/d imports internal/release/img",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("checkLayout missed %q; it said:\n%s", want, got)
		}
	}
	if n := len(strings.Split(got, "\n")); n != 5 {
		t.Errorf("checkLayout reported %d breaches, want 5:\n%s", n, got)
	}
}

// readAreas returns the first column of the table after the "<!-- areas"
// marker of ARCHITECTURE.md, top first.
func readAreas(doc []byte) ([]string, error) {
	_, after, ok := bytes.Cut(doc, []byte("<!-- areas"))
	if !ok {
		return nil, fmt.Errorf(`no "<!-- areas" marker before the table of areas`)
	}
	cell := regexp.MustCompile("^\\|\\s*`([a-z]+)`\\s*\\|")
	var areas []string
	sc := bufio.NewScanner(bytes.NewReader(after))
	sc.Scan() // the marker's own line
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" && len(areas) > 0 {
			break
		}
		if m := cell.FindStringSubmatch(line); m != nil {
			areas = append(areas, m[1])
		}
	}
	if len(areas) < 2 {
		return nil, fmt.Errorf("the table of areas lists %d areas", len(areas))
	}
	return areas, nil
}

// checkLayout returns every breach of the layout rules in the Go files of
// fsys (a checkout), given the ranked areas top first.
func checkLayout(fsys fs.FS, areas []string) []string {
	rank := map[string]int{} // a higher rank is higher in the table
	for i, a := range areas {
		rank[a] = len(areas) - i
	}
	areaOf := func(pkg string) string { // pkg like internal/run/measure
		parts := strings.Split(pkg, "/")
		if len(parts) < 2 || parts[0] != "internal" {
			return ""
		}
		return parts[1]
	}
	helper := func(pkg string) bool {
		return areaOf(pkg) == testingArea || strings.HasSuffix(path.Base(pkg), "test")
	}
	var problems []string
	seen := map[string]bool{}
	fset := token.NewFileSet()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || !(strings.HasPrefix(p, "internal/") || strings.HasPrefix(p, "cmd/")) {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Dir(p)
		area := areaOf(pkg)
		if strings.HasPrefix(pkg, "internal/") && !seen[pkg] {
			seen[pkg] = true
			if _, ok := rank[area]; !ok && area != testingArea && area != releaseArea {
				problems = append(problems, fmt.Sprintf("%s is in no area of ARCHITECTURE.md (%s)", pkg, strings.Join(areas, ", ")))
			}
		}
		if strings.HasSuffix(p, "_test.go") || helper(pkg) {
			return nil // tests and test helpers may import anything
		}
		for _, im := range f.Imports {
			target, err := strconv.Unquote(im.Path.Value)
			if err != nil || !strings.HasPrefix(target, module+"/internal/") {
				continue
			}
			target = strings.TrimPrefix(target, module+"/")
			to := areaOf(target)
			var why string
			switch {
			case helper(target):
				why = "a test helper, which only tests may import"
			case to == releaseArea && !strings.HasPrefix(pkg, "cmd/") && area != releaseArea:
				why = "a release tool, which only cmd/ may use"
			case strings.HasPrefix(pkg, "cmd/") || area == releaseArea || area == testingArea:
			case rank[to] > rank[area] && rank[area] > 0:
				why = fmt.Sprintf("in area %s above its own area %s", to, area)
			}
			if why != "" {
				problems = append(problems, fmt.Sprintf("%s imports %s, %s", pkg, target, why))
			}
		}
		return nil
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	// Deduplicate: one line per package and import.
	slices.Sort(problems)
	return slices.Compact(problems)
}
