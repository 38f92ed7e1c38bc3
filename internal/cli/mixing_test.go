package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
)

// The machines of the mixing tests: x86 at 3.0 GHz, ARM at 2.6 GHz, 24 vCPUs each.
var (
	mixX86 = result.Machine{Arch: "amd64", CPUModel: "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", LogicalCPUs: 24, Hostname: "x86-bench"}
	mixARM = result.Machine{Arch: "arm64", CPUModel: "Kunpeng-920", Core: "TaiShan-v110", LogicalCPUs: 24, MaxMHz: 2600, Hostname: "arm-bench"}
)

// writeRuns writes complete results into a new directory under parent: for
// each data set (tpcc warehouses as "w10", OLTP as "oltp_point_select") runs
// at 1 and 2 threads whose figure is per × warehouses × threads (per ×
// threads for OLTP), as tpmC and as tps.
func writeRuns(t *testing.T, parent, name string, m result.Machine, per float64, sets ...string) string {
	t.Helper()
	return writeRunsAt(t, parent, name, m, per, []int{1, 2}, sets...)
}

// writeRunsAt is writeRuns at the given thread counts.
func writeRunsAt(t *testing.T, parent, name string, m result.Machine, per float64, threadCounts []int, sets ...string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, set := range sets {
		for _, threads := range threadCounts {
			res := &result.Result{
				Schema: result.SchemaVersion, Tool: result.Tool{Name: "fairbench", Version: "test"},
				Threads: threads, Status: result.StatusComplete, Machine: m,
				// A local server: the client machine is the machine under test.
				Target:  result.Target{Driver: "mysql", Hosts: []string{"127.0.0.1"}, Ports: []int{3306}},
				Server:  result.Server{Flavor: "MySQL", Version: "8.0.19"},
				Options: map[string]string{"threads": strconv.Itoa(threads)},
				Start:   time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
			}
			v := per * float64(threads)
			if w, ok := strings.CutPrefix(set, "w"); ok {
				n, _ := strconv.Atoi(w)
				v *= float64(n)
				res.Workload, res.Options["warehouses"] = "tpcc", w
				res.Figures = []result.Figure{{Name: "tpmC", Value: v, Unit: "transactions/min"}}
			} else {
				res.Workload, res.Options["rand-type"], res.Options["tables"], res.Options["table-size"] = set, "uniform", "1", "1000"
			}
			res.Totals = result.Phase{Seconds: 60, TPS: v, QPS: v,
				Latency: result.Latency{Percentiles: map[string]float64{"95": 1000 / v}}}
			if err := result.Write(filepath.Join(dir, fmt.Sprintf("%s-t%d.json", set, threads)), res); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// costArgs price the mixing tests' systems with the seed 001 sheet.
func costArgs(args ...string) []string {
	prices := filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml")
	return append([]string{"cost", "--prices", prices, "--system", "arm=huawei-arm", "--system", "x86=huawei-x86", "--metric", "tpmc"}, args...)
}

func TestMixedDataSetsAreRefused(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ops := []string{"x86=" + writeRuns(t, root, "x86", mixX86, 100, "w10"), "arm=" + writeRuns(t, root, "arm", mixARM, 80, "w100")}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{append([]string{"compare", "--metric", "tpmc"}, ops...), []string{"tpcc (data set: x86 w10, arm w100)", "x86 has tpcc/w10; arm has tpcc/w100", "--workload", "--allow-mixed"}},
		{append([]string{"report", "--metric", "tpmc", "--format", "html", "--out", filepath.Join(root, "r.html")}, ops...), []string{"tpcc (data set: x86 w10, arm w100)", "--allow-mixed"}},
		{costArgs(ops...), []string{"tpcc (data set: x86 w10, arm w100)", "--cost-workload", "--allow-mixed"}},
	} {
		r := runCLI(ctx, nil, tc.args...)
		if r.code != ExitUsage {
			t.Errorf("%s: exit %d, want %d (refused)\n%s%s", tc.args[0], r.code, ExitUsage, r.stdout, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.args[0], r.stderr, w)
			}
		}
	}
}

func TestAllowMixedMarksEveryRendering(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ops := []string{"x86=" + writeRuns(t, root, "x86", mixX86, 100, "w10"), "arm=" + writeRuns(t, root, "arm", mixARM, 80, "w100")}
	const what = "data set: x86 w10, arm w100"
	for _, tc := range []struct{ format, want string }{
		{"text", "1 † |"}, {"md", "| 1 † |"}, {"csv", `,"` + what + `"`}, {"json", `"part": "data set"`},
	} {
		r := runCLI(ctx, nil, append([]string{"compare", "--allow-mixed", "--metric", "tpmc", "--format", tc.format}, ops...)...)
		if r.code != ExitOK || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("compare --allow-mixed --format %s: exit %d, output lacks %q:\n%s%s", tc.format, r.code, tc.want, r.stdout, r.stderr)
		}
		if tc.format == "text" {
			golden(t, "compare_mixed.golden", []byte(r.stdout))
		}
	}
	html := filepath.Join(root, "r.html")
	r := runCLI(ctx, nil, append(costArgs("--allow-mixed", "--format", "text"), ops...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, "Cost comparison: tpcc † mixed") || !strings.Contains(r.stdout, "† mixed: "+what) {
		t.Errorf("cost --allow-mixed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rep := append([]string{"report"}, costArgs("--allow-mixed", "--format", "html", "--out", html)[1:]...)
	r = runCLI(ctx, nil, append(rep, ops...)...)
	if r.code != ExitOK {
		t.Fatalf("report --allow-mixed: exit %d %s", r.code, r.stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<td>1 †</td>", "<td>2 †</td>", "† mixed: " + what, "Cost comparison: tpcc † mixed"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestCostPricesTheRowEverySystemRan(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	// x86 ran 10 and 100 warehouses, ARM 100 and 500: only 100 warehouses
	// can be priced alike, and ARM does 20 % less there (80 vs 100 per
	// warehouse and thread). Pricing x86's 10 against ARM's 100 would say +700 %.
	ops := []string{"x86=" + writeRuns(t, root, "x86", mixX86, 100, "w10", "w100"), "arm=" + writeRuns(t, root, "arm", mixARM, 80, "w100", "w500")}
	r := runCLI(ctx, nil, costArgs(ops...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, "Cost comparison: tpcc/w100\n") || !strings.Contains(r.stdout, "-20.00%") {
		t.Fatalf("cost of x86 w10+w100 and arm w100+w500: exit %d, want the w100 row at -20.00%%\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "mixed") {
		t.Errorf("the matching row is marked mixed:\n%s", r.stdout)
	}
}

func TestCostWorkloadChoosesAmongRows(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ops := []string{
		"x86=" + writeRuns(t, root, "x86", mixX86, 100, "w10", "w100", "oltp_point_select"),
		"arm=" + writeRuns(t, root, "arm", mixARM, 80, "w10", "w100", "oltp_point_select"),
	}
	for _, tc := range []struct {
		args  []string
		code  int
		want  string
		title string
	}{
		{nil, ExitUsage, "2 rows every system ran: tpcc/w10, tpcc/w100; choose the one to price with --cost-workload", ""},
		{[]string{"--metric", "tps"}, ExitUsage, "3 rows every system ran: oltp_point_select/uniform/1x1000, tpcc/w10, tpcc/w100; choose the one to price with --cost-workload", ""},
		{[]string{"--cost-workload", "tpcc"}, ExitUsage, "--cost-workload tpcc matches 2 rows every system ran: tpcc/w10, tpcc/w100", ""},
		{[]string{"--cost-workload", "tpcc/w500"}, ExitUsage, "--cost-workload tpcc/w500: no row has that workload", ""},
		{[]string{"--cost-workload", "tpcc/w100"}, ExitOK, "-20.00%", "tpcc/w100"},
		{[]string{"--cost-workload", "tpcc (w10)"}, ExitOK, "-20.00%", "tpcc/w10"},
		{[]string{"--cost-workload", "oltp_point_select", "--metric", "tps"}, ExitOK, "-20.00%", "oltp_point_select/uniform/1x1000"},
		{[]string{"--cost-workload", "oltp_point_select (uniform, 1x1000)", "--metric", "tps"}, ExitOK, "-20.00%", "oltp_point_select/uniform/1x1000"},
	} {
		r := runCLI(ctx, nil, append(costArgs(tc.args...), ops...)...)
		out := r.stdout + r.stderr
		if r.code != tc.code || !strings.Contains(out, tc.want) || (tc.title != "" && !strings.Contains(out, "Cost comparison: "+tc.title+"\n")) {
			t.Errorf("cost %q: exit %d, want %d with %q (title %q)\n%s", tc.args, r.code, tc.code, tc.want, tc.title, out)
		}
	}
}

func TestCompareOperandsRecursiveAndCombined(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	x86 := writeRuns(t, root, "x86", mixX86, 100, "w10")
	armParent := filepath.Join(root, "arm")
	armA := writeRuns(t, armParent, filepath.Join("day1", "a"), mixARM, 80, "w10")
	armB := writeRuns(t, armParent, "day2", mixARM, 90, "w10")
	for _, tc := range []struct {
		name    string
		ops     []string
		n, want string // arm's rounds and mean at 1 thread: 1 and 800 (day 1), 2 and 850 (both days)
	}{
		{"subdirectories", []string{"x86=" + x86, "arm=" + armParent}, "2", "850"},
		{"repeated label", []string{"x86=" + x86, "arm=" + armA, "arm=" + armB}, "2", "850"},
		{"same directory twice", []string{"x86=" + x86, "arm=" + armA, "arm=" + armA}, "1", "800"},
		{"a directory and a file in it", []string{"x86=" + x86, "arm=" + armParent, "arm=" + filepath.Join(armB, "w10-t1.json")}, "2", "850"},
	} {
		r := runCLI(ctx, nil, append([]string{"compare", "--metric", "tpmc", "--format", "csv"}, tc.ops...)...)
		if r.code != ExitOK {
			t.Errorf("%s: exit %d %s", tc.name, r.code, r.stderr)
			continue
		}
		if strings.Contains(r.stdout, "arm#2") {
			t.Errorf("%s: a repeated label became a second system:\n%s", tc.name, r.stdout)
		}
		prefix := "tpcc,,,w10,1,tpmc,tpmC,arm,false,"
		var line string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, prefix) {
				line = l
			}
		}
		if f := strings.Split(line, ","); len(f) < 11 || f[9] != tc.n || f[10] != tc.want {
			t.Errorf("%s: arm at 1 thread: %q, want n %s and value %s", tc.name, line, tc.n, tc.want)
		}
	}
}

func TestCostAveragesTheThreadCountsEverySystemRan(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	// ARM also ran 4 threads: its mean over 1, 2 and 4 against x86's over 1
	// and 2 would say +24 %; over 1 and 2 on both it is -20 %.
	ops := []string{"x86=" + writeRuns(t, root, "x86", mixX86, 100, "w100"), "arm=" + writeRunsAt(t, root, "arm", mixARM, 80, []int{1, 2, 4}, "w100")}
	r := runCLI(ctx, nil, costArgs(ops...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, "-20.00%") || !strings.Contains(r.stdout, "tpmC: mean of 1, 2 threads") {
		t.Errorf("cost of x86 at 1, 2 threads and arm at 1, 2, 4: exit %d, want -20.00%% over 1, 2 threads\n%s%s", r.code, r.stdout, r.stderr)
	}
	ops[1] = "arm=" + writeRunsAt(t, root, "arm4", mixARM, 80, []int{4}, "w100")
	r = runCLI(ctx, nil, costArgs(ops...)...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "share no thread count") || !strings.Contains(r.stderr, "x86 ran 1, 2; arm ran 4") {
		t.Errorf("cost of systems without a common thread count: exit %d\n%s", r.code, r.stderr)
	}
}
