package cli

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/outfile/outfiletest"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// tinyRunArgs are the flags of a one-second point-select run on cfg's SQLite
// database (prepared by the first run, as the embedded default is).
func tinyRunArgs(path string) []string {
	return []string{"run", "oltp_point_select", "--tables=1", "--table-size=100", "--time=1", "--sqlite-db=" + path}
}

// listTree lists every path under dir (relative), for "nothing was created".
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestOutputOntoSpecialFiles: run -o and merge -o onto a symbolic link, a
// FIFO and a character device made with mknod in a temp dir. The link's
// target gets the result and the link stays; the FIFO's reader gets the
// result and the FIFO stays; the device node stays a device node (as root,
// -o /dev/null once replaced /dev/null with a regular file).
func TestOutputOntoSpecialFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.SQLite(t).Path
	dir := t.TempDir()
	client := clientResult(t, db)
	for _, tc := range []struct {
		name string
		// make creates the node at path; read returns what reached the
		// other side ("" = nothing to read, as for a null device).
		make func(t *testing.T, path string) (read func() string)
		mode fs.FileMode
	}{
		{name: "symlink", mode: fs.ModeSymlink, make: func(t *testing.T, p string) func() string {
			target := filepath.Join(t.TempDir(), "real.json")
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			return func() string { b, _ := os.ReadFile(target); return string(b) }
		}},
		{name: "FIFO", mode: fs.ModeNamedPipe, make: func(t *testing.T, p string) func() string {
			return outfiletest.FIFO(t, p)
		}},
		{name: "chardev", mode: fs.ModeDevice | fs.ModeCharDevice, make: func(t *testing.T, p string) func() string {
			outfiletest.NullDevice(t, p)
			return func() string { return "" }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range []string{"run", "merge"} {
				path := filepath.Join(dir, cmd+"-"+tc.name)
				read := tc.make(t, path)
				before, _ := os.Lstat(path)
				var r cliRun
				if cmd == "run" {
					r = runCLI(ctx, nil, append(tinyRunArgs(db), "-o", path)...)
				} else {
					r = runCLI(ctx, nil, "merge", client, "-o", path)
				}
				if r.code != ExitOK {
					t.Fatalf("%s -o %s: exit %d\n%s%s", cmd, tc.name, r.code, r.stdout, r.stderr)
				}
				after, err := os.Lstat(path)
				if err != nil || after.Mode().Type() != tc.mode.Type() || !os.SameFile(before, after) {
					t.Fatalf("%s -o replaced the %s: now %v (%v)", cmd, tc.name, after.Mode().Type(), err)
				}
				if got := read(); got != "" {
					if _, err := result.Decode(strings.NewReader(got)); err != nil {
						t.Errorf("%s -o %s: what arrived is not a result: %v", cmd, tc.name, err)
					}
				} else if tc.name != "chardev" {
					t.Errorf("%s -o %s: nothing arrived", cmd, tc.name)
				}
			}
			for _, n := range listTree(t, dir) {
				if strings.Contains(n, ".tmp-") {
					t.Errorf("a temporary file was left: %s", n)
				}
			}
		})
	}
}

