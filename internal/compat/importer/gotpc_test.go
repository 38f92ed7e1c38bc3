package importer

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload/tpcc/txn"
)

func figure(r *result.Result, name string) (float64, bool) {
	for _, f := range r.Figures {
		if f.Name == name {
			return f.Value, true
		}
	}
	return 0, false
}

func kind(t *testing.T, r *result.Result, name string) result.KindPhase {
	t.Helper()
	for _, k := range r.Totals.Kinds {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no kind %s in %v", name, r.Kinds)
	return result.KindPhase{}
}

// The figures are copied from testdata/go-tpc-1.0.12-run-t2.log.
func TestGoTPCRoundTrip(t *testing.T) {
	r := importFiles(t, Options{Threads: []int{2}}, "go-tpc-1.0.12-run-t2.log")[0]
	if r.Tool.Name != "go-tpc" || r.Workload != "tpcc" || r.Threads != 2 || r.Status != result.StatusComplete {
		t.Errorf("tool %q workload %q threads %d status %s", r.Tool.Name, r.Workload, r.Threads, r.Status)
	}
	for _, f := range []struct {
		name, want, unit string
	}{{"tpmC", "24562.8", "transactions/min"}, {"tpmTotal", "54339.5", "transactions/min"}, {"efficiency", "191001.4", "%"}} {
		v, ok := figure(r, f.name)
		if !ok || f1(v) != f.want {
			t.Errorf("%s = %v (present %v), log says %s", f.name, v, ok, f.want)
		}
	}
	for _, f := range r.Figures {
		if f.Unit == "" {
			t.Errorf("figure %s has no unit", f.Name)
		}
	}
	if strings.Join(r.Kinds, ",") != strings.Join(txn.Kinds, ",") {
		t.Errorf("kinds %v, want fairbench's %v", r.Kinds, txn.Kinds)
	}
	// [Summary] lines: Count, Takes(s), Sum, Avg, percentiles, Max.
	summary := []struct {
		kind                string
		count               int64
		takes               float64
		sum, avg, p50, p99  string
		p999, max           string
		percentileKeyLength int
	}{
		{"new_order", 8183, 20.0, "21531.4", "2.6", "2.6", "7.3", "10.0", "16.8", 5},
		{"payment", 7721, 20.0, "11611.8", "1.5", "1.6", "4.2", "6.8", "13.6", 5},
		{"order_status", 730, 19.9, "608.9", "0.9", "1.0", "2.1", "3.1", "3.1", 5},
		{"delivery", 715, 20.0, "3944.6", "5.5", "5.2", "11.5", "13.6", "18.9", 5},
		{"stock_level", 753, 20.0, "1017.1", "1.3", "1.6", "3.1", "4.7", "8.9", 5},
	}
	var events int64
	for _, s := range summary {
		k := kind(t, r, s.kind)
		events += s.count
		if k.Events != s.count {
			t.Errorf("%s: %d events, log says %d", s.kind, k.Events, s.count)
		}
		if got, want := f1(k.TPS*60), f1(float64(s.count)/s.takes*60); got != want {
			t.Errorf("%s: tpm %s, want Count/Takes %s", s.kind, got, want)
		}
		l := k.Latency
		for _, c := range [][3]string{{"sum", f1(l.SumMs), s.sum}, {"avg", f1(l.AvgMs), s.avg}, {"p50", f1(l.Percentiles["50"]), s.p50},
			{"p99", f1(l.Percentiles["99"]), s.p99}, {"p99.9", f1(l.Percentiles["99.9"]), s.p999}, {"max", f1(l.MaxMs), s.max}} {
			if c[1] != c[2] {
				t.Errorf("%s %s = %s, log says %s", s.kind, c[0], c[1], c[2])
			}
		}
		if len(l.Percentiles) != s.percentileKeyLength {
			t.Errorf("%s percentiles %v", s.kind, l.Percentiles)
		}
		if len(k.Errors) != 0 {
			t.Errorf("%s errors %v: the log has no _ERR line", s.kind, k.Errors)
		}
	}
	tot := r.Totals
	if tot.Counts.Events != events || tot.Seconds != 20.0 || f2(tot.TPS) != f2(float64(events)/20) {
		t.Errorf("totals: %d events over %v s, tps %v", tot.Counts.Events, tot.Seconds, tot.TPS)
	}
	if f1(tot.Latency.MaxMs) != "18.9" || f2(tot.Latency.SumMs) != f2(21531.4+11611.8+608.9+3944.6+1017.1) {
		t.Errorf("total latency %+v", tot.Latency)
	}
	if tot.Counts.Queries != 0 || len(tot.Latency.Percentiles) != 0 || tot.Latency.Histogram != nil {
		t.Errorf("totals hold figures go-tpc does not print: %+v", tot)
	}
	// The one [Current] block, at 10 s.
	if len(r.Intervals) != 1 {
		t.Fatalf("%d intervals, log has 1", len(r.Intervals))
	}
	iv := r.Intervals[0]
	wantKinds := []int64{4014, 3785, 364, 368, 390} // fairbench's order: new_order, payment, order_status, delivery, stock_level
	for i, n := range wantKinds {
		if iv.KindEvents[i] != n {
			t.Errorf("interval %s: %d events, log says %d", r.Kinds[i], iv.KindEvents[i], n)
		}
	}
	if iv.At != 10 || iv.Seconds != 10 || iv.Counts.Events != 4014+3785+364+368+390 || iv.Threads != 2 || f1(iv.MaxMs) != "18.9" { // DELIVERY's Max
		t.Errorf("interval %+v", iv)
	}
	// Efficiency 191001.4% of 12.86 tpmC per warehouse: one warehouse.
	if r.Options["warehouses"] != "1" || r.Options[OptionImportedDerived] != "warehouses" {
		t.Errorf("warehouses %q (derived: %q), want 1 derived from the efficiency", r.Options["warehouses"], r.Options[OptionImportedDerived])
	}
	m := missing(r)
	for _, k := range []string{"start-end", "seed", "histogram", "min-latency", "total-percentiles", "queries", "rollbacks", "fairness", "tool-version"} {
		if !m[k] {
			t.Errorf("%s not listed as missing: %s", k, r.Options[OptionImportedMissing])
		}
	}
	if m["error-codes"] {
		t.Errorf("error-codes listed for a run without errors")
	}
}

func TestGoTPCIntervals(t *testing.T) {
	r := importFiles(t, Options{Threads: []int{8}}, "go-tpc-1.0.12-run-t8-interval5s.log")[0]
	if len(r.Intervals) != 2 {
		t.Fatalf("%d intervals, log has 2", len(r.Intervals))
	}
	want := [][]int64{{1679, 1711, 166, 152, 145}, {2535, 2353, 207, 208, 217}}
	for i, iv := range r.Intervals {
		if iv.At != float64(5*(i+1)) || iv.Seconds != 5 || iv.Threads != 8 {
			t.Errorf("interval %d at %v for %v s, %d threads", i, iv.At, iv.Seconds, iv.Threads)
		}
		for j, n := range want[i] {
			if iv.KindEvents[j] != n {
				t.Errorf("interval %d %s: %d, log says %d", i, r.Kinds[j], iv.KindEvents[j], n)
			}
		}
	}
	if v, _ := figure(r, "tpmC"); f1(v) != "24988.9" {
		t.Errorf("tpmC %v", v)
	}
	if kind(t, r, "new_order").Events != 4995 {
		t.Errorf("new_order %d", kind(t, r, "new_order").Events)
	}
}

func TestGoTPCErrors(t *testing.T) {
	r := importFiles(t, Options{Threads: []int{2}}, "go-tpc-1.0.12-run-errors.log")[0]
	// One STOCK_LEVEL_ERR, and the "execute run failed" line says Error 1317.
	if got := r.Totals.Counts.Errors; len(got) != 1 || got["1317"] != 1 {
		t.Errorf("errors %v, want {1317: 1}", got)
	}
	if got := kind(t, r, "stock_level").Errors; got["1317"] != 1 {
		t.Errorf("stock_level errors %v", got)
	}
	if kind(t, r, "stock_level").Events != 269 {
		t.Errorf("stock_level events %d: errors are not events", kind(t, r, "stock_level").Events)
	}
	if missing(r)["error-codes"] {
		t.Error("error-codes listed as missing although the log gives the code")
	}
	if r.Intervals[0].Counts.ErrorCount() != 1 {
		t.Errorf("interval errors %v", r.Intervals[0].Counts.Errors)
	}
}

func TestGoTPCInterrupted(t *testing.T) {
	r := importFiles(t, Options{Threads: []int{1}}, "go-tpc-1.0.12-run-sigint.log")[0]
	if r.Status != result.StatusInterrupted {
		t.Errorf("status %s: the log says \"Got signal [interrupt] to exit.\"", r.Status)
	}
	if v, _ := figure(r, "tpmC"); f1(v) != "8456.3" {
		t.Errorf("tpmC %v", v)
	}
}

// go-tpc 1.0.8 (seed 003, `tiup bench tpcc`): fewer percentiles, no Max, tpmC alone.
func TestGoTPCOldFormat(t *testing.T) {
	r := importFiles(t, Options{Threads: []int{150}}, "go-tpc-1.0.8-seed003.log")[0]
	if v, _ := figure(r, "tpmC"); f1(v) != "11673.2" {
		t.Errorf("tpmC %v", v)
	}
	// tpmTotal as go-tpc computes it: the sum of the transactions' TPM.
	if v, _ := figure(r, "tpmTotal"); f1(v) != f1(1022.6+11673.2+1013.5+11046.1+1064.5) {
		t.Errorf("tpmTotal %v", v)
	}
	if _, ok := figure(r, "efficiency"); ok {
		t.Error("efficiency without a warehouse count")
	}
	if got := r.Totals.Counts.Errors[ErrorCodeUnknown]; got != 8+52+1+78 {
		t.Errorf("errors %v", r.Totals.Counts.Errors)
	}
	no := kind(t, r, "new_order")
	if no.Events != 23288 || no.Errors[ErrorCodeUnknown] != 52 || no.Latency.Percentiles["99.9"] != 4000 || len(no.Latency.Percentiles) != 3 {
		t.Errorf("new_order %+v", no)
	}
	if m := missing(r); !m["max-latency"] || !m["error-codes"] {
		t.Errorf("missing %s", r.Options[OptionImportedMissing])
	}
	// With the warehouse count, efficiency is computed as go-tpc does.
	r = importFiles(t, Options{Threads: []int{150}, Settings: map[string]string{"warehouses": "10"}}, "go-tpc-1.0.8-seed003.log")[0]
	if v, ok := figure(r, "efficiency"); !ok || f1(v) != f1(11673.2/(12.86*10)*100) {
		t.Errorf("efficiency %v", v)
	}
	if d := r.Options[OptionImportedDerived]; d != "" {
		t.Errorf("imported-derived %q: the user gave the warehouse count", d)
	}
}

func TestGoTPCTiupCommand(t *testing.T) {
	echo := "Starting component `bench`: /root/.tiup/components/bench/v1.0.8/tiup-bench tpcc --warehouses 10 --host tidb.example -P 4000 -p s3cret --threads 150 --time 10m run\n"
	text := append([]byte(echo), fixture(t, "go-tpc-1.0.8-seed003.log")...)
	r := importText(t, text, "tiup.log", Options{})[0]
	if r.Threads != 150 || r.Tool.Version != "1.0.8" {
		t.Errorf("threads %d version %q from tiup's command line", r.Threads, r.Tool.Version)
	}
	for k, v := range map[string]string{"warehouses": "10", "time": "600", "host": "tidb.example", "port": "4000", "password": "***"} {
		if r.Options[k] != v {
			t.Errorf("option %s = %q, want %q", k, r.Options[k], v)
		}
	}
	if v, ok := figure(r, "efficiency"); !ok || f1(v) != "9077.1" {
		t.Errorf("efficiency %v", v)
	}
	cl := strings.Join(r.CommandLine, " ")
	if strings.Contains(cl, "s3cret") || !strings.Contains(cl, "-p ***") || !strings.HasSuffix(cl, "--time 10m run") {
		t.Errorf("command line %q", cl)
	}
}

func TestGoTPCThreadsPerRun(t *testing.T) {
	rs := importFiles(t, Options{Threads: []int{2, 1}}, "go-tpc-1.0.12-run-t2.log", "go-tpc-1.0.12-run-t1.log")
	if len(rs) != 2 || rs[0].Threads != 2 || rs[1].Threads != 1 {
		t.Fatalf("runs %v", toolNames(rs))
	}
	if v, _ := figure(rs[1], "tpmC"); f1(v) != "12706.0" {
		t.Errorf("second run tpmC %v", v)
	}
	if len(rs[1].Intervals) != 1 || rs[1].Intervals[0].At != 5 {
		t.Errorf("second run intervals %+v", rs[1].Intervals)
	}
	// Without a "Finished" or tpmC line between them, a new [Current] report
	// still begins a new run: a cut first run is an error.
	gt := string(fixture(t, "go-tpc-1.0.12-run-t2.log"))
	text := gt[:strings.Index(gt, "tpmC:")] + gt
	if _, err := Parse(strings.NewReader(text), "x.log", Options{Threads: []int{2}}); err == nil || !strings.Contains(err.Error(), "x.log:2:") {
		t.Errorf("error %v", err)
	}
}

func TestGoTPCKeepIncomplete(t *testing.T) {
	gt := string(fixture(t, "go-tpc-1.0.12-run-t2.log"))
	text := gt[:strings.Index(gt, "Finished")]
	rs, err := Parse(strings.NewReader(text), "x.log", Options{Threads: []int{2}, KeepIncomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.Status != result.StatusFailed || !strings.Contains(r.Error, "no [Summary]") || len(r.Intervals) != 1 || r.Totals.Counts.Events != 0 {
		t.Errorf("status %s error %q intervals %d events %d", r.Status, r.Error, len(r.Intervals), r.Totals.Counts.Events)
	}
}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		line   string
		ok     bool
		format Format
		action string
		test   string
		opts   map[string]string
		argv   string
	}{
		{line: "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)"},
		{line: "Creating table 'sbtest1'..."},
		{line: "+ sysbench /usr/share/sysbench/oltp_read_only.lua --threads=8 --mysql-password=pw run", ok: true,
			format: FormatSysbench, action: "run", test: "oltp_read_only",
			opts: map[string]string{"threads": "8", "mysql-password": "***"},
			argv: "sysbench /usr/share/sysbench/oltp_read_only.lua --threads=8 --mysql-password=*** run"},
		{line: "$ go-tpc tpcc -T4 -pPW --password=pw2 -D tpcc --warehouses=4 --ignore-error prepare > x.log", ok: true,
			format: FormatGoTPC, action: "prepare", test: "tpcc",
			opts: map[string]string{"threads": "4", "password": "***", "db": "tpcc", "warehouses": "4", "ignore-error": "on"},
			argv: "go-tpc tpcc -T4 -p*** --password=*** -D tpcc --warehouses=4 --ignore-error prepare"},
		{line: "tiup bench tpcc --threads 16 --interval 10s run", ok: true, format: FormatGoTPC, action: "run", test: "tpcc",
			opts: map[string]string{"threads": "16", "interval": "10"}, argv: "tiup bench tpcc --threads 16 --interval 10s run"},
		// sysbench's names as sysbench reads them: underscores, 0.5's names, --test (sysbenchcli.Canonical).
		{line: "$ sysbench --test=/usr/share/sysbench/oltp_read_write.lua --num-threads=8 --oltp_table_size=1000 --max-time=60 --tx-rate=50 --mysql_password secret --db-ps-mode=disable run", ok: true,
			format: FormatSysbench, action: "run", test: "oltp_read_write",
			opts: map[string]string{"threads": "8", "table-size": "1000", "time": "60", "rate": "50", "mysql-password": "***", "db-ps-mode": "disable"},
			argv: "sysbench --test=/usr/share/sysbench/oltp_read_write.lua --num-threads=8 --oltp_table_size=1000 --max-time=60 --tx-rate=50 --mysql_password *** --db-ps-mode=disable run"},
		// go-tpc's flags as go-tpc reads them (gotpccli.Read): clusters, durations, flags fairbench maps.
		{line: "+ go-tpc -H db1,db2 -P 4000 tpcc --time 2m --isolation 2 --conn-params tidb_x=1 -T 8 --weight 40,45,5,5,5 run", ok: true,
			format: FormatGoTPC, action: "run", test: "tpcc",
			opts: map[string]string{"host": "db1,db2", "port": "4000", "time": "120", "isolation": "2", "conn-params": "tidb_x=1", "threads": "8", "weight": "40,45,5,5,5"},
			argv: "go-tpc -H db1,db2 -P 4000 tpcc --time 2m --isolation 2 --conn-params tidb_x=1 -T 8 --weight 40,45,5,5,5 run"},
		{line: "$ go-tpc tpch --sf 10 -T 2 run", ok: true, format: FormatGoTPC, action: "run", test: "tpch",
			opts: map[string]string{"threads": "2"}, argv: "go-tpc tpch --sf 10 -T 2 run"},
		{line: "$ go-tpc tpcc --time 10 run"}, // not a line go-tpc runs: --time takes a duration
	}
	for _, c := range cases {
		cmd, ok := parseCommand(c.line)
		if ok != c.ok {
			t.Errorf("parseCommand(%q) ok = %v", c.line, ok)
			continue
		}
		if !ok {
			continue
		}
		if cmd.format != c.format || cmd.action != c.action || cmd.test != c.test || strings.Join(cmd.argv, " ") != c.argv {
			t.Errorf("parseCommand(%q) = %s %s %s %q", c.line, cmd.format, cmd.action, cmd.test, strings.Join(cmd.argv, " "))
		}
		for k, v := range c.opts {
			if cmd.options[k] != v {
				t.Errorf("parseCommand(%q) option %s = %q, want %q", c.line, k, cmd.options[k], v)
			}
		}
	}
}
