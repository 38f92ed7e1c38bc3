package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/testdb"
)

// TestRunTimeTakesADuration: --time and --warmup-time take a duration as
// plans do ("1500ms", "1s") beside plain seconds, and the result records
// them in seconds.
func TestRunTimeTakesADuration(t *testing.T) {
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=100",
		"--time=1500ms", "--warmup-time=0.5", "--output=" + out}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Options["time"] != "1.5" || res.Options["warmup-time"] != "0.5" {
		t.Fatalf("options time=%q warmup-time=%q, want 1.5 and 0.5", res.Options["time"], res.Options["warmup-time"])
	}
	if res.Totals.Seconds < 1.4 || res.Warmup == nil {
		t.Fatalf("measured %.3fs (want about 1.5), warm-up %v", res.Totals.Seconds, res.Warmup)
	}
}
