package script

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload/pgbench/expr"
)

// The tests of this file run real pgbench 15 as the oracle; they skip under
// -short.

// pgbench runs real pgbench with args and returns its standard error and
// whether it exited with success.
func pgbench(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatalf("pgbench is not installed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	return stderr.String(), err == nil
}

// pgbenchDB runs pgbench -n with args against the database of cfg.
func pgbenchDB(t *testing.T, cfg driver.Config, args ...string) string {
	t.Helper()
	all := append([]string{"-h", cfg.Hosts[0], "-p", strconv.Itoa(cfg.Ports[0]), "-U", cfg.User, "-n"}, args...)
	all = append(all, cfg.Database)
	if cfg.Password != "" {
		t.Setenv("PGPASSWORD", cfg.Password)
	}
	out, ok := pgbench(t, all...)
	if !ok {
		t.Fatalf("pgbench %s failed:\n%s", strings.Join(args, " "), out)
	}
	return out
}

// writeFile writes text to a file of the test's temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// debugLine is one value pgbench's debug() printed.
var debugLine = regexp.MustCompile(`(?m)^debug\(script=(\d+),command=(\d+)\): (?:int|double) (\S+)$`)

type debugValue struct {
	script, command int
	value           string
}

func debugValues(out string) []debugValue {
	var vs []debugValue
	for _, m := range debugLine.FindAllStringSubmatch(out, -1) {
		s, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		vs = append(vs, debugValue{s, c, m[3]})
	}
	return vs
}

func TestBuiltinsAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "pgbench")
	for _, name := range BuiltinNames() {
		out, ok := pgbench(t, "--show-script="+name)
		if !ok {
			t.Fatalf("pgbench --show-script=%s failed: %s", name, out)
		}
		s, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := ShowScript(s); got != out {
			t.Errorf("%s: ShowScript gives\n%q\npgbench --show-script prints\n%q", name, got, out)
		}
	}
	// pgbench's prefix rules: a unique prefix names a script, others fail.
	for _, prefix := range []string{"tpcb", "simple", "sel", "s", "", "foo"} {
		_, pgOK := pgbench(t, "--show-script="+prefix)
		_, err := Builtin(prefix)
		if pgOK != (err == nil) {
			t.Errorf("Builtin(%q): error %v, but pgbench succeeds: %v", prefix, err, pgOK)
		}
	}
}

// TestParseErrorsAgainstPgbench checks that real pgbench, too, refuses every
// bad script of parseErrorCases that pgbench refuses, before connecting to
// anything.
func TestParseErrorsAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "pgbench")
	for _, c := range parseErrorCases {
		if !c.pgbenchRefuses {
			continue
		}
		file := writeFile(t, "bad.sql", c.src)
		out, ok := pgbench(t, "-n", "-t", "1", "-h", "/nonexistent", "-f", file, "nodb")
		if ok || strings.Contains(out, "connection to server") || !strings.Contains(out, "error") {
			t.Errorf("pgbench does not refuse %q while parsing: %s", c.src, out)
		}
	}
	for _, c := range parseCases {
		file := writeFile(t, "good.sql", c.src)
		out, _ := pgbench(t, "-n", "-t", "1", "-h", "/nonexistent", "-f", file, "nodb")
		if !strings.Contains(out, "connection to server") {
			t.Errorf("pgbench refuses %q, which Parse accepts: %s", c.src, out)
		}
	}
}

// TestWeightsAgainstPgbench checks ParseWeighted against pgbench -b NAME@W.
func TestWeightsAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "pgbench")
	for _, arg := range []string{"select-only@1", "select-only@0", "select-only@-1", "select-only@+2",
		"select-only@2x", "select-only@", "select-only@2147483648", "select-only@ 3", "select-only@3@4"} {
		out, _ := pgbench(t, "-n", "-t", "1", "-h", "/nonexistent", "-b", arg, "nodb")
		pgOK := strings.Contains(out, "connection to server") || strings.Contains(out, "total script weight must not be zero")
		name, _, err := ParseWeighted(arg)
		ok := err == nil
		if ok {
			_, err = Builtin(name)
			ok = err == nil
		}
		if ok != pgOK {
			t.Errorf("ParseWeighted(%q): %v; pgbench says %s", arg, err, out)
		}
	}
}

// psql runs a query with psql on the database of cfg and returns its
// unaligned output.
func psql(t *testing.T, cfg driver.Config, query string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-h", cfg.Hosts[0], "-p", strconv.Itoa(cfg.Ports[0]), "-U", cfg.User,
		"-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", query, cfg.Database)
	if cfg.Password != "" {
		cmd.Env = append(os.Environ(), "PGPASSWORD="+cfg.Password)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql -c %q: %v\n%s", query, err, out)
	}
	return string(out)
}

