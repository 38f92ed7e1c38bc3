package pgbenchcli

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// tokens are the pieces the differential test builds command lines of:
// options with good and bad values, alone and clustered, init-only and
// run-only, the logging family, words. None names a missing file (pgbench
// reads -f's file, Parse leaves it to the caller), an infinite or NaN
// number (fairbench refuses those) or thousands of clients (pgbench checks
// the open-file limit).
var tokens = []string{
	"-i", "-i", "-I dtgvp", "-I dtGvpf", "-I x", "-I ''", "-F 50", "-F 101", "-n", "-q", "--foreign-keys",
	"--unlogged-tables", "--partitions=3", "--partitions=0", "--partitions=-2", "--partition-method=hash",
	"--partition-method=list", "--tablespace=t", "--index-tablespace=t",
	"-c 4", "-c 0", "-c4x", "-j 2", "-j 0", "-T 10", "-T 6", "-T 0", "-t 100", "-t x", "-P 1", "-P 0",
	"--progress-timestamp", "-M prepared", "-M extended", "-M bad", "-S", "-N", "-Sn", "-SN", "-b tpcb",
	"-b simple@3", "-b sel@0", "-b s", "-b nope", "-b se@x", "-f a.sql", "-f b.sql@2", "-f x.sql@-1",
	"-D x=1", "-D 9=1", "-D x", "-R 100", "-R 0", "-R abc", "-R 10x", "-L 5", "-L 0", "-L -2", "-r", "-v", "-C",
	"-l", "--log-prefix=p", "--aggregate-interval=2", "--aggregate-interval=4", "--aggregate-interval=0",
	"--sampling-rate=0.5", "--sampling-rate=2", "--max-tries=0", "--max-tries=3", "--max-tries=-1",
	"--failures-detailed", "--verbose-errors", "--random-seed=7", "--random-seed=rand", "--random-seed=x",
	"-s 3", "-s 0", "-d", "-h h1", "-p 5433", "-p x", "-U u", "db", "db2", "-Z", "--bogus", "--pro=1",
	"--cl 2", "--conn", "-c", "--", "-- -x",
}

// randomLine joins 1 to 5 tokens; the last one may lack its value.
func randomLine(r *rand.Rand) []string {
	var args []string
	for range 1 + r.IntN(5) {
		tok := tokens[r.IntN(len(tokens))]
		for _, f := range strings.Fields(tok) {
			args = append(args, strings.ReplaceAll(f, "''", ""))
		}
	}
	return args
}

// TestRandomLinesAgainstPgbench builds command lines from tokens with a
// fixed seed and runs each through Parse and real pgbench 15: both accept
// it (pgbench up to connecting) or both refuse it, pgbench with Parse's
// message.
func TestRandomLinesAgainstPgbench(t *testing.T) {
	testdb.SkipShort(t, "pgbench")
	dir := scriptDir(t)
	r := rand.New(rand.NewPCG(34, 15))
	for range 150 {
		args := randomLine(r)
		c, err := Parse(args, nil)
		code, out := realPgbench(t, dir, args, nil)
		pgAccepted := code == 0 || strings.Contains(out, "could not create connection for") && !strings.Contains(out, "invalid port") && !strings.Contains(out, "invalid integer value")
		var e *Error
		switch {
		case err == nil && !pgAccepted:
			t.Errorf("%q: Parse accepts it (%s), pgbench refuses it:\n%s", args, c.Mode, out)
		case err != nil && pgAccepted:
			t.Errorf("%q: Parse refuses it (%v), pgbench accepts it:\n%s", args, err, out)
		case err != nil && (!errors.As(err, &e) || !strings.Contains(out, e.Msg)):
			t.Errorf("%q: Parse says %q, pgbench:\n%s", args, err, out)
		}
	}
}
