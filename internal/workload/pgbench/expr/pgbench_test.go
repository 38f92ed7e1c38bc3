package expr

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// pgbenchArgs are the variables every cross-check passes, matching testEnv.
var pgbenchArgs = []string{"-n", "-t", "1", "--random-seed=1",
	"-D", "default_seed=0", "-D", "x=5", "-D", "d=2.5", "-D", "b=true", "-D", "n=null"}

// runPgbench runs real pgbench on script against the database of cfg and
// returns its standard error.
func runPgbench(t *testing.T, cfg driver.Config, script string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatalf("pgbench is not installed: %v", err)
	}
	file := filepath.Join(t.TempDir(), "script.sql")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append([]string{"-h", cfg.Hosts[0], "-p", strconv.Itoa(cfg.Ports[0]), "-U", cfg.User}, pgbenchArgs...)
	args = append(args, "-f", file, cfg.Database)
	cmd := exec.CommandContext(ctx, bin, args...)
	if cfg.Password != "" {
		cmd.Env = append(os.Environ(), "PGPASSWORD="+cfg.Password)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // a failing expression makes pgbench exit non-zero; stderr tells
	return stderr.String()
}

var debugLine = regexp.MustCompile(`(?m)^debug\(script=0,command=(\d+)\): (.*)$`)

// pgbenchValue parses pgbench's debug() rendering of a value.
func pgbenchValue(s string) (Value, error) {
	kind, rest, _ := strings.Cut(s, " ")
	switch kind {
	case "null":
		return NullValue(), nil
	case "boolean":
		return BoolValue(rest == "true"), nil
	case "int":
		n, err := strconv.ParseInt(rest, 10, 64)
		return IntValue(n), err
	case "double":
		f, err := strconv.ParseFloat(rest, 64) // accepts Infinity and NaN
		return DoubleValue(f), err
	}
	return Value{}, fmt.Errorf("unknown pgbench value %q", s)
}

// closeTo compares a value with pgbench's, which prints doubles with 15
// significant digits.
func closeTo(got, pg Value) bool {
	if got.Kind == Double && pg.Kind == Double {
		if math.IsNaN(got.F) || math.IsNaN(pg.F) || math.IsInf(got.F, 0) || math.IsInf(pg.F, 0) || got.F == 0 {
			return same(got, pg)
		}
		return math.Abs(got.F-pg.F) <= 1e-14*math.Abs(got.F)
	}
	return got == pg
}

// TestAgainstPgbench evaluates evalCases and draws of every random function
// with real pgbench 15 (one \set debug(…) per expression, in one run) and
// compares each value with Eval's. Client 0's random generator under
// --random-seed=1 is NewPRNG(NewPRNG(1).Uint64()).
func TestAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	srcs := make([]string, 0, len(evalCases)+8)
	for _, c := range evalCases {
		srcs = append(srcs, c.src)
	}
	srcs = append(srcs,
		"random(1, 1000000000)", "random(-5, 5)", "random(0, 9223372036854775806)",
		"random_exponential(1, 1000, 2.5)", "random_exponential(1, 10, 0.001)",
		"random_gaussian(1, 1000, 2.5)", "random_gaussian(-100, 100, 5)",
		"random_zipfian(1, 1000, 1.5)", "random_zipfian(1, 1000000, 1.001)", "random_zipfian(1, 10, 1000)",
		"hash(:x)", "permute(:x, 1000)", "hash_fnv1a(9223372036854775807, -1)",
	)
	var script strings.Builder
	for _, s := range srcs {
		fmt.Fprintf(&script, "\\set v debug(%s)\n", s)
	}
	out := runPgbench(t, testdb.PgSQL(t), script.String())
	pg := map[int]string{}
	for _, m := range debugLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		pg[n] = m[2] // a nested debug() prints first; the command's own value is last
	}
	env := testEnv()
	env.Rand = NewPRNG(NewPRNG(1).Uint64())
	for k, src := range srcs {
		s, ok := pg[k+1]
		if !ok {
			t.Fatalf("pgbench printed no value for command %d (%s); its output:\n%s", k+1, src, out)
		}
		want, err := pgbenchValue(s)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		got, err := Eval(e, env)
		if err != nil {
			t.Errorf("%s: %v; pgbench says %s", src, err, s)
			continue
		}
		if !closeTo(got, want) {
			t.Errorf("%s = %v; pgbench says %s", src, got, s)
		}
	}
}

// TestErrorsAgainstPgbench checks that pgbench fails on every case of
// TestEvalErrors with the message Eval gives, and rejects every case of
// TestParseErrors while parsing.
func TestErrorsAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	cfg := testdb.PgSQL(t)
	for _, c := range evalErrorCases {
		out := runPgbench(t, cfg, fmt.Sprintf("\\set v %s\n", c.src))
		if !strings.Contains(out, "pgbench: error: "+c.want) {
			t.Errorf("%s: pgbench said %q, want %q", c.src, out, c.want)
		}
	}
	for _, c := range parseErrorCases {
		out := runPgbench(t, cfg, fmt.Sprintf("\\set v %s\n", c.src))
		if !strings.Contains(out, "error found here") {
			t.Errorf("%s: pgbench did not reject it while parsing: %q", c.src, out)
		}
	}
}