// TestSeedsAgainstPgbench checks that each client draws what pgbench's
// client of the same number draws under the same --random-seed, whatever the
// number of threads, and that :default_seed and :random_seed are pgbench's.
// pgbench's clients insert their values into a table (debug() lines of
// several threads can interleave).
func TestSeedsAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	cfg := testdb.PgSQL(t)
	text := "\\set n :n + 1\n" +
		"\\set r random(1, 1000000)\n" +
		"\\set e random_exponential(1, 1000, 2.5)\n" +
		"\\set g random_gaussian(-5, 5, 2.5)\n" +
		"INSERT INTO draws VALUES (:client_id, :n, :r, :e, :g, :default_seed, :random_seed);\n"
	file := writeFile(t, "seed.sql", text)
	s, err := Parse(file, text)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct{ clients, threads int }{{3, 1}, {4, 2}, {1, 1}, {5, 5}} {
		const tx = 3
		psql(t, cfg, "DROP TABLE IF EXISTS draws; CREATE TABLE draws (client int, n int, r bigint, e bigint, g bigint, ds bigint, rs bigint)")
		seed := uint64(20260000 + run.clients*10 + run.threads)
		pgbenchDB(t, cfg, "-t", strconv.Itoa(tx), "-c", strconv.Itoa(run.clients), "-j", strconv.Itoa(run.threads),
			"--random-seed="+strconv.FormatUint(seed, 10), "-D", "n=0", "-f", file)
		want := psql(t, cfg, "SELECT client, n, r, e, g, ds, rs FROM draws ORDER BY client, n")
		var got strings.Builder
		for id := 0; id < run.clients; id++ {
			c := NewClient(ClientConfig{ID: id, Clients: run.clients, Seed: seed, Scale: 1,
				Defines: map[string]Value{"n": TextValue("0")}, Scripts: []*Script{s}})
			for range tx {
				rec := &recorder{}
				if err := c.Run(context.Background(), s, rec); err != nil {
					t.Fatal(err)
				}
				got.WriteString(strings.ReplaceAll(strings.Trim(rec.args[0], "[]"), " ", "|") + "\n")
			}
		}
		if got.String() != want {
			t.Errorf("-c %d -j %d --random-seed=%d: clients draw\n%s\npgbench's\n%s", run.clients, run.threads, seed, got.String(), want)
		}
	}
}

// TestChooseAgainstPgbench checks the weighted choice of scripts, read from
// pgbench's per-transaction logs (one per thread): with one thread per
// client each client's sequence (Client.Choose), with one thread for several
// clients the thread's (NewChooser).
func TestChooseAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	text := "\\set x 1\n"
	a, b, z := writeFile(t, "a.sql", text), writeFile(t, "b.sql", text), writeFile(t, "z.sql", text)
	scripts := make([]*Script, 3)
	for i, w := range []int{1, 3, 0} {
		s, err := Parse("x.sql", text)
		if err != nil {
			t.Fatal(err)
		}
		s.Weight = w
		scripts[i] = s
	}
	const tx = 20
	db := testdb.PgSQL(t)
	for _, run := range []struct {
		clients, threads int
		defaultSeed      bool
	}{{2, 2, false}, {3, 3, true}, {3, 1, false}, {2, 1, true}, {5, 2, false}} {
		seed := uint64(77 + run.clients)
		logs := t.TempDir()
		args := []string{"-t", strconv.Itoa(tx), "-c", strconv.Itoa(run.clients), "-j", strconv.Itoa(run.threads),
			"--random-seed=" + strconv.FormatUint(seed, 10), "-l", "--log-prefix=" + filepath.Join(logs, "tx"),
			"-f", a + "@1", "-f", b + "@3", "-f", z + "@0"}
		cfg := ClientConfig{Clients: run.clients, Seed: seed, Scripts: scripts}
		if run.defaultSeed {
			args = append(args, "-D", "default_seed=5")
			cfg.Defines = map[string]Value{"default_seed": TextValue("5")}
		}
		pgbenchDB(t, db, args...)
		// Each log line: client_id transaction_no time script_no …; thread
		// N's log is PREFIX.PID.N, thread 0's PREFIX.PID.
		perClient := map[int][]int{}
		perThread := map[int][]int{}
		files, _ := filepath.Glob(filepath.Join(logs, "tx.*"))
		if len(files) != run.threads {
			t.Fatalf("%d pgbench logs, want %d", len(files), run.threads)
		}
		for _, f := range files {
			thread := 0
			if parts := strings.Split(filepath.Base(f), "."); len(parts) == 3 {
				thread, _ = strconv.Atoi(parts[2])
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				fields := strings.Fields(line)
				client, _ := strconv.Atoi(fields[0])
				script, _ := strconv.Atoi(fields[3])
				perClient[client] = append(perClient[client], script)
				perThread[thread] = append(perThread[thread], script)
			}
		}
		if run.threads == run.clients {
			for id := 0; id < run.clients; id++ {
				cfg.ID = id
				c := NewClient(cfg)
				var got []int
				for range tx {
					got = append(got, c.Choose())
				}
				if fmt.Sprint(got) != fmt.Sprint(perClient[id]) {
					t.Errorf("%+v client %d: Choose gives %v, pgbench chose %v", run, id, got, perClient[id])
				}
			}
			continue
		}
		for thread := 0; thread < run.threads; thread++ {
			ch := NewChooser(cfg, thread)
			var got []int
			for range perThread[thread] {
				got = append(got, ch.Choose())
			}
			if fmt.Sprint(got) != fmt.Sprint(perThread[thread]) {
				t.Errorf("%+v thread %d: Chooser gives %v, pgbench chose %v", run, thread, got, perThread[thread])
			}
		}
	}
}