// clientResult makes the result of a coordinated client of
// one, something merge takes.
func clientResult(t *testing.T, db string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c0.json")
	start := strconv.FormatInt(time.Now().Add(2*time.Second).Unix(), 10)
	r := runCLI(context.Background(), nil, append(tinyRunArgs(db), "--client-id=0", "--clients=1", "--start-at="+start, "-o", path)...)
	if r.code != ExitOK {
		t.Fatalf("client run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return path
}

// TestOutputRefusedBeforeConnecting: an --output, --cpu-profile or
// --mem-profile that cannot be written ends the command before it connects
// (exit 2, not 3 for the unreachable server), and an output whose directories
// were created for it leaves none behind when the run cannot start.
func TestOutputRefusedBeforeConnecting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	unreachable := []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=1"}
	for _, flag := range []string{"--output", "--cpu-profile", "--mem-profile"} {
		r := runCLI(ctx, nil, append([]string{"run", "oltp_point_select", flag + "=" + dir}, unreachable...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, flag+": "+dir+" is a directory") {
			t.Errorf("%s onto a directory: exit %d, %q; want exit %d naming the flag and the directory", flag, r.code, r.stderr, ExitUsage)
		}
	}
	r := runCLI(ctx, nil, append([]string{"run", "oltp_point_select", "-o", filepath.Join(dir, "new", "sub", "r.json")}, unreachable...)...)
	if r.code != ExitTarget {
		t.Fatalf("run on an unreachable server: exit %d %s", r.code, r.stderr)
	}
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("a run that could not start left %v", got)
	}
}

// TestFailingCommandsCreateNothing runs, in an empty working directory,
// commands that fail before they start: none may leave a file behind (they
// created fairbench-data/fairbench.db, the embedded default's database, or
// report's HTML file).
func TestFailingCommandsCreateNothing(t *testing.T) {
	ctx := context.Background()
	db := testdb.SQLite(t).Path
	res := filepath.Join(t.TempDir(), "r.json")
	if r := runCLI(ctx, nil, append(tinyRunArgs(db), "-o", res)...); r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	// A plan on the embedded default (no target: fairbench-data/fairbench.db).
	plan := writeFile(t, "tiny.yaml", `name: tiny
data: {tables: 1, table_size: 100}
matrix: {workloads: [oltp_point_select], threads: [1]}
run: {time: 1}
`)
	// A suite directory of another plan: resuming it with this one is refused.
	other := filepath.Join(t.TempDir(), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &suitedir.Manifest{Schema: suitedir.ManifestSchema, Plan: suitedir.PlanRecord{Name: "tiny", Hash: "0123456789abcdef", Scale: 1}}
	if err := m.Write(other); err != nil {
		t.Fatal(err)
	}
	hostname := filepath.Join(t.TempDir(), "hostname") // a regular file
	if err := os.WriteFile(hostname, []byte("h\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"resume of no suite", []string{"suite", "run", plan, "--resume", "--out", "nosuch"}, ExitUsage, "cannot resume"},
		{"suite --out a file", []string{"suite", "run", plan, "--out", hostname}, ExitUsage, "not a directory"},
		{"resume with a changed plan", []string{"suite", "run", plan, "--resume", "--out", other}, ExitUsage, "plan file changed"},
		{"tpcc --output-dir a file", []string{"prepare", "tpcc", "--warehouses=1", "--output-dir=" + hostname}, ExitUsage, "--output-dir"},
		{"run -o a directory", []string{"run", "oltp_point_select", "-o", "."}, ExitUsage, "is a directory"},
		{"run with a bad --sqlite-ignore-errors", []string{"run", "oltp_point_select", "--sqlite-ignore-errors=,"}, ExitUsage, "empty error code"},
		{"merge -o a directory", []string{"merge", res, "-o", "."}, ExitUsage, "is a directory"},
		{"report --png a file", []string{"report", res, "--format", "html", "--out", "r.html", "--png", hostname}, ExitUsage, "--png"},
		{"compare --out a directory", []string{"compare", res, "--out", "."}, ExitUsage, "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(ctx, nil, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, %q; want exit %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
			if got := listTree(t, "."); len(got) != 0 {
				t.Errorf("the failing command left %v in the working directory", got)
				for _, p := range got {
					os.RemoveAll(p)
				}
			}
		})
	}
	if b, _ := os.ReadFile(hostname); string(b) != "h\n" {
		t.Errorf("the regular file named as a directory was changed: %q", b)
	}
	if !slices.Equal(listTree(t, other), []string{suitedir.ManifestName}) {
		t.Errorf("the refused suite directory changed: %v", listTree(t, other))
	}
}

// TestPrepareOutputDirCreatesNothingElse: a successful prepare tpcc
// --output-dir writes its files into the directory and nothing else — it
// used to open the default SQLite database too, creating fairbench-data/ in
// the working directory — for each driver's dialect, without a connection
// (the MySQL and PostgreSQL targets named here do not exist).
func TestPrepareOutputDirCreatesNothingElse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target []string
		schema string // a part of schema.sql in the target's dialect
	}{
		{"sqlite default", nil, "tpcc schema for sqlite"},
		{"mysql", []string{"--db-driver=mysql", "--mysql-host=203.0.113.1", "--mysql-port=1"}, "tpcc schema for mysql"},
		{"pgsql", []string{"--db-driver=pgsql", "--pgsql-host=203.0.113.1", "--pgsql-port=1"}, "tpcc schema for postgres"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "csv")
			t.Chdir(t.TempDir())
			r := runCLI(context.Background(), nil, append([]string{"prepare", "tpcc", "--warehouses=1", "--output-dir=" + out}, tc.target...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if got := listTree(t, "."); len(got) != 0 {
				t.Errorf("prepare --output-dir left %v in the working directory", got)
			}
			b, err := os.ReadFile(filepath.Join(out, "schema.sql"))
			if err != nil || !strings.Contains(string(b), tc.schema) {
				t.Errorf("schema.sql (%v) lacks %q:\n%.300s", err, tc.schema, b)
			}
			if _, err := os.Stat(filepath.Join(out, "item.csv")); err != nil {
				t.Errorf("no item.csv: %v", err)
			}
		})
	}
}
