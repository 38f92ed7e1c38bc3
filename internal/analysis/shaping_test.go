package analysis

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/pgbench"
	"github.com/fairbench/fairbench/internal/workload/randgen"
	"github.com/fairbench/fairbench/internal/workload/tpcc"
)

// TestShapingOptionsAreTheWorkloadsFlags keeps shapingOptions in step with
// the workloads: every option listed for a workload is a flag it registers,
// with the default listed, and the distribution parameters' defaults are
// randgen's.
func TestShapingOptionsAreTheWorkloadsFlags(t *testing.T) {
	specs := map[string]workload.Spec{}
	for _, s := range slices.Concat(oltp.Specs(), tpcc.Specs(), pgbench.Specs()) {
		specs[s.Name] = s
	}
	rd := randgen.DefaultConfig()
	randDefaults := map[string]float64{
		"rand-zipfian-exp": rd.ZipfianExp, "rand-pareto-h": rd.ParetoH,
		"rand-spec-iter": float64(rd.SpecialIter), "rand-spec-pct": float64(rd.SpecialPct), "rand-spec-res": float64(rd.SpecialRes),
	}
	for _, o := range shapingOptions {
		if d, ok := randDefaults[o.name]; ok {
			if o.norm(o.def) != strconv.FormatFloat(d, 'f', -1, 64) {
				t.Errorf("%s: default %s, randgen's is %v", o.name, o.def, d)
			}
			continue
		}
		for _, w := range o.workloads {
			spec, ok := specs[w]
			if !ok {
				t.Errorf("%s: workload %s is not registered", o.name, w)
				continue
			}
			fs := pflag.NewFlagSet(w, pflag.ContinueOnError)
			spec.New(fs)
			f := fs.Lookup(o.name)
			if f == nil {
				t.Errorf("%s: %s registers no such flag", o.name, w)
				continue
			}
			if got := o.norm(f.DefValue); got != o.norm(o.def) {
				t.Errorf("%s of %s: the flag's default is %q, shapingOptions says %q", o.name, w, f.DefValue, o.def)
			}
		}
	}
}