// recorder is an Executor that keeps what it is given.
type recorder struct {
	args   []string
	sql    []string
	sleeps []time.Duration
	values []string
	rows   map[int]Row
}

func (r *recorder) SQL(_ context.Context, i int, cmd *Command, args []any) (Row, error) {
	r.sql = append(r.sql, cmd.SQL)
	r.args = append(r.args, fmt.Sprint(args))
	return r.rows[i], nil
}

func (r *recorder) Sleep(_ context.Context, d time.Duration) error {
	r.sleeps = append(r.sleeps, d)
	return nil
}

// ksReject reports whether the two-sample Kolmogorov–Smirnov test rejects
// that a and b come from one distribution at level alpha, and the statistic.
func ksReject(a, b []float64, alpha float64) (bool, float64) {
	a, b = append([]float64(nil), a...), append([]float64(nil), b...)
	sort.Float64s(a)
	sort.Float64s(b)
	d := 0.0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x := math.Min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	n, m := float64(len(a)), float64(len(b))
	crit := math.Sqrt(-math.Log(alpha/2)/2) * math.Sqrt((n+m)/(n*m))
	return d > crit, d
}

// TestDistributionsAgainstPgbench draws random_exponential, random_gaussian
// and random_zipfian 10 000 times with real pgbench and with a Client of
// another seed: the two-sample KS test must not reject at α = 0.001, and
// must reject the same draws against another parameter (the negative
// control, which shows the test can fail).
func TestDistributionsAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	const n = 10000
	exprs := []struct{ same, other string }{
		{"random_exponential(1, 1000, 2.5)", "random_exponential(1, 1000, 3.0)"},
		{"random_gaussian(1, 1000, 2.5)", "random_gaussian(1, 1000, 4.0)"},
		{"random_zipfian(1, 1000, 1.5)", "random_zipfian(1, 1000, 1.6)"},
	}
	var pgText, same, other strings.Builder
	for k, e := range exprs {
		fmt.Fprintf(&pgText, "\\set v%d debug(%s)\n", k, e.same)
		fmt.Fprintf(&same, "\\set v%d %s\n", k, e.same)
		fmt.Fprintf(&other, "\\set v%d %s\n", k, e.other)
	}
	out := pgbenchDB(t, testdb.PgSQL(t), "-t", strconv.Itoa(n), "--random-seed=11", "-f", writeFile(t, "dist.sql", pgText.String()))
	pg := make([][]float64, len(exprs))
	for _, v := range debugValues(out) {
		f, _ := strconv.ParseFloat(v.value, 64)
		pg[v.command-1] = append(pg[v.command-1], f)
	}
	draw := func(text string) [][]float64 {
		s, err := Parse("dist.sql", text)
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(ClientConfig{Clients: 1, Seed: 12345, Scripts: []*Script{s}})
		vals := make([][]float64, len(exprs))
		for range n {
			if err := c.Run(context.Background(), s, &recorder{}); err != nil {
				t.Fatal(err)
			}
			for k := range exprs {
				v, _ := c.Var(fmt.Sprintf("v%d", k))
				vals[k] = append(vals[k], float64(v.Typed.I))
			}
		}
		return vals
	}
	sameVals, otherVals := draw(same.String()), draw(other.String())
	for k, e := range exprs {
		if len(pg[k]) != n {
			t.Fatalf("pgbench printed %d values of %s, want %d", len(pg[k]), e.same, n)
		}
		if rej, d := ksReject(pg[k], sameVals[k], 0.001); rej {
			t.Errorf("%s: KS rejects fairbench's draws against pgbench's (D = %.4f)", e.same, d)
		}
		if rej, d := ksReject(pg[k], otherVals[k], 0.001); !rej {
			t.Errorf("negative control: KS does not reject %s against pgbench's %s (D = %.4f)", e.other, e.same, d)
		}
	}
}

