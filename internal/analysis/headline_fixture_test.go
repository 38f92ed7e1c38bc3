package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/golden"
)

// headlineFixtures are the committed result files of
// testdata/headline/SYSTEM/*.json: oltp_read_write at 1, 2 and 4 threads
// on a baseline (three rounds each) and four systems against it — rounds
// that do not overlap the baseline's (3 each: a difference the headline
// must claim), rounds that overlap them (it must not), a single round per
// cell (too few to tell), and rounds apart measured on a busy machine
// (claimed and flagged). Written by the test under -update; read back as
// compare reads any result directory.
var headlineFixtures = []struct {
	system string
	// tps are the rounds of each thread count (1, 2, 4).
	tps [3][]float64
	// otherPct is the share of the machine other processes used (0: quiet).
	otherPct float64
}{
	{"base", [3][]float64{{183, 190, 201}, {350, 362, 341}, {521, 540, 515}}, 0},
	{"apart", [3][]float64{{568, 590, 577}, {720, 745, 731}, {899, 880, 912}}, 0},
	{"overlap", [3][]float64{{170, 205, 199}, {330, 372, 358}, {505, 560, 530}}, 0},
	{"single", [3][]float64{{610}, {760}, {905}}, 0},
	{"busy", [3][]float64{{560, 585, 571}, {702, 733, 721}, {870, 861, 899}}, 74},
}

// writeHeadlineFixtures writes the fixtures' result files into dir.
func writeHeadlineFixtures(t *testing.T, dir string) {
	t.Helper()
	for _, f := range headlineFixtures {
		for ti, threads := range []int{1, 2, 4} {
			for round, tps := range f.tps[ti] {
				res := fakeRun{machine: x86Machine, server: mariadb, workload: "oltp_read_write", threads: threads, tps: tps, qps: 20 * tps,
					suite: &result.SuiteCell{Round: round + 1}}.build()
				if f.otherPct > 0 {
					pct := f.otherPct
					res.Observed = &result.Observed{Seconds: 10, Machine: &result.ObservedMachine{BusyPct: 100, OtherProcessesPct: &pct}}
				}
				path := filepath.Join(dir, f.system, fmt.Sprintf("t%d-r%d.json", threads, round+1))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := result.Write(path, res); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestHeadlineOfFixtures renders the headline of the committed fixtures
// against a golden file, and checks what each sentence must and must not
// claim whatever its wording.
func TestHeadlineOfFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "headline")
	if golden.Updating() {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		writeHeadlineFixtures(t, dir)
	}
	var systems []*System
	for _, f := range headlineFixtures {
		s, err := Load(filepath.Join(dir, f.system), f.system)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, s)
	}
	c, err := Compare(systems, CompareOptions{Baseline: "base"})
	if err != nil {
		t.Fatal(err)
	}
	lines := Headline(c)
	var b strings.Builder
	if err := WriteHeadlineText(&b, lines); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "headline.txt", []byte(b.String()))

	if len(lines) != 4 {
		t.Fatalf("%d headline sentences, want 4:\n%s", len(lines), b.String())
	}
	for _, tc := range []struct {
		line          string
		want, notWant []string
	}{
		{lines[0], []string{"apart is ", "faster than base at 1–4 threads", "95 % confidence: at least"}, []string{"could not tell", "too few", NoisyMark}},
		{lines[1], []string{"could not tell at 1–4 threads", "could show only a difference beyond"}, []string{"faster", "slower", "no difference", "no significant"}},
		{lines[2], []string{"too few rounds to tell at 1–4 threads (1 round of single, 3 of base)", "not tested"}, []string{"confidence:"}},
		{lines[3], []string{"busy is ", "faster than base at 1–4 threads", NoisyMark + " measured while other processes used more than 10 %"}, nil},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.line, w) {
				t.Errorf("%q lacks %q", tc.line, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(tc.line, w) {
				t.Errorf("%q says %q", tc.line, w)
			}
		}
	}
}

// TestOneSystemIsNotCompared: one system's figures are shown as figures —
// no baseline, no note about intervals of differences, no legend of a
// change against itself.
func TestOneSystemIsNotCompared(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "headline", "single"), "single")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]*System{s}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteText(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "Figures of tps (higher is better), mean of rounds\n") {
		t.Errorf("title: %q", strings.SplitN(out, "\n", 2)[0])
	}
	for _, wrong := range []string{"baseline", "Comparison of", "no interval of a difference", "confidence interval of the change"} {
		if strings.Contains(out, wrong) {
			t.Errorf("one system's figures say %q:\n%s", wrong, out)
		}
	}
	if l := c.Legend(); len(l) != 0 {
		t.Errorf("legend of one system: %q", l)
	}
}
