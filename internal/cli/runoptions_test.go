package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/analysis/cost"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// editResults rewrites every result file in dir with edit.
func editResults(t *testing.T, dir string, edit func(*result.Result)) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no results in %s: %v", dir, err)
	}
	for _, f := range files {
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		edit(res)
		if err := result.Write(f, res); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func setOption(name, value string) func(*result.Result) {
	return func(res *result.Result) { res.Options[name] = value }
}

// TestRunOptionsAreMatchedLikeADataSet: ARM at --rate 5000 against x86 in a
// closed loop is refused, naming the option and both values; --allow-mixed
// marks the row; one system's runs with and without --rate are two rows,
// never rounds of one.
func TestRunOptionsAreMatchedLikeADataSet(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	x86 := writeRuns(t, root, "x86", mixX86, 100, "oltp_read_write")
	arm := writeRuns(t, root, "arm", mixARM, 80, "oltp_read_write")
	editResults(t, arm, setOption("rate", "5000"))
	ops := []string{"x86=" + x86, "arm=" + arm}
	const what = "options: x86 rate=0, arm rate=5000"
	for _, args := range [][]string{
		append([]string{"compare"}, ops...),
		append([]string{"report", "--format", "text"}, ops...),
		append(costArgs("--metric", "tps"), ops...),
	} {
		r := runCLI(ctx, nil, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, what) || !strings.Contains(r.stderr, "--allow-mixed") {
			t.Errorf("%s: exit %d, want %d and a refusal naming %q:\n%s%s", args[0], r.code, ExitUsage, what, r.stdout, r.stderr)
		}
	}
	r := runCLI(ctx, nil, append([]string{"compare", "--allow-mixed"}, ops...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, analysis.MixedMark+" mixed: "+what) {
		t.Errorf("compare --allow-mixed: exit %d, output lacks the mixed footnote:\n%s%s", r.code, r.stdout, r.stderr)
	}

	open := writeRuns(t, root, "x86-open", mixX86, 40, "oltp_read_write")
	editResults(t, open, setOption("rate", "5000"))
	r = runCLI(ctx, nil, "compare", "--format", "json", "x86="+x86, "x86="+open)
	if r.code != ExitOK {
		t.Fatalf("compare of one system's closed and open loop runs: exit %d\n%s", r.code, r.stderr)
	}
	var c struct {
		Rows []struct {
			Options string `json:"options"`
			Systems []struct {
				N int `json:"n"`
			} `json:"systems"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 4 {
		t.Fatalf("%d rows, want 4 (closed loop and --rate 5000 at 1 and 2 threads)", len(c.Rows))
	}
	for _, row := range c.Rows {
		if n := row.Systems[0].N; n != 1 {
			t.Errorf("row with options %q pools %d runs as rounds, want 1", row.Options, n)
		}
	}
	r = runCLI(ctx, nil, "compare", "--workload", "oltp_read_write/rate=5000", "x86="+x86, "x86="+open)
	if r.code != ExitOK || !strings.Contains(r.stdout, "rate=5000") || strings.Contains(r.stdout, "oltp_read_write (uniform, 1x1000)\n") {
		t.Errorf("--workload oltp_read_write/rate=5000: exit %d, want only the open-loop rows:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestClientSharesAreRefused: one client's result of a coordinated run, or a
// coordinated client's suite directory, is not the system's throughput.
func TestClientSharesAreRefused(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	x86 := writeRuns(t, root, "x86", mixX86, 100, "oltp_read_write")
	arm := writeRuns(t, root, "arm", mixARM, 80, "oltp_read_write")
	files := editResults(t, arm, func(res *result.Result) {
		res.Client = &result.ClientInfo{ID: 1, Of: 2, StartAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)}
	})
	ops := []string{"x86=" + x86, "arm=" + arm}
	for _, args := range [][]string{
		append([]string{"compare"}, ops...),
		append([]string{"report", "--format", "text"}, ops...),
		append(costArgs("--metric", "tps"), ops...),
	} {
		r := runCLI(ctx, nil, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "fairbench merge") || !strings.Contains(r.stderr, filepath.Base(files[0])) {
			t.Errorf("%s: exit %d, want %d and a refusal naming the files and fairbench merge:\n%s", args[0], r.code, ExitUsage, r.stderr)
		}
	}
	// A merged result is the whole.
	editResults(t, arm, func(res *result.Result) {
		res.Client = nil
		res.MergedFrom = []result.MergedPart{{File: "a.json", ClientID: 0}, {File: "b.json", ClientID: 1}}
	})
	if r := runCLI(ctx, nil, append([]string{"compare"}, ops...)...); r.code != ExitOK {
		t.Errorf("compare of a merged result: exit %d\n%s", r.code, r.stderr)
	}
	// A coordinated client's suite directory.
	suite := filepath.Join(root, "client-suite")
	m := &suitedir.Manifest{Schema: "1", Status: suitedir.StatusComplete, Machine: mixARM,
		Client: &suitedir.ClientRecord{ID: 0, Of: 3, RunID: "r1"}}
	if err := m.Write(suite); err != nil {
		t.Fatal(err)
	}
	r := runCLI(ctx, nil, "compare", "x86="+x86, "arm="+suite)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "client 0's share of 3") || !strings.Contains(r.stderr, "fairbench merge") {
		t.Errorf("compare of a client's suite directory: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCostHonoursCenterAndBaseline: cost prices the center the user asked
// for (median of three rounds, not the mean) against the baseline asked for,
// and says both.
func TestCostHonoursCenterAndBaseline(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	var ops []string
	for i, per := range []float64{100, 100, 400} { // x86: median 100 × threads, mean 200 × threads
		ops = append(ops, "x86="+writeRuns(t, root, "x86-"+string(rune('a'+i)), mixX86, per, "w10"))
	}
	ops = append(ops, "arm="+writeRuns(t, root, "arm", mixARM, 80, "w10"))
	r := runCLI(ctx, nil, append(costArgs("--center", "median", "--baseline", "arm", "--format", "json"), ops...)...)
	if r.code != ExitOK {
		t.Fatalf("cost --center median --baseline arm: exit %d\n%s", r.code, r.stderr)
	}
	var rep cost.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	ev := rep.Evaluations[0]
	if ev.Center != "median" || ev.Baseline != "huawei-arm" {
		t.Errorf("center %q, baseline %q: want median and huawei-arm", ev.Center, ev.Baseline)
	}
	// tpmC is per × warehouses × threads, averaged over threads 1 and 2.
	if x86, arm := ev.Rows[0].Throughput, ev.Rows[1].Throughput; x86 != 100*10*1.5 || arm != 80*10*1.5 {
		t.Errorf("throughputs x86 %v, arm %v: want x86's median of rounds %v and arm %v", x86, arm, 100*10*1.5, 80*10*1.5)
	}
	if ev.Rows[1].Diff != nil || ev.Rows[0].Diff == nil {
		t.Errorf("the baseline row is not arm's: %+v", ev.Rows)
	}
	r = runCLI(ctx, nil, append(costArgs("--center", "median", "--baseline", "arm"), ops...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, "the median of its rounds") || !strings.Contains(r.stdout, "÷ huawei-arm") {
		t.Errorf("cost text does not say the center and baseline:\n%s%s", r.stdout, r.stderr)
	}
	r = runCLI(ctx, nil, costArgs("--baseline", "arm")...)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--baseline applies to the throughput of results") {
		t.Errorf("cost --baseline without results: exit %d\n%s", r.code, r.stderr)
	}
	// report prices the same center and baseline as it compares.
	r = runCLI(ctx, nil, append([]string{"report", "--format", "text", "--center", "median", "--baseline", "arm"}, append(costArgs("--metric", "tpmc")[1:], ops...)...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, "the median of its rounds") || !strings.Contains(r.stdout, "÷ huawei-arm") {
		t.Errorf("report --prices does not price the center and baseline asked for:\n%s%s", r.stdout, r.stderr)
	}
}

// TestReportPricesRefusesFormatsWithoutCost: report --prices --format json
// or csv would leave the cost out without a word.
func TestReportPricesRefusesFormatsWithoutCost(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ops := []string{"x86=" + writeRuns(t, root, "x86", mixX86, 100, "w10"), "arm=" + writeRuns(t, root, "arm", mixARM, 80, "w10")}
	for _, format := range []string{"json", "csv"} {
		r := runCLI(ctx, nil, append(append([]string{"report", "--format", format}, costArgs()[1:]...), ops...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "not the cost section") || !strings.Contains(r.stderr, "fairbench cost") {
			t.Errorf("report --prices --format %s: exit %d\n%s%s", format, r.code, r.stdout, r.stderr)
		}
	}
}