// TestQuotedVariablesAgainstPgbench shows the pgbench behaviours behind two
// refusals: its default simple mode pastes a variable into a quoted string
// (a parameter cannot go there, so Check refuses it), and psql's :'x' reaches
// the server as written (so Parse refuses it).
func TestQuotedVariablesAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	cfg := testdb.PgSQL(t)
	quoted := "select ':x' as a \\gset\n\\set y debug(:a)\n"
	out := pgbenchDB(t, cfg, "-t", "1", "-D", "x=5", "-f", writeFile(t, "q.sql", quoted))
	if vs := debugValues(out); len(vs) != 1 || vs[0].value != "5" {
		t.Errorf("pgbench did not paste :x into the string: %s", out)
	}
	s, err := Parse("q.sql", quoted)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check([]*Script{s}, func(name string) bool { return name == "x" }); err == nil {
		t.Error("Check accepts a defined variable inside a quoted string")
	}
	file := writeFile(t, "p.sql", "select :'x';\n")
	all := []string{"-h", cfg.Hosts[0], "-p", strconv.Itoa(cfg.Ports[0]), "-U", cfg.User, "-n", "-t", "1", "-D", "x=5", "-f", file, cfg.Database}
	out, _ = pgbench(t, all...)
	if !strings.Contains(out, "syntax error at or near \":\"") {
		t.Errorf("pgbench did not send :'x' as written: %s", out)
	}
}

// TestIfAgainstPgbench runs an \if chain with nested conditions on random
// draws with pgbench and with a Client: the branches taken are the same.
func TestIfAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	text := "\\set r random(1, 10)\n" +
		"\\if :r < 3\n\\set b debug(1)\n" +
		"\\elif :r < 6\n  \\if :r = 4\n  \\set b debug(2)\n  \\else\n  \\set b debug(3)\n  \\endif\n" +
		"\\elif :r = 7\n\\set b debug(4)\n" +
		"\\else\n\\set b debug(5 + :r)\n\\endif\n" +
		"\\if :r > 5\n\\set c debug(100)\n\\endif\n"
	const tx = 60
	out := pgbenchDB(t, testdb.PgSQL(t), "-t", strconv.Itoa(tx), "--random-seed=9", "-f", writeFile(t, "if.sql", text))
	var want []string
	for _, v := range debugValues(out) {
		want = append(want, v.value)
	}
	s, err := Parse("if.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(ClientConfig{Clients: 1, Seed: 9, Scripts: []*Script{s}})
	var got []string
	for range tx {
		if err := c.Run(context.Background(), s, &recorder{}); err != nil {
			t.Fatal(err)
		}
		b, _ := c.Var("b")
		got = append(got, b.String())
		if r, _ := c.Var("r"); r.Typed.I > 5 {
			got = append(got, "100")
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("branches taken:\n%v\npgbench's:\n%v", got, want)
	}
}

// TestDefinesAgainstPgbench checks how an expression reads a -D value
// (NULL, boolean prefixes, integers, doubles, malformed) against pgbench.
func TestDefinesAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	cfg := testdb.PgSQL(t)
	file := writeFile(t, "d.sql", "\\set v debug(:x)\n")
	anyValue := regexp.MustCompile(`(?m)^debug\(script=0,command=1\): (.*)$`)
	for _, text := range []string{"5", " -7", "+3", "2.5", "1e3", "-0.125", "inf", "null", "NULL", "t", "ye", "on",
		"of", "off", "n", "FALSE", "abc", "o", "99999999999999999999", "0x10", "1.5x", "nan", "0x1.8", "-0X1p4", "0x"} {
		all := []string{"-h", cfg.Hosts[0], "-p", strconv.Itoa(cfg.Ports[0]), "-U", cfg.User, "-n", "-t", "1",
			"-D", "x=" + text, "-f", file, cfg.Database}
		out, _ := pgbench(t, all...)
		want := "malformed"
		if m := anyValue.FindStringSubmatch(out); m != nil {
			want = m[1]
		}
		got := "malformed"
		if v, ok := interpret(text); ok {
			got = v.String()
			if v.Kind == expr.Double {
				got = "double " + strconv.FormatFloat(v.F, 'g', 15, 64)
			}
		}
		if pv, err := strconv.ParseFloat(strings.TrimPrefix(want, "double "), 64); err == nil && strings.HasPrefix(want, "double ") {
			want = "double " + strconv.FormatFloat(pv, 'g', 15, 64)
		}
		if got != want {
			t.Errorf("-D x=%q: an expression reads %s, pgbench's %s (%s)", text, got, want, strings.TrimSpace(out))
		}
	}
}