func TestShapeOf(t *testing.T) {
	imported := map[string]string{"imported-format": "sysbench"}
	for _, tc := range []struct {
		name string
		run  fakeRun
		rate float64
		want string
	}{
		{"defaults", fakeRun{}, 0, ""},
		{"spellings of the defaults", fakeRun{opts: map[string]string{"rate": "0.0", "skip-trx": "false", "range-selects": "true", "db-ps-mode": "auto"}}, 0, ""},
		{"open loop", fakeRun{opts: map[string]string{"rate": "5000"}}, 0, "rate=5000"},
		{"rate field alone", fakeRun{}, 5000, "rate=5000"},
		{"query shape", fakeRun{opts: map[string]string{"point-selects": "1", "skip-trx": "on", "db-ps-mode": "disable"}}, 0, "db-ps-mode=disable point-selects=1 skip-trx=on"},
		{"option of another workload", fakeRun{workload: "oltp_point_select", opts: map[string]string{"point-selects": "1", "index-updates": "5"}}, 0, ""},
		{"zipfian exponent", fakeRun{randType: "zipfian", opts: map[string]string{"rand-zipfian-exp": "1.2", "rand-pareto-h": "0.5"}}, 0, "rand-zipfian-exp=1.2"},
		{"tpcc", fakeRun{workload: "tpcc", warehouses: 10, opts: map[string]string{"wait": "true", "mix": "45/43/4/4/4"}}, 0, "wait=on"},
		{"tpcc mix", fakeRun{workload: "tpcc", warehouses: 10, opts: map[string]string{"mix": "100,0,0,0,0"}}, 0, "mix=100:0:0:0:0"},
		{"cosmetic options do not count", fakeRun{opts: map[string]string{"report-interval": "1", "percentile": "99", "time": "300", "rand-seed": "7", "client-id": "1"}}, 0, ""},
		{"import with its command line", fakeRun{opts: imported, commandLine: []string{"sysbench", "oltp_read_write", "run"}}, 0, ""},
		{"import without it", fakeRun{opts: imported}, 0, UnknownOptions},
		{"import without it, every option given or logged", fakeRun{opts: map[string]string{"imported-format": "sysbench", "rate": "100", "point-selects": "10",
			"range-selects": "on", "simple-ranges": "1", "sum-ranges": "1", "order-ranges": "1", "distinct-ranges": "1", "range-size": "100",
			"index-updates": "1", "non-index-updates": "1", "delete-inserts": "1", "skip-trx": "off"}}, 0, "rate=100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.run.build()
			res.Rate = tc.rate
			if got := shapeOf(res, res.Options["rand-type"]); got != tc.want {
				t.Errorf("shapeOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTransportShapes: a run over a Unix socket is not in the row of one
// over TCP (schema 1.5's target.transport; older results derive it from
// their socket and hosts), and TCP, the usual way, is left unsaid.
func TestTransportShapes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target result.Target
		want   string
	}{
		{"socket", result.Target{Driver: "mysql", Hosts: []string{"localhost"}, Socket: "/run/mysqld/mysqld.sock", Transport: "socket"}, "transport=socket"},
		{"tcp", result.Target{Driver: "mysql", Hosts: []string{"localhost"}, Transport: "tcp"}, ""},
		{"older result with a socket", result.Target{Driver: "mysql", Socket: "/tmp/mysql.sock"}, "transport=socket"},
		{"older result over TCP", result.Target{Driver: "pgsql", Hosts: []string{"db1"}}, ""},
		{"sqlite", result.Target{Driver: "sqlite", Path: "x.db"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := fakeRun{}.build()
			res.Target = tc.target
			if got := shapeOf(res, res.Options["rand-type"]); got != tc.want {
				t.Errorf("shapeOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRunOptionsAreNotPooled: one system's runs with and without --rate are
// two rows, never rounds of one.
func TestRunOptionsAreNotPooled(t *testing.T) {
	x86 := mustSystem(t, "x86",
		fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000},
		fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 400, opts: map[string]string{"rate": "400"}})
	c, err := Compare([]*System{x86}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (closed loop and --rate 400): %+v", len(c.Rows), c.Rows)
	}
	for _, r := range c.Rows {
		if n := r.Cells[0].Stats.N; n != 1 {
			t.Errorf("row %s pools %d runs, want 1", r.Key, n)
		}
	}
	if got := c.Rows[1].Key.Options; got != "rate=400" {
		t.Errorf("second row's options %q, want rate=400", got)
	}
}

// TestRunOptionsDifferLikeADataSet: systems that ran the same workload and
// data set with different shaping options are refused naming the option and
// both values; --allow-mixed marks the rows.
func TestRunOptionsDifferLikeADataSet(t *testing.T) {
	x86 := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000})
	arm := mustSystem(t, "arm", fakeRun{machine: armMachine, server: mysql8, threads: 8, tps: 420, opts: map[string]string{"rate": "5000"}})
	_, err := Compare([]*System{x86, arm}, CompareOptions{})
	var mix *MixError
	if !errors.As(err, &mix) {
		t.Fatalf("err = %v, want a MixError", err)
	}
	for _, want := range []string{"options: x86 rate=0, arm rate=5000", "--allow-mixed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	c, err := Compare([]*System{x86, arm}, CompareOptions{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || MixedString(c.Rows[0].Mixed) != "options: x86 rate=0, arm rate=5000" {
		t.Errorf("rows %+v, want one row mixed on options", c.Rows)
	}
}

// TestImportsMatchNativeRunsWhenTheySayTheirOptions: an import that echoed
// its command line ran the defaults it did not set and shares rows with
// fairbench's runs; one without it does not say, and is refused.
func TestImportsMatchNativeRunsWhenTheySayTheirOptions(t *testing.T) {
	native := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000})
	withCmd := mustSystem(t, "arm", fakeRun{machine: armMachine, server: mysql8, threads: 8, tps: 900,
		opts: map[string]string{"imported-format": "sysbench"}, commandLine: []string{"sysbench", "oltp_read_write", "--tables=4", "--table-size=100000", "run"}})
	c, err := Compare([]*System{native, withCmd}, CompareOptions{})
	if err != nil {
		t.Fatalf("an import with its command line: %v", err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Cells[1].Stats.N != 1 || len(c.Rows[0].Mixed) > 0 {
		t.Errorf("rows %+v, want one unmixed row with both systems", c.Rows)
	}
	bare := mustSystem(t, "arm", fakeRun{machine: armMachine, server: mysql8, threads: 8, tps: 900,
		opts: map[string]string{"imported-format": "sysbench", "db-ps-mode": "auto"}})
	_, err = Compare([]*System{native, bare}, CompareOptions{})
	if err == nil || !strings.Contains(err.Error(), "others unknown") || !strings.Contains(err.Error(), "import --set") {
		t.Errorf("an import without its command line: err = %v, want a refusal saying its options are unknown", err)
	}
}

func TestDataLabelOfCountsNotSaid(t *testing.T) {
	imported := map[string]string{"imported-format": "sysbench"}
	for _, tc := range []struct {
		name string
		res  *result.Result
		want string
	}{
		{"native", &result.Result{Options: map[string]string{"tables": "4", "table-size": "1000"}}, "4x1000"},
		{"native without tables", &result.Result{Options: map[string]string{"table-size": "1000"}}, "1x1000"},
		{"import without command line", &result.Result{Options: merge(imported, map[string]string{"table-size": "1000"})}, "?x1000"},
		{"import without command line, size unsaid", &result.Result{Options: merge(imported, map[string]string{"tables": "8"})}, "8x?"},
		{"import with command line", &result.Result{Options: merge(imported, map[string]string{"table-size": "1000"}), CommandLine: []string{"sysbench", "run"}}, "1x1000"},
		{"neither", &result.Result{Options: imported}, ""},
		{"tpcc", &result.Result{Options: map[string]string{"warehouses": "10"}}, "w10"},
	} {
		if got := dataLabel(tc.res); got != tc.want {
			t.Errorf("%s: dataLabel = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestSelectorChoosesRowsByOption: a row label with an option ("rate=5000")
// or all of a row's options chooses the rows that ran them.
func TestSelectorChoosesRowsByOption(t *testing.T) {
	k := Key{Workload: "oltp_read_write", RandType: "uniform", Data: "4x100000", Options: "rate=5000 skip-trx=on", Threads: 8}
	for _, tc := range []struct {
		label string
		want  bool
	}{
		{"oltp_read_write/rate=5000", true},
		{"oltp_read_write/skip-trx=on/uniform", true},
		{"oltp_read_write (uniform, 4x100000, rate=5000 skip-trx=on)", true},
		{"oltp_read_write/rate=5000 skip-trx=on/skip-trx=on", false},
		{"oltp_read_write/rate=400", false},
		{"oltp_read_write/4x100000", true},
	} {
		sel, err := ParseSelector(tc.label)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.Matches(k); got != tc.want {
			t.Errorf("%q matches %s: %v, want %v", tc.label, k, got, tc.want)
		}
	}
}

// TestSystemRunningSeveralOptionsCannotBeMixed: --allow-mixed cannot pair a
// system that ran two option sets with one that ran a third, and says so.
func TestSystemRunningSeveralOptionsCannotBeMixed(t *testing.T) {
	x86 := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000},
		fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 500, opts: map[string]string{"rate": "500"}})
	arm := mustSystem(t, "arm", fakeRun{machine: armMachine, server: mysql8, threads: 8, tps: 400, opts: map[string]string{"rate": "400"}})
	_, err := Compare([]*System{x86, arm}, CompareOptions{AllowMixed: true})
	if err == nil || !strings.Contains(err.Error(), "x86 ran options rate=0, rate=500") {
		t.Errorf("err = %v, want a refusal naming x86's two option sets", err)
	}
}

// TestRoundsWithoutTheMetricAreTold: a round that lacks the metric (p99 not
// recorded) is left out of its cell with a note, not silently.
func TestRoundsWithoutTheMetricAreTold(t *testing.T) {
	x86 := mustSystem(t, "x86", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000, p95: 2, p99: 3},
		fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000})
	c, err := Compare([]*System{x86}, CompareOptions{Metric: LatencyMetric("99")})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Rows[0].Cells[0].Stats.N; n != 1 {
		t.Errorf("%d rounds, want 1", n)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "left out of the rounds for having no p99: x86: 1 run(s) of oltp_read_write/uniform/4x100000/t8") {
		t.Errorf("notes %q do not tell the round left out", c.Notes)
	}
}

// TestSessionShapes: the isolation level (read back, else as asked), the
// session variables, protocol compression and the TLS cipher list are part
// of what a run measured; spellings of one value match, and a result that
// does not record them (older ones) reads as the defaults, left unsaid.
func TestSessionShapes(t *testing.T) {
	mysqlAt := func(mod func(*result.Target)) result.Target {
		tg := result.Target{Driver: "mysql", Hosts: []string{"127.0.0.1"}, Transport: "tcp"}
		mod(&tg)
		return tg
	}
	for _, tc := range []struct {
		name   string
		target result.Target
		opts   map[string]string
		want   string
	}{
		{"older result", mysqlAt(func(*result.Target) {}), nil, ""},
		{"isolation read back", mysqlAt(func(t *result.Target) { t.Session = &result.Session{Isolation: "READ-COMMITTED"} }), nil, "isolation=read-committed"},
		{"postgres spelling", mysqlAt(func(t *result.Target) { t.Session = &result.Session{Isolation: "read committed"} }), nil, "isolation=read-committed"},
		{"asked, not read back", mysqlAt(func(t *result.Target) { t.Session = &result.Session{Notes: []string{"no"}} }), map[string]string{"isolation-level": "serializable"}, "isolation=serializable"},
		{"session variables", mysqlAt(func(t *result.Target) {
			t.Session = &result.Session{Variables: map[string]string{"sql_mode": "", "innodb_lock_wait_timeout": "10", "x": "a b"}}
		}), nil, "var:innodb_lock_wait_timeout=10 var:sql_mode='' var:x=a_b"},
		{"compression", mysqlAt(func(t *result.Target) { t.Compression = true }), nil, "compression=on"},
		{"cipher list", mysqlAt(func(t *result.Target) {
			t.SSLCipher = "ecdhe-rsa-aes256-gcm-sha384:ECDHE-RSA-AES128-GCM-SHA256"
		}), nil, "ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := fakeRun{opts: tc.opts}.build()
			res.Target = tc.target
			if got := shapeOf(res, res.Options["rand-type"]); got != tc.want {
				t.Errorf("shapeOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSessionDifferencesAreNotPooledNorCompared: one system's runs at two
// isolation levels are two rows, and two systems that differ in compression
// are refused, naming it with both values.
func TestSessionDifferencesAreNotPooledNorCompared(t *testing.T) {
	at := func(mod func(*result.Target)) *result.Target {
		tg := fakeRun{}.build().Target
		mod(&tg)
		return &tg
	}
	rc := at(func(t *result.Target) { t.Session = &result.Session{Isolation: "READ-COMMITTED"} })
	x86 := mustSystem(t, "x86",
		fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000},
		fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1100, target: rc})
	c, err := Compare([]*System{x86}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (the server's isolation and read-committed): %+v", len(c.Rows), c.Rows)
	}
	plain := mustSystem(t, "plain", fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 1000})
	comp := mustSystem(t, "zlib", fakeRun{machine: armMachine, server: mysql8, threads: 8, tps: 900,
		target: at(func(t *result.Target) { t.Compression = true })})
	_, err = Compare([]*System{plain, comp}, CompareOptions{})
	var mix *MixError
	if !errors.As(err, &mix) || !strings.Contains(err.Error(), "options: plain compression=off, zlib compression=on") {
		t.Fatalf("err = %v, want a MixError naming compression", err)
	}
}

// TestDifferentScriptsAreRefused: results of a scripted workload whose
// scripts differ (text, weight) never share a row; the same scripts do.
func TestDifferentScriptsAreRefused(t *testing.T) {
	script := func(text string, weight int) []result.Script {
		return []result.Script{{Name: "mine.sql", Weight: weight, SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(text))), Text: text}}
	}
	run := func(m result.Machine, tps float64, s []result.Script) fakeRun {
		return fakeRun{machine: m, server: mysql8, workload: "pgbench", threads: 8, tps: tps, scripts: s}
	}
	same := script("SELECT 1;\n", 1)
	x86 := mustSystem(t, "x86", run(x86Machine, 1000, same))
	arm := mustSystem(t, "arm", run(armMachine, 900, same))
	c, err := Compare([]*System{x86, arm}, CompareOptions{})
	if err != nil {
		t.Fatalf("the same scripts: %v", err)
	}
	if len(c.Rows) != 1 || !strings.Contains(c.Rows[0].Key.Options, "scripts=mine.sql@1#") {
		t.Fatalf("rows %+v, want one keyed by the scripts", c.Rows)
	}
	for name, other := range map[string][]result.Script{
		"text":   script("SELECT 2;\n", 1),
		"weight": script("SELECT 1;\n", 3),
	} {
		arm := mustSystem(t, "arm", run(armMachine, 900, other))
		_, err := Compare([]*System{x86, arm}, CompareOptions{})
		var mix *MixError
		if !errors.As(err, &mix) || !strings.Contains(err.Error(), "scripts=") {
			t.Errorf("%s differs: err = %v, want a MixError naming the scripts", name, err)
		}
	}
}
