package site

import (
	"bytes"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/cost"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/golden"
)

// sheetPath is seed 003's price sheet, which prices the TPC-C fixture's
// systems (arm-us, x86-us).
var sheetPath = filepath.Join("..", "..", "..", "prices", "tidb-eks-graviton2-vs-x86-2021.yaml")

// fixtureSite is the site of three operands: the report package's TPC-C
// fixture (ARM and x86, five thread counts × four rounds each, on recorded
// AWS instance types without a DMI vendor), priced with seed 003's sheet,
// and testdata/graviton (PostgreSQL on an arm64 AWS machine, one round at 1
// thread and two at 4, not in the sheet).
func fixtureSite(t *testing.T) *Site {
	t.Helper()
	systems, err := analysis.LoadSystems([]string{
		"arm=" + filepath.Join("..", "report", "testdata", "tpcc", "arm"),
		"x86=" + filepath.Join("..", "report", "testdata", "tpcc", "x86"),
		filepath.Join("testdata", "graviton"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sheet, err := cost.LoadSheet(sheetPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(systems, Options{Title: "fixture results", Prices: &Prices{Sheet: sheet, Systems: []string{"arm=arm-us", "x86=x86-us"}}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSitePage renders the fixture's page against a golden file (go test
// ./internal/analysis/site -run TestSitePage -update).
func TestSitePage(t *testing.T) {
	var page bytes.Buffer
	if err := fixtureSite(t).WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "index.html.golden"), page.Bytes())
}

// TestSiteRows: one row per system × workload row × thread count, each
// figure the cell of the system's own comparison in its workload's
// metric, a single round said rather than given an interval, the
// price-performance the cost model's for the priced systems only, and the
// filters' values.
func TestSiteRows(t *testing.T) {
	s := fixtureSite(t)
	if len(s.Operands) != 3 || len(s.Rows) != 12 {
		t.Fatalf("%d operands, %d rows; want 3 and 12 (5 + 5 TPC-C thread counts, 2 of graviton)", len(s.Operands), len(s.Rows))
	}
	sheet, err := cost.LoadSheet(sheetPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Rows {
		op := s.Operands[r.Operand]
		want := analysis.DefaultMetric([]string{r.Key.Workload})
		if r.Metric != want {
			t.Errorf("%s %s: metric %s, want %s", op.System.Label, r.Label(), r.Metric.Name, want.Name)
		}
		st := r.Cell.Stats
		if mean := analysis.Describe(op.System.Values(r.Key, want)).Mean; r.Cell.Value != mean {
			t.Errorf("%s %s: figure %v, want the mean of its rounds %v", op.System.Label, r.Key, r.Cell.Value, mean)
		}
		switch {
		case st.N == 1:
			if !math.IsNaN(st.CILo) || st.NoInterval != analysis.NoIntervalOneRound {
				t.Errorf("%s t%d: one round with interval %v–%v (%q)", op.System.Label, r.Key.Threads, st.CILo, st.CIHi, st.NoInterval)
			}
		case !(st.CILo > 0 && st.CILo <= r.Cell.Value && r.Cell.Value <= st.CIHi):
			t.Errorf("%s t%d: interval %v–%v around %v", op.System.Label, r.Key.Threads, st.CILo, st.CIHi, r.Cell.Value)
		}
		if op.PriceSystem == "" {
			if !math.IsNaN(r.PricePerf) || r.PriceUnit != "" {
				t.Errorf("%s is not priced but shows %v %s", op.System.Label, r.PricePerf, r.PriceUnit)
			}
			continue
		}
		c, err := sheet.Cost(op.PriceSystem)
		if err != nil {
			t.Fatal(err)
		}
		if want := c.On(cost.BasisPeriod) / r.Cell.Value; math.Abs(r.PricePerf-want) > 1e-9*want || r.PriceUnit != "USD per tpmC over 5y" {
			t.Errorf("%s t%d: price-performance %v %q, want %v USD per tpmC over 5y", op.System.Label, r.Key.Threads, r.PricePerf, r.PriceUnit, want)
		}
	}
	g := s.Operands[2]
	if g.Cloud != "AWS" || g.Region != "eu-west-1" || g.InstanceType != "m6g.large" || g.Flavor != "PostgreSQL" || g.Arch != "arm64" || g.CPU != "Neoverse-N1" {
		t.Errorf("graviton described as %+v", *g)
	}
	if s.Operands[0].Cloud != cloudUnnamed || s.Operands[0].PriceSystem != "arm-us" {
		t.Errorf("arm: cloud %q priced as %q", s.Operands[0].Cloud, s.Operands[0].PriceSystem)
	}
	want := map[string][]string{"workload": {"oltp_read_only", "tpcc"}, "threads": {"1", "4", "150", "300", "500", "800", "1000"},
		"flavor": {"MariaDB", "PostgreSQL"}, "arch": {"amd64", "arm64"}, "cloud": {"AWS", cloudUnnamed}}
	for _, f := range s.Filters {
		if strings.Join(f.Values, ",") != strings.Join(want[f.Name], ",") {
			t.Errorf("filter %s: %v, want %v", f.Name, f.Values, want[f.Name])
		}
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "is not priced") {
		t.Errorf("notes: %q; want graviton's not priced", s.Notes)
	}
}

// TestContentSecurityPolicy: the page's policy allows its one inline
// script and one inline style sheet by their hashes and nothing else: no
// 'unsafe-inline', no source but data: images, and the hashes are those of
// the texts the page holds.
func TestContentSecurityPolicy(t *testing.T) {
	var buf bytes.Buffer
	if err := fixtureSite(t).WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if meta == nil {
		t.Fatal("the page has no Content-Security-Policy meta tag")
	}
	csp := html.UnescapeString(meta[1])
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "http", "*"} {
		if strings.Contains(csp, bad) {
			t.Errorf("the policy allows %q: %s", bad, csp)
		}
	}
	for _, tag := range []string{"script", "style"} {
		bodies := regexp.MustCompile(`(?s)<`+tag+`[^>]*>(.*?)</`+tag+`>`).FindAllStringSubmatch(page, -1)
		if len(bodies) != 1 {
			t.Fatalf("%d <%s> elements, want 1", len(bodies), tag)
		}
		if want := tag + "-src '" + hashOf(bodies[0][1]) + "'"; !strings.Contains(csp, want) {
			t.Errorf("the policy lacks %s (the hash of the page's %s): %s", want, tag, csp)
		}
	}
	if regexp.MustCompile(`(?i)\sstyle=|\son[a-z]+=|<(link|img|iframe|object|embed)\b`).MatchString(page) {
		t.Error("the page has an inline style or event attribute or an element that loads something")
	}
}

// externalRef finds a reference to something outside a file: a URL with a
// scheme, or a protocol-relative one, in an attribute, CSS url() or @import.
var externalRef = regexp.MustCompile(`(?i)((src|href|action|xlink:href|poster|data)\s*=\s*["']?\s*(https?:|//|ftp:|file:))|url\(\s*["']?\s*(https?:|//)|@import`)

// TestWriteDir writes the site: the page and one report per operand, each
// linked from the page by its relative path and none referring to
// anything outside itself; two operands of one name get two reports.
func TestWriteDir(t *testing.T) {
	s := fixtureSite(t)
	dir := t.TempDir()
	files, err := s.WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("wrote %v, want 3 reports and the page", files)
	}
	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range s.Operands {
		if !strings.Contains(string(page), `href="`+op.ReportPath()+`"`) {
			t.Errorf("the page does not link %s", op.ReportPath())
		}
		rep, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(op.ReportPath())))
		if err != nil {
			t.Fatal(err)
		}
		if m := externalRef.Find(rep); m != nil {
			t.Errorf("%s refers to something outside it: %q", op.ReportPath(), m)
		}
		if !strings.Contains(string(rep), op.System.Label) {
			t.Errorf("%s does not name its system %s", op.ReportPath(), op.System.Label)
		}
	}
	if m := externalRef.Find(page); m != nil {
		t.Errorf("the page refers to something outside it: %q", m)
	}
	arm, _ := os.ReadFile(filepath.Join(dir, ReportsDir, "arm.html"))
	if !strings.Contains(string(arm), "Cost and price-performance over 5y") {
		t.Error("arm's report lacks its cost section")
	}
}

func TestReportFiles(t *testing.T) {
	for _, tt := range []struct {
		names, labels []string
		want          []string
	}{
		{[]string{"arm", "x86"}, []string{"a", "b"}, []string{"arm.html", "x86.html"}},
		{[]string{"arm", "ARM", "arm"}, []string{"a", "b", "c"}, []string{"arm.html", "ARM-2.html", "arm-3.html"}},
		{[]string{"", "../../etc", "."}, []string{"arm64 Neoverse-N1 ×8", "b", ""}, []string{"arm64-Neoverse-N1-8.html", "etc.html", "system.html"}},
		{[]string{"suite 1 (day 2).fbz"}, []string{"x"}, []string{"suite-1-day-2-.fbz.html"}},
	} {
		var systems []*analysis.System
		for i, n := range tt.names {
			systems = append(systems, &analysis.System{Name: n, Label: tt.labels[i]})
		}
		if got := reportFiles(systems); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("reportFiles(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestCloudOf(t *testing.T) {
	machine := func(vendor, product, itype, region string) analysis.UnderTest {
		m := result.ServerMachine{}
		m.SystemVendor, m.Product = vendor, product
		u := analysis.UnderTest{Machines: []result.ServerMachine{m}, Region: region}
		if itype != "" {
			u.InstanceTypes = []string{itype}
		}
		return u
	}
	for _, tt := range []struct {
		u    analysis.UnderTest
		want string
	}{
		{machine("Amazon EC2", "m6g.large", "", ""), "AWS"},
		{machine("Google", "Google Compute Engine", "", ""), "GCP"},
		{machine("Microsoft Corporation", "Virtual Machine", "", ""), "Azure"},
		{machine("Microsoft Corporation", "Surface Laptop", "", ""), cloudNone},
		{machine("Dell Inc.", "PowerEdge R650", "", ""), cloudNone},
		{machine("", "", "c5.2xlarge", "us-west-2"), cloudUnnamed},
		{machine("QEMU", "Standard PC", "", "eu-west-1"), cloudUnnamed},
		{analysis.UnderTest{}, cloudNone},
	} {
		if got := cloudOf(tt.u); got != tt.want {
			t.Errorf("cloudOf(%+v) = %q, want %q", tt.u.Machines, got, tt.want)
		}
	}
}
