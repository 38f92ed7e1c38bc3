package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// siteOperands are the report package's TPC-C fixture and the site
// package's graviton results (three operands, one priced by seed 003's
// sheet through --system).
var siteOperands = []string{
	"arm=" + filepath.Join("..", "analysis", "report", "testdata", "tpcc", "arm"),
	"x86=" + filepath.Join("..", "analysis", "report", "testdata", "tpcc", "x86"),
	filepath.Join("..", "analysis", "site", "testdata", "graviton"),
}

// TestSiteCommand writes a site: the page and a report per operand, priced
// with --prices; a directory that is not empty is refused unless --force.
func TestSiteCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "site")
	prices := []string{"--prices", filepath.Join("..", "..", "prices", "tidb-eks-graviton2-vs-x86-2021.yaml"), "--system", "arm=arm-us"}
	r := runCLI(ctx, nil, append(append([]string{"site", "-o", out, "--title", "three systems"}, prices...), siteOperands...)...)
	if r.code != ExitOK || !strings.Contains(r.stderr, "wrote the site of 3 systems (12 rows)") {
		t.Fatalf("site: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>three systems</title>", `href="reports/arm.html"`, `href="reports/x86.html"`, `href="reports/graviton.html"`,
		"12 of 12 rows shown", "USD per tpmC over 5y", "1 round: no interval", "x86 is priced as", "is not priced"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	for _, name := range []string{"arm", "x86", "graviton"} {
		if _, err := os.Stat(filepath.Join(out, "reports", name+".html")); err != nil {
			t.Errorf("the report of %s: %v", name, err)
		}
	}

	again := runCLI(ctx, nil, append([]string{"site", "-o", out}, siteOperands...)...)
	if again.code != ExitUsage || !strings.Contains(again.stderr, "is not empty") || !strings.Contains(again.stderr, "--force") {
		t.Errorf("site into a directory that is not empty: %d %s", again.code, again.stderr)
	}
	forced := runCLI(ctx, nil, append([]string{"site", "-o", out, "--force"}, siteOperands...)...)
	if forced.code != ExitOK {
		t.Fatalf("site --force: %d %s", forced.code, forced.stderr)
	}
	if page, _ := os.ReadFile(filepath.Join(out, "index.html")); strings.Contains(string(page), "USD per") {
		t.Error("site --force without --prices left the priced page")
	}
}

// TestSiteCommandRefusals: what cannot be a site is refused, and a
// directory that cannot be written before any operand is read (the
// operand here does not exist: reading it would be another error).
func TestSiteCommandRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-results")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no operands", []string{"site", "-o", filepath.Join(dir, "a")}, "site needs result files"},
		{"no --out", []string{"site", missing}, "site needs its directory: --out DIR"},
		{"out is a file", []string{"site", "-o", file, missing}, "not a directory"},
		{"out under a file", []string{"site", "-o", filepath.Join(file, "site"), missing}, "cannot be created"},
		{"--system without --prices", []string{"site", "-o", filepath.Join(dir, "b"), "--system", "a=b", missing}, "give the sheet with --prices"},
		{"bad --price-perf", []string{"site", "-o", filepath.Join(dir, "c"), "--prices", "x.yaml", "--price-perf", "week", missing}, "--price-perf"},
		{"missing operand", []string{"site", "-o", filepath.Join(dir, "d"), missing}, "no such file or directory"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name string
			args []string
			want string
		}{"read-only parent", []string{"site", "-o", filepath.Join(ro, "site"), missing}, "cannot write there"})
	}
	for _, tt := range tests {
		r := runCLI(ctx, nil, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: %d %s; want exit %d and %q", tt.name, r.code, r.stderr, ExitUsage, tt.want)
		}
		if tt.name != "missing operand" && strings.Contains(r.stderr, "no-such-results") {
			t.Errorf("%s: the operand was read before the refusal: %s", tt.name, r.stderr)
		}
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err == nil {
			t.Errorf("a refused site made its directory %s", d)
		}
	}
}

func TestSiteOperandLabels(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"a/arm.fbz", "x86-suite", "r/one.json"}, []string{"arm=a/arm.fbz", "x86-suite=x86-suite", "one=r/one.json"}},
		{[]string{"a/s.fbz", "b/s.fbz"}, []string{"a/s.fbz", "b/s.fbz"}}, // one label would pool them
		{[]string{"mine=a/s.fbz", "b/s.fbz"}, []string{"mine=a/s.fbz", "s=b/s.fbz"}},
		{[]string{"dir/with=sign/s.fbz"}, []string{"s=dir/with=sign/s.fbz"}},
	}
	for _, tt := range tests {
		if got := operandLabels(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("operandLabels(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A bundle made with --prices prices its own system on the site when no
// --prices is given; another operand without a sheet stays unpriced.
func TestSitePricesABundleByItsOwnSheet(t *testing.T) {
	t.Parallel()
	a, b := twoSuites(t)
	prices := filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml")
	priced := bundleOf(t, a, "priced.fbz", "--prices", prices)
	plain := bundleOf(t, b, "plain.fbz")
	out := filepath.Join(t.TempDir(), "site")
	r := runCLI(context.Background(), nil, "site", priced, plain, "-o", out, "--system", "priced=huawei-arm")
	if r.code != ExitOK {
		t.Fatalf("site: %d\n%s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "USD per "); n == 0 {
		t.Errorf("no price-performance on the page of a bundle with its own sheet")
	}
	if !strings.Contains(string(page), ">huawei-arm<") {
		t.Errorf("the operands table does not say the bundle is priced as huawei-arm")
	}
	// Without any sheet, --system is refused.
	if r := runCLI(context.Background(), nil, "site", plain, "-o", filepath.Join(t.TempDir(), "s"), "--system", "plain=huawei-arm"); r.code != ExitUsage || !strings.Contains(r.stderr, "give the sheet with --prices") {
		t.Errorf("--system without a sheet: %d %s", r.code, r.stderr)
	}
}
