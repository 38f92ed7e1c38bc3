package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// numbers masks every run of digits, with the blanks that pad it, to one
// 9 after one blank: the widths of figures vary from run to run (a column
// of -r's table widens once a latency reaches 10 ms), their places and
// formats do not.
var numbers = regexp.MustCompile(` *[0-9]+`)

// pgbenchLayout is output with its digits masked and the lines that differ by
// nature left out: pgbench's banner (its version against fairbench's) and
// the server's NOTICE lines that libpq relays.
func pgbenchLayout(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(l, "pgbench (") || strings.HasPrefix(l, "NOTICE:") || l == "" {
			continue
		}
		lines = append(lines, numbers.ReplaceAllStringFunc(l, func(m string) string {
			if strings.HasPrefix(m, " ") {
				return " 9"
			}
			return "9"
		}))
	}
	return lines
}

// progressLines and otherLines split an output into -P's progress lines
// and the rest.
func progressLines(lines []string) (progress, other []string) {
	for _, l := range lines {
		if strings.HasPrefix(l, "progress: ") {
			progress = append(progress, l)
		} else {
			other = append(other, l)
		}
	}
	return progress, other
}

// TestPgbenchDropInPrintsWhatPgbenchPrints runs real pgbench 15 command lines
// with pgbench and with `fairbench pgbench` on the same database: both end
// well, and fairbench prints pgbench's lines — the report on stdout, -i's
// steps and the progress lines on stderr — the same once digits are masked.
// fairbench's own notes (what it does differently, what limited the run) go
// to stderr after pgbench's lines and are left out of the comparison.
func TestPgbenchDropInPrintsWhatPgbenchPrints(t *testing.T) {
	t.Parallel()
	cfg := testdb.PgSQL(t)
	dir := t.TempDir()
	pgbench, env := realPgbench(t, cfg, dir)
	custom := filepath.Join(dir, "custom.sql")
	if err := os.WriteFile(custom, []byte("\\set aid random(1, 100000 * :scale)\n\\set delta random(-:maxdelta, :maxdelta)\nBEGIN;\nUPDATE pgbench_accounts SET abalance = abalance + :delta\n  WHERE aid = :aid;\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\nEND;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := env["FAIRBENCH_RESULTS"]
	lines := []string{
		"-i -s 1 -q",
		"-i -s 1 -I dtGvp",
		"-i -s 1 --foreign-keys",
		"-i -s 1 -F 90 --unlogged-tables",
		"-i -s 1 --partitions=2",
		"-i -s 1 --partitions=3 --partition-method=hash",
		"-i -s 1 -n",
		"-i -s 2",
		"-c 2 -t 20",
		"-c 2 -j 2 -t 20 -M prepared",
		"-c 2 -t 20 -M extended -n",
		"-S -c 4 -t 50",
		"-N -c 2 -t 20 -v",
		"-b simple-update@2 -b select-only@8 -c 2 -t 30",
		"-b tpcb-like@3 -b select-only@1 -c 2 -t 30 --max-tries=3 -r",
		"-c 2 -T 2 -P 1 -M prepared",
		"-S -c 2 -t 20 -r",
		"-c 2 -t 20 -D maxdelta=5 -f " + custom + " -r",
		"-c 2 -T 2 -R 100 -P 1",
		"-c 2 -T 2 -R 100 -L 50 -P 1",
		"-S -c 2 -t 50 -L 100",
		"-c 2 -t 20 --max-tries=3",
		"-S -c 2 -t 20 -s 5",
		"-C -c 2 -t 20",
		"-C -S -c 2 -T 2 -P 1 -M prepared",
		"--show-script=select-only",
		"-b list",
	}
	for _, line := range lines {
		args := strings.Fields(line)
		pgOut, pgErr := runPgbench(t, pgbench, env, args...)
		r := runCLI(context.Background(), env, append([]string{"pgbench"}, args...)...)
		if r.code != 0 {
			t.Errorf("fairbench pgbench %s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
			continue
		}
		if isRun := !strings.HasPrefix(line, "-i") && !strings.HasPrefix(line, "--show") && line != "-b list"; isRun {
			// A run keeps its result, and says where, last.
			last := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			path, ok := strings.CutPrefix(last[len(last)-1], "fairbench: the result is in ")
			if !ok || !strings.HasPrefix(path, results) {
				t.Errorf("fairbench pgbench %s: the last line of stderr %q does not name the result in %s", line, last[len(last)-1], results)
			} else if res := readResult(t, path); res.Totals.Counts.Events == 0 {
				t.Errorf("fairbench pgbench %s: the result %s counts no transaction", line, path)
			}
		}
		if got, want := pgbenchLayout(r.stdout), pgbenchLayout(pgOut); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("fairbench pgbench %s: stdout\n%s\nwant pgbench's\n%s", line, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		gotP, gotOther := progressLines(pgbenchLayout(r.stderr))
		wantP, wantOther := progressLines(pgbenchLayout(pgErr))
		if len(wantP) > 0 && (len(gotP) == 0 || gotP[0] != wantP[0]) {
			t.Errorf("fairbench pgbench %s: progress lines %q, want like pgbench's %q", line, gotP, wantP)
		}
		// fairbench's notes follow pgbench's own lines on stderr.
		if len(gotOther) < len(wantOther) || strings.Join(gotOther[:len(wantOther)], "\n") != strings.Join(wantOther, "\n") {
			t.Errorf("fairbench pgbench %s: stderr\n%s\nwant pgbench's lines first\n%s", line, strings.Join(gotOther, "\n"), strings.Join(wantOther, "\n"))
		}
	}
}

// realPgbench is the pgbench binary the drop-in is held against, with the
// environment that points it (and the drop-in) at cfg's database; the
// results of the drop-in's runs go under dir.
func realPgbench(t *testing.T, cfg driver.Config, dir string) (path string, env map[string]string) {
	t.Helper()
	path, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatalf("pgbench is not installed (Debian: apt-get install postgresql-15): %v", err)
	}
	return path, map[string]string{"PGHOST": cfg.Hosts[0], "PGPORT": strconv.Itoa(cfg.Ports[0]), "PGUSER": cfg.User, "PGDATABASE": cfg.Database, "FAIRBENCH_RESULTS": filepath.Join(dir, "results")}
}

// runPgbench runs real pgbench with args in env and returns its stdout and
// stderr; a failure fails the test.
func runPgbench(t *testing.T, pgbench string, env map[string]string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(pgbench, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("pgbench %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// TestPgbenchLogFilesAsPgbenchWritesThem: -l's files are pgbench's: the
// same files (PREFIX.PID, PREFIX.PID.N per -j thread, the clients split
// alike), the same columns for each option, every transaction once, and
// aggregated lines that add up to the transactions processed. Real pgbench
// runs the same command lines beside it.
func TestPgbenchLogFilesAsPgbenchWritesThem(t *testing.T) {
	t.Parallel()
	cfg := testdb.PgSQL(t)
	dir := t.TempDir()
	pgbench, env := realPgbench(t, cfg, dir)
	if r := runCLI(context.Background(), env, "pgbench", "-i", "-s", "1", "-q"); r.code != 0 {
		t.Fatalf("pgbench -i: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	cases := []struct {
		line    string
		clients int
		each    int // -t: transactions per client
		files   int
		fields  int
	}{
		{"-c 3 -j 2 -t 20 -S -l", 3, 20, 2, 6},
		{"-c 2 -t 20 -S -l --max-tries=2", 2, 20, 1, 7},
		{"-c 2 -T 2 -S -R 200 -l", 2, 0, 1, 7},
		{"-c 2 -T 2 -S -l --aggregate-interval=1", 2, 0, 1, 15},
		{"-c 2 -t 200 -S -l --sampling-rate=0.5", 2, 0, 1, 6},
	}
	for i, tc := range cases {
		for _, tool := range []string{"pgbench", "fairbench"} {
			prefix := filepath.Join(dir, fmt.Sprintf("%s-%d", tool, i), "log")
			if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
				t.Fatal(err)
			}
			args := append(strings.Fields(tc.line), "-n", "--log-prefix="+prefix)
			var stdout string
			if tool == "pgbench" {
				stdout, _ = runPgbench(t, pgbench, env, args...)
			} else {
				r := runCLI(context.Background(), env, append([]string{"pgbench"}, args...)...)
				if r.code != 0 {
					t.Fatalf("fairbench pgbench %s: exit %d\n%s%s", tc.line, r.code, r.stdout, r.stderr)
				}
				stdout = r.stdout
			}
			checkPgbenchLog(t, tool+" "+tc.line, prefix, stdout, tc.clients, tc.each, tc.files, tc.fields)
		}
	}
}

// checkPgbenchLog checks the -l files under prefix of one run.
func checkPgbenchLog(t *testing.T, name, prefix, stdout string, clients, each, files, fields int) {
	t.Helper()
	paths, _ := filepath.Glob(prefix + ".*")
	sort.Strings(paths)
	if len(paths) != files {
		t.Errorf("%s: files %q, want %d", name, paths, files)
		return
	}
	m := regexp.MustCompile(`number of transactions actually processed: (\d+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Errorf("%s: no transaction count in\n%s", name, stdout)
		return
	}
	processed, _ := strconv.Atoi(m[1])
	perClient := map[string][]int{} // each client's transaction numbers
	total := 0
	for fi, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(line)
			if len(f) != fields {
				t.Errorf("%s: %s: %q has %d fields, want %d", name, p, line, len(f), fields)
				return
			}
			for _, v := range f {
				if _, err := strconv.ParseInt(v, 10, 64); err != nil {
					t.Errorf("%s: %s: %q: %q is not a whole number", name, p, line, v)
					return
				}
			}
			if fields == 15 { // aggregated: start, count, …
				n, _ := strconv.Atoi(f[1])
				total += n
				continue
			}
			total++
			no, _ := strconv.Atoi(f[1])
			perClient[f[0]] = append(perClient[f[0]], no)
			// pgbench's split of 3 clients over 2 threads: 0 and 1, then 2.
			if c, _ := strconv.Atoi(f[0]); files == 2 && (c < 2) != (fi == 0) {
				t.Errorf("%s: client %d in %s", name, c, p)
			}
		}
	}
	switch {
	case strings.Contains(name, "--sampling-rate=0.5"):
		if total < processed/4 || total > processed*3/4 {
			t.Errorf("%s: %d lines of %d transactions at a 0.5 sample", name, total, processed)
		}
	case fields == 15 && strings.HasPrefix(name, "pgbench"):
		// pgbench's aggregated lines count fewer transactions than its
		// report (its last interval is not written); fairbench's intervals
		// start with the measured phase and hold every transaction.
		if total > processed || total == 0 {
			t.Errorf("%s: the log counts %d transactions, the report %d", name, total, processed)
		}
	case total != processed:
		t.Errorf("%s: the log counts %d transactions, the report %d", name, total, processed)
	}
	if fields == 15 || strings.Contains(name, "--sampling-rate") {
		return
	}
	if len(perClient) != clients {
		t.Errorf("%s: clients %v, want %d", name, perClient, clients)
	}
	for c, nos := range perClient {
		// Every transaction of a client once, numbered from 1 in order,
		// and with -t as many for every client.
		for i, no := range nos {
			if no != i+1 || (each > 0 && len(nos) != each) {
				t.Errorf("%s: client %s's transactions numbered %v", name, c, nos)
				break
			}
		}
	}
}
