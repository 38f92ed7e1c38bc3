package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// suites are the two suite directories twoSuites runs once for the package,
// in dir, which TestMain removes.
var suites struct {
	once sync.Once
	dir  string
	a, b string
	err  error
}

// twoSuites runs the same tiny plan twice (two rounds of two thread counts),
// once for the package and both at once, and returns the two suite
// directories: the tests only read them.
func twoSuites(t *testing.T) (string, string) {
	t.Helper()
	suites.once.Do(func() {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "fairbench-cli-suites-")
		if err != nil {
			suites.err = err
			return
		}
		suites.dir = dir
		// The two suites run at once, each on its own database: they wait
		// on their 1-s cells more than they compute.
		dirs, errs := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, make([]error, 2)
		var wg sync.WaitGroup
		for i, out := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				plan := filepath.Join(dir, filepath.Base(out)+".yaml")
				if err := os.WriteFile(plan, []byte(fmt.Sprintf(`target: {sqlite_db: %s}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1, 2], rounds: 2}
run: {time: 1}
`, out+".db")), 0o644); err != nil {
					errs[i] = err
					return
				}
				if r := runCLI(ctx, nil, "suite", "run", plan, "--out", out); r.code != ExitOK {
					errs[i] = fmt.Errorf("suite %s: %d %s", filepath.Base(out), r.code, r.stderr)
				}
			}()
		}
		wg.Wait()
		if suites.err = errors.Join(errs...); suites.err != nil {
			return
		}
		suites.a, suites.b = dirs[0], dirs[1]
	})
	if suites.err != nil {
		t.Fatal(suites.err)
	}
	return suites.a, suites.b
}

func TestCompareReportAndCostCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := twoSuites(t)
	ops := []string{"arm=" + a, "x86=" + b}

	cmp := runCLI(ctx, nil, append([]string{"compare", "--ghz", "arm=2.6,x86=3.0"}, ops...)...)
	if cmp.code != ExitOK || !strings.Contains(cmp.stdout, "% x86-vs-arm") || !strings.Contains(cmp.stdout, "x86 fscaled") {
		t.Fatalf("compare: %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
	for _, format := range []string{"md", "csv", "json"} {
		if r := runCLI(ctx, nil, append([]string{"compare", "--format", format}, ops...)...); r.code != ExitOK || r.stdout == "" {
			t.Errorf("compare --format %s: %d %s", format, r.code, r.stderr)
		}
	}

	wide := runCLI(ctx, nil, append([]string{"compare", "--format", "csv", "--wide", "--ghz", "arm=2.6,x86=3.0"}, ops...)...)
	if wide.code != ExitOK || !strings.HasPrefix(wide.stdout, "workload,rand_type,profile,data,options,server_cpus,threads,arm (tps),x86 (tps),x86 fscaled,% x86-vs-arm,") {
		t.Errorf("compare --format csv --wide: %d\n%s%s", wide.code, wide.stdout, wide.stderr)
	}
	if r := runCLI(ctx, nil, append([]string{"compare", "--wide"}, ops...)...); r.code != ExitUsage || !strings.Contains(r.stderr, "--wide is a layout of --format csv or md") {
		t.Errorf("compare --wide with text: %d %s", r.code, r.stderr)
	}
	prices := filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml")
	costArgs := []string{"--prices", prices, "--system", "arm=huawei-arm", "--system", "x86=huawei-x86"}
	c := runCLI(ctx, nil, append(append([]string{"cost"}, costArgs...), ops...)...)
	if c.code != ExitOK || !strings.Contains(c.stdout, "Cost comparison: oltp_point_select") || !strings.Contains(c.stdout, "tps per USD/year") {
		t.Fatalf("cost: %d\n%s%s", c.code, c.stdout, c.stderr)
	}
	csvDir := filepath.Join(t.TempDir(), "cost") + "/"
	cc := runCLI(ctx, nil, append(append([]string{"cost", "--format", "csv", "--out", csvDir}, costArgs...), ops...)...)
	files, _ := filepath.Glob(filepath.Join(csvDir, "*.csv"))
	if cc.code != ExitOK || len(files) < 4 || !strings.Contains(cc.stderr, "evaluation.csv") {
		t.Errorf("cost --format csv --out DIR/: %d, %d files %v\n%s", cc.code, len(files), files, cc.stderr)
	}
	if ev, err := os.ReadFile(filepath.Join(csvDir, "evaluation.csv")); err != nil || !strings.HasPrefix(string(ev), "system,arch,vCPU,") {
		t.Errorf("evaluation.csv: %v\n%s", err, ev)
	}
	eq := runCLI(ctx, nil, append(append([]string{"cost", "--scenario", "equal-cost", "--budget", "5000"}, costArgs...), ops...)...)
	if eq.code != ExitOK {
		t.Errorf("cost --scenario equal-cost: %d %s", eq.code, eq.stderr)
	}

	html := filepath.Join(t.TempDir(), "report.html")
	pngs := filepath.Join(t.TempDir(), "png")
	rep := runCLI(ctx, nil, append(append([]string{"report", "--format", "html", "--out", html, "--png", pngs}, costArgs...), ops...)...)
	if rep.code != ExitOK {
		t.Fatalf("report: %d %s", rep.code, rep.stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Cost and price-performance", "oltp_point_select", "huawei-arm"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(pngs, "*.png")); len(files) < 4 {
		t.Errorf("--png wrote %d charts", len(files))
	}
	// One suite alone gets its report too (tables, scalability, charts).
	single := runCLI(ctx, nil, "report", a, "--format", "text")
	if single.code != ExitOK || !strings.Contains(single.stdout, "Scalability") {
		t.Errorf("report of one suite: %d\n%s%s", single.code, single.stdout, single.stderr)
	}
}

func TestCompareBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "compare needs result files"},
		{[]string{"compare", "/nonexistent"}, "no such file"},
		{[]string{"compare", "--metric", "speed", "x"}, "--metric"},
		{[]string{"compare", "--alpha", "2", "x"}, "--alpha"},
		{[]string{"compare", "--format", "pdf", "x"}, "unknown --format"},
		{[]string{"report", "--format", "pdf", "x"}, "unknown --format"},
		{[]string{"cost"}, "--prices"},
		{[]string{"cost", "--prices", "/nonexistent.yaml"}, "no such file"},
	} {
		r := runCLI(ctx, nil, tc.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestImportThenCompare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := twoSuites(t)
	logs := filepath.Join("..", "compat", "importer", "testdata")
	sb := filepath.Join(logs, "sysbench-1.0.20-oltp_point_select-t4.log")
	out := filepath.Join(t.TempDir(), "imported")
	imp := runCLI(ctx, nil, "import", sb, filepath.Join(logs, "go-tpc-1.0.12-run-t2.log"), "--out", out,
		"--arch", "arm64", "--cpu-model", "Kunpeng 920", "--machine-vcpus", "24", "--machine-ghz", "2.6", "--set", "warehouses=1", "--log-threads", "2")
	if imp.code != ExitOK || !strings.Contains(imp.stdout, "Imported 2 runs") {
		t.Fatalf("import: %d\n%s%s", imp.code, imp.stdout, imp.stderr)
	}
	noThreads := runCLI(ctx, nil, "import", filepath.Join(logs, "go-tpc-1.0.12-run-t2.log"), "--out", filepath.Join(t.TempDir(), "x"))
	if noThreads.code != ExitUsage || !strings.Contains(noThreads.stderr, "--log-threads") {
		t.Errorf("go-tpc log without a thread count: %d %s", noThreads.code, noThreads.stderr)
	}
	again := runCLI(ctx, nil, "import", sb, "--out", out)
	if again.code != ExitUsage || !strings.Contains(again.stderr, "already holds") {
		t.Errorf("import over existing files: %d %s", again.code, again.stderr)
	}
	// The imported directory and a log given directly are operands like any
	// other. The log ran another data set and distribution than the suite
	// (its table size and rand type are not the suite's 1x1000 uniform):
	// refused, or put together marked as mixed with --allow-mixed.
	for _, op := range []string{"sysbench=" + out, "sysbench=" + sb} {
		r := runCLI(ctx, nil, "compare", op, "fairbench="+a)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "oltp_point_select (rand type: sysbench") {
			t.Errorf("compare %s: %d, want the rows of different data refused\n%s%s", op, r.code, r.stdout, r.stderr)
		}
		r = runCLI(ctx, nil, "compare", "--allow-mixed", op, "fairbench="+a)
		if r.code != ExitOK || !strings.Contains(r.stdout, "oltp_point_select") || !strings.Contains(r.stdout, "4 † |") {
			t.Errorf("compare --allow-mixed %s: %d\n%s%s", op, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCLI(ctx, nil, "import", "--out", out, filepath.Join(logs, "README.md")); r.code != ExitUsage {
		t.Errorf("importing a file that is no log: %d %s", r.code, r.stderr)
	}
}

// TestReportBarThreads: report --bar-threads charts the test cases at the
// thread count asked for, and refuses one no system ran, naming those that
// exist.
func TestReportBarThreads(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ops := []string{
		"x86=" + writeRunsAt(t, root, "x86", mixX86, 100, []int{1, 2, 8}, "oltp_point_select", "oltp_read_write"),
		"arm=" + writeRunsAt(t, root, "arm", mixARM, 80, []int{1, 2, 8}, "oltp_point_select", "oltp_read_write"),
	}
	html := filepath.Join(t.TempDir(), "r.html")
	for _, tc := range []struct {
		flag, title string
	}{{"", "tps by test case at 8 threads"}, {"2", "tps by test case at 2 threads"}} {
		args := []string{"report", "--format", "html", "--out", html}
		if tc.flag != "" {
			args = append(args, "--bar-threads", tc.flag)
		}
		if r := runCLI(ctx, nil, append(args, ops...)...); r.code != ExitOK {
			t.Fatalf("report --bar-threads %q: exit %d\n%s", tc.flag, r.code, r.stderr)
		}
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), tc.title) {
			t.Errorf("report --bar-threads %q: no overview chart %q", tc.flag, tc.title)
		}
	}
	out := filepath.Join(t.TempDir(), "never.html")
	for _, n := range []string{"4", "-1"} {
		r := runCLI(ctx, nil, append([]string{"report", "--format", "html", "--out", out, "--bar-threads", n}, ops...)...)
		want := "--bar-threads 4: no system ran 4 threads in the rows compared; choose one of 1, 2, 8"
		if n == "-1" {
			want = "--bar-threads -1: give a thread count"
		}
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("report --bar-threads %s: exit %d, stderr %q; want %d and %q", n, r.code, r.stderr, ExitUsage, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("report --bar-threads %s wrote %s", n, out)
		}
	}
}
