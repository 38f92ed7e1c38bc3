package cli

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/mycnf"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// sysbenchLines are sysbench command lines from public scripts (the word
// sysbench left out), as typed but for hosts, ports, credentials and shell
// variables, which are substituted (and a test script of the source's own,
// named in the note, replaced by the sysbench script it was made from).
// Each must resolve to the same command, workload and options as want,
// fairbench's own order; ignored lists the options it names as ignored.
var sysbenchLines = []struct {
	source  string
	line    string
	want    string
	ignored []string
}{
	{"mariadb-corporation/maxscale-performance-test tests/run_sysbench.sh",
		"--test=/usr/share/sysbench/oltp_read_write.lua --db-driver=mysql --mysql-db=test --mysql-user=root --mysql-password=pw --mysql-port=3306 --mysql-host=127.0.0.1 prepare",
		"prepare oltp_read_write --db-driver=mysql --mysql-db=test --mysql-user=root --mysql-password=pw --mysql-port=3306 --mysql-host=127.0.0.1", nil},
	{"mariadb-corporation/maxscale-performance-test tests/run_sysbench.sh",
		"--test=/usr/share/sysbench/oltp_read_write.lua --threads=8 --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=root --mysql-password=pw --db-driver=mysql --mysql-db=test --max-requests=0 --time=300 run",
		"run oltp_read_write --threads=8 --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=root --mysql-password=pw --db-driver=mysql --mysql-db=test --events=0 --time=300", nil},
	{"eubide/sandbox_mariadb sysbench_run.sh",
		"--db-driver=mysql --mysql-user=app --mysql_password=app --mysql-db=test --mysql-host=127.0.0.1 --mysql-port=3306 --tables=16 --table-size=10000 --threads=8 --time=0 --events=0 --report-interval=1 /usr/share/sysbench/oltp_read_write.lua run",
		"run oltp_read_write --db-driver=mysql --mysql-user=app --mysql-password=app --mysql-db=test --mysql-host=127.0.0.1 --mysql-port=3306 --tables=16 --table-size=10000 --threads=8 --time=0 --events=0 --report-interval=1", nil},
	{"danielfmhaw/Bachelorarbeit Latex/Arbeit/Scripts/Tools/02_process_sysbench.sh",
		"oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=4 --table-size=10000 prepare",
		"prepare oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=4 --table-size=10000", nil},
	{"danielfmhaw/Bachelorarbeit Latex/Arbeit/Scripts/Tools/02_process_sysbench.sh",
		"oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=4 --table-size=10000 --time=60 --threads=1 --report-interval=1 run",
		"run oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=4 --table-size=10000 --time=60 --threads=1 --report-interval=1", nil},
	{"danielfmhaw/Bachelorarbeit Latex/Arbeit/Scripts/Tools/02_process_sysbench.sh",
		"oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=4 --table-size=10000 cleanup",
		"cleanup oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=4 --table-size=10000", nil},
	{"a script adapted from jamescoyle.net's sysbench how-to ($ALL_OPTS before the test)",
		"--mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --events=0 --time=60 --table-size=1000000 oltp_read_write prepare",
		"prepare oltp_read_write --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --table-size=1000000",
		[]string{"events", "time"}},
	{"a script adapted from jamescoyle.net's sysbench how-to ($ALL_OPTS before the test)",
		"--mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --events=0 --time=60 --table-size=1000000 oltp_read_write prewarm",
		"warmup oltp_read_write --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --table-size=1000000",
		[]string{"events", "time"}},
	{"a script adapted from jamescoyle.net's sysbench how-to ($ALL_OPTS before the test)",
		"--mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --events=0 --time=60 --table-size=1000000 oltp_read_write run",
		"run oltp_read_write --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --events=0 --time=60 --table-size=1000000", nil},
	{"a script adapted from jamescoyle.net's sysbench how-to ($ALL_OPTS before the test)",
		"--mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --threads=6 --events=0 --time=60 --table-size=1000000 oltp_read_write cleanup",
		"cleanup oltp_read_write --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --table-size=1000000",
		[]string{"threads", "events", "time"}},
	{"a TiDB point-select script (options first, --table_size)",
		"--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-db=test --threads=1 --table_size=10000 --tables=10 oltp_point_select prepare",
		"prepare oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-db=test --threads=1 --table-size=10000 --tables=10", nil},
	{"a TiDB point-select script (options first, --table_size)",
		"--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-db=test --threads=4 --table_size=10000 --tables=10 --time=999999 oltp_point_select run",
		"run oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-db=test --threads=4 --table-size=10000 --tables=10 --time=999999", nil},
	{"a BaikalDB point-select script (Lua script by file name, underscore and dash spellings mixed)",
		"--auto-inc=off --skip_trx=on --create_secondary=true --db-ps-mode=disable --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=root --mysql-password=pw --mysql-storage-engine=innodb --table_size=100000 --tables=4 --report-interval=10 --events=0 --time=60 --threads=8 --rand-type=uniform oltp_point_select.lua run",
		"run oltp_point_select --auto-inc=off --skip-trx=on --create-secondary=true --db-ps-mode=disable --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=root --mysql-password=pw --mysql-storage-engine=innodb --table-size=100000 --tables=4 --report-interval=10 --events=0 --time=60 --threads=8 --rand-type=uniform", nil},
	{"in-han/sysbench run.sh (options after the command; its oltp_read_only_v2.lua replaced by oltp_read_only.lua)",
		"./src/lua/oltp_read_only.lua prepare --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=app --mysql-password= --mysql-db=sbtest --skip_trx=on --auto_inc=off --create_secondary=off --table_size=100 --db-ps-mode=disable",
		"prepare oltp_read_only --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=app --mysql-password= --mysql-db=sbtest --skip-trx=on --auto-inc=off --create-secondary=off --table-size=100 --db-ps-mode=disable", nil},
	{"in-han/sysbench run.sh (options after the command; its oltp_read_only_v2.lua replaced by oltp_read_only.lua)",
		"./src/lua/oltp_read_only.lua run --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=app --mysql-password= --mysql-db=sbtest --skip_trx=on --auto_inc=off --create_secondary=off --table_size=100 --db-ps-mode=disable",
		"run oltp_read_only --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=app --mysql-password= --mysql-db=sbtest --skip-trx=on --auto-inc=off --create-secondary=off --table-size=100 --db-ps-mode=disable", nil},
	{"thomount/qtune scripts/sysbench/prepare_postgresql.sh",
		"/web/dbmind-bg/AutoTuner/scripts/oltp_read_only.lua --db-driver=pgsql --pgsql-host=localhost --pgsql-port=5432 --pgsql-user=postgres --pgsql-password=pw --pgsql-db=sbtest --tables=2 --table-size=4000000 --report-interval=10 --threads=3 --time=60 prepare",
		"prepare oltp_read_only --db-driver=pgsql --pgsql-host=localhost --pgsql-port=5432 --pgsql-user=postgres --pgsql-password=pw --pgsql-db=sbtest --tables=2 --table-size=4000000 --threads=3",
		[]string{"report-interval", "time"}},
	{"yuhit/sysbench prepare.sh",
		"./lua/oltp_read_write.lua --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=postgres --pgsql-password=pw --pgsql-db=sbtest --tables=4 --table_size=10000 --threads=4 prepare",
		"prepare oltp_read_write --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=postgres --pgsql-password=pw --pgsql-db=sbtest --tables=4 --table-size=10000 --threads=4", nil},
	{"a PostgreSQL script with $COMMON_OPTIONS (zipfian, statement counts with underscores)",
		"/usr/local/share/sysbench/oltp_read_write.lua --db-driver=pgsql --pgsql-host=localhost --pgsql-port=5432 --pgsql-user=postgres --pgsql-db=sysbench --tables=1 --table-size=10000 --threads=8 --time=5 --range_selects=off --index_updates=0 --non_index_updates=8 --delete_inserts=0 --point_selects=8 --rand-type=zipfian --rand-zipfian-exp=0.8 run",
		"run oltp_read_write --db-driver=pgsql --pgsql-host=localhost --pgsql-port=5432 --pgsql-user=postgres --pgsql-db=sysbench --tables=1 --table-size=10000 --threads=8 --time=5 --range-selects=off --index-updates=0 --non-index-updates=8 --delete-inserts=0 --point-selects=8 --rand-type=zipfian --rand-zipfian-exp=0.8", nil},
	{"a remote-testing script (the Lua script by file name, no path)",
		"oltp_read_write.lua --threads=16 --events=0 --time=3 --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pass --mysql-port=3306 --tables=20 --delete_inserts=10 --index_updates=10 --non_index_updates=10 --table-size=10000 --db-ps-mode=disable --report-interval=3 run",
		"run oltp_read_write --threads=16 --events=0 --time=3 --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=pass --mysql-port=3306 --tables=20 --delete-inserts=10 --index-updates=10 --non-index-updates=10 --table-size=10000 --db-ps-mode=disable --report-interval=3", nil},
	{"a sysbench 1.1 PostgreSQL script (--warmup-time, --db-ps-mode twice)",
		"oltp_read_only --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=postgres --pgsql-password=pw --pgsql-db=sbtest --range-size=100 --events=0 --rand-type=uniform --tables=4 --table-size=100000 --db-ps-mode=disable --report-interval=1 --warmup-time=10 --threads=8 --time=60 --db-ps-mode=disable run",
		"run oltp_read_only --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=postgres --pgsql-password=pw --pgsql-db=sbtest --range-size=100 --events=0 --rand-type=uniform --tables=4 --table-size=100000 --db-ps-mode=disable --report-interval=1 --warmup-time=10 --threads=8 --time=60 --db-ps-mode=disable", nil},
	{"pingcap/tidb-bench sysbench/select.sh (sysbench 0.5 names; its select.lua replaced by oltp_read_only)",
		"--test=oltp_read_only --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --oltp-tables-count=16 --oltp-table-size=100000 --num-threads=64 --report-interval=10 --max-requests=0 --percentile=95 --max-time=300 run",
		"run oltp_read_only --mysql-host=127.0.0.1 --mysql-port=4000 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --tables=16 --table-size=100000 --threads=64 --report-interval=10 --events=0 --percentile=95 --time=300", nil},
	{"a sysbench 0.5 MaxScale script (its tests/db/oltp.lua replaced by oltp_read_write)",
		"--test=oltp_read_write --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --mysql-table-engine=innodb --mysql-ignore-errors=all --oltp-table-size=250000 --report-interval=1 --max-requests=0 --tx-rate=10 --num-threads=10 run",
		"run oltp_read_write --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=root --mysql-password=pw --mysql-db=sbtest --mysql-storage-engine=innodb --mysql-ignore-errors=all --table-size=250000 --report-interval=1 --events=0 --rate=10 --threads=10", nil},
	{"a benchmark script's $DBMS_OPTIONS (a socket, options on both sides of the test)",
		"--db-driver=mysql --mysql-db=test --mysql-port=3306 --mysql-socket=./install/mysql.sock --mysql-user=root --mysql-password=pw oltp_read_write --threads=1 --events=10000 --time=0 run",
		"run oltp_read_write --db-driver=mysql --mysql-db=test --mysql-port=3306 --mysql-socket=./install/mysql.sock --mysql-user=root --mysql-password=pw --threads=1 --events=10000 --time=0", nil},
	{"one option set for two drivers (a script that switches with --db-driver)",
		"oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --pgsql-host=127.0.0.1 --pgsql-db=sbtest --tables=2 --threads=4 --time=30 run",
		"run oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --pgsql-host=127.0.0.1 --pgsql-db=sbtest --tables=2 --threads=4 --time=30", nil},
	{"Lua boolean spellings and switches given alone",
		"oltp_read_write --skip-trx=yes --range_selects=0 --secondary --auto-inc=no --create-secondary=1 --mysql-ssl --mysql-host=127.0.0.1 run",
		"run oltp_read_write --skip-trx=on --range-selects=off --secondary=on --auto-inc=off --create-secondary=on --mysql-ssl=on --mysql-host=127.0.0.1", nil},
	{"sysbench options with no effect in fairbench, and --verbosity",
		"oltp_point_select --thread-stack-size=32K --verbosity=5 --validate=on --debug --mysql-host=127.0.0.1 --threads=2 run",
		"run oltp_point_select --mysql-host=127.0.0.1 --threads=2 --verbosity=5", nil},
	{"sysbench's --forced-shutdown in seconds (sysbench 1.0's --help)",
		"oltp_point_select --forced-shutdown=1 --time=30 --mysql-host=127.0.0.1 run",
		"run oltp_point_select --forced-shutdown=1 --time=30 --mysql-host=127.0.0.1", nil},
	{"sysbench's --forced-shutdown alone, right before the command: 5% of --time",
		"oltp_point_select --time=20 --mysql-host=127.0.0.1 --forced-shutdown run",
		"run oltp_point_select --time=20 --mysql-host=127.0.0.1 --forced-shutdown=5%", nil},
	{"a script's shared options with --forced-shutdown=off, given to prepare",
		"oltp_point_select --forced-shutdown=off --tables=2 --mysql-host=127.0.0.1 prepare",
		"prepare oltp_point_select --tables=2 --mysql-host=127.0.0.1", []string{"forced-shutdown"}},
	{"sysbench switches fairbench lacks, given as off",
		"oltp_read_write --mysql-compression=off --db-debug=off --histogram=off --mysql-dry-run=no --mysql-host=127.0.0.1 run",
		"run oltp_read_write --mysql-compression=off --db-debug=false --mysql-dry-run=no --mysql-host=127.0.0.1 --histogram=false", nil},
	{"akopytov/sysbench tests/t/opt_report_interval.t (a dry run: no server needed)",
		"/usr/share/sysbench/oltp_read_write.lua --db-driver=mysql --mysql-dry-run --time=3 --events=0 --report-interval=1 run",
		"run oltp_read_write --db-driver=mysql --mysql-dry-run=on --time=3 --events=0 --report-interval=1", nil},
	{"measuring the client's own cost with sysbench's dry run (sysbench 1.0 --help: --mysql-dry-run[=on|off])",
		"oltp_point_select --db-driver=mysql --mysql-dry-run=on --threads=4 --time=10 run",
		"run oltp_point_select --db-driver=mysql --mysql-dry-run=on --threads=4 --time=10", nil},
	{"sysbench's debugging and checkpoint options (sysbench 1.0 manual)",
		"oltp_point_select --db-debug --report-checkpoints=10,20 --time=30 --mysql-host=127.0.0.1 run",
		"run oltp_point_select --db-debug=true --report-checkpoints=10,20 --time=30 --mysql-host=127.0.0.1", nil},
	{"sysbench's report options (sysbench 1.0 manual)",
		"oltp_point_select --histogram --verbosity=0 --percentile=99 --mysql-host=127.0.0.1 run",
		"run oltp_point_select --histogram=true --verbosity=0 --percentile=99 --mysql-host=127.0.0.1", nil},
	{"sysbench's driver options: compression, a TLS 1.2 cipher, the default PostgreSQL variant",
		"oltp_read_write --mysql-compression=on --mysql-ssl=required --mysql-ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256 --pgsql-variant=pgsql --mysql-host=127.0.0.1 run",
		"run oltp_read_write --mysql-compression=on --mysql-ssl=required --mysql-ssl-cipher=ECDHE-RSA-AES128-GCM-SHA256 --mysql-host=127.0.0.1", nil},
}

// resolvedCommand is what a command line comes to: the command, the
// workload, every option's value and the options given.
type resolvedCommand struct {
	phase, workload string
	options         map[string]string
	given           []string
}

// resolve parses fairbench-order args with the workload command's own flags.
func resolve(t *testing.T, a *App, args []string) resolvedCommand {
	t.Helper()
	spec, err := a.Workloads.Lookup(args[1])
	if err != nil {
		t.Fatal(err)
	}
	fs := a.newInvocation(phase(args[0]), spec).command.Flags()
	if err := fs.Parse(args[2:]); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	r := resolvedCommand{phase: args[0], workload: args[1], options: resolvedOptions(fs)}
	fs.Visit(func(f *pflag.Flag) { r.given = append(r.given, f.Name) })
	slices.Sort(r.given)
	return r
}

// TestSysbenchLinesResolveAsModern checks that every line of sysbenchLines
// resolves, without running, to the workload and options of its modern form,
// and names as ignored exactly the options the table says.
func TestSysbenchLinesResolveAsModern(t *testing.T) {
	if len(sysbenchLines) < 20 {
		t.Fatalf("the table holds %d command lines, want at least 20", len(sysbenchLines))
	}
	for _, tc := range sysbenchLines {
		t.Run(tc.line, func(t *testing.T) {
			var errb strings.Builder
			a := &App{Stdout: &strings.Builder{}, Stderr: &errb, Workloads: DefaultWorkloads()}
			args, err := a.fromSysbench(a.rootCommand(), strings.Fields(tc.line))
			if err != nil {
				t.Fatalf("%s: refused: %v", tc.source, err)
			}
			got := resolve(t, a, args)
			want := resolve(t, a, strings.Fields(tc.want))
			if got.phase != want.phase || got.workload != want.workload {
				t.Fatalf("resolved to %s %s, want %s %s", got.phase, got.workload, want.phase, want.workload)
			}
			if !maps.Equal(got.options, want.options) {
				for k, v := range want.options {
					if got.options[k] != v {
						t.Errorf("--%s = %q, want %q", k, got.options[k], v)
					}
				}
			}
			if !slices.Equal(got.given, want.given) {
				t.Errorf("options given: %v, want %v", got.given, want.given)
			}
			var ignored []string
			for _, ig := range a.dropin.Ignored {
				ignored = append(ignored, ig.Name)
			}
			if !slices.Equal(ignored, tc.ignored) {
				t.Errorf("ignored %v, want %v", ignored, tc.ignored)
			}
			if note, _ := a.dropinIgnored(); (note != "") != (len(tc.ignored) > 0) {
				t.Errorf("ignored note %q with %d ignored options", note, len(tc.ignored))
			}
		})
	}
}

// TestSysbenchOrderRefusals checks the command lines the sysbench order
// refuses, each with a message that says what to write instead.
func TestSysbenchOrderRefusals(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"oltp_rw run", []string{`"oltp_rw" is neither a fairbench command nor a sysbench test`, "--test=TESTNAME", ".lua", "oltp_read_write"}},
		{"--threads=4 oltp_read_write", []string{"needs a command after the test", "prepare|run|cleanup"}},
		{"oltp_read_write start", []string{`unknown command "start"`}},
		{"oltp_read_write run extra", []string{`unexpected "extra"`}},
		{"--test=tests/db/oltp.lua --oltp-table-size=1000 prepare", []string{"sysbench 0.5's script", "oltp_read_write"}},
		{"fileio --file-test-mode=rndrw run", []string{"fileio test is not one fairbench runs"}},
		{"oltp_read_write --oltp-test-mode=complex run", []string{"unknown flag --oltp-test-mode"}},
		{"oltp_read_write --mysql-dry-run=maybe run", []string{"--mysql-dry-run=maybe: use on or off"}},
		{"tpcc --mysql-dry-run --warehouses=1 run", []string{"tpcc with --mysql-dry-run", "for the sysbench OLTP workloads"}},
		{"oltp_read_write --mysql-dry-run --server-vcpus=4 run", []string{"--server-vcpus describes the database server's machine, which a dry run"}},
		{"oltp_read_write --report-checkpoints=5,20 --time=10 run", []string{"--report-checkpoints: 20s is past --time=10"}},
		{"oltp_read_write --pgsql-variant=redshift run", []string{"--pgsql-variant", "no Redshift variant"}},
		{"oltp_read_write --mysql-ssl=required --mysql-ssl-cipher=TLS_AES_128_GCM_SHA256 run", []string{"a TLS 1.3 cipher suite, which cannot be chosen"}},
		{"oltp_read_write --mysql-ssl-cipher=DHE-RSA-AES256-SHA --mysql-ssl=on run", []string{"give one of AES128-GCM-SHA256"}},
		{"oltp_read_write --mysql-ssl-cipher=AES128-SHA run", []string{"--mysql-ssl-cipher needs TLS: add --mysql-ssl=required"}},
		{"oltp_read_write --mysql-compression=maybe run", []string{"--mysql-compression=maybe: use on or off"}},
		{"oltp_read_write --config-file=/nonexistent/sb.conf run", []string{"--config-file", "no such file"}},
		{"oltp_read_write --forced-shutdown=soon run", []string{"--forced-shutdown=soon", "a share of --time (5%)", "or off"}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			r := runCLI(context.Background(), nil, strings.Fields(tc.line)...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d\n%s", r.code, ExitUsage, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestSysbenchConfigFile checks sysbench's --config-file: its options apply,
// the command line's own win, and the note names the older names in it.
func TestSysbenchConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "sb.conf")
	if err := os.WriteFile(conf, []byte("# sysbench options\nmysql-host=127.0.0.1\nnum-threads=8\ntable_size=5000\n\nskip_trx=on\ntime=30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	a := &App{Stdout: &strings.Builder{}, Stderr: &errb, Workloads: DefaultWorkloads()}
	args, err := a.fromSysbench(a.rootCommand(), []string{"--config-file=" + conf, "--time=60", "oltp_read_write", "run"})
	if err != nil {
		t.Fatal(err)
	}
	got := resolve(t, a, args)
	want := resolve(t, a, strings.Fields("run oltp_read_write --mysql-host=127.0.0.1 --threads=8 --table-size=5000 --skip-trx=on --time=60"))
	if !maps.Equal(got.options, want.options) || !slices.Equal(got.given, want.given) {
		t.Fatalf("config file resolved to %v (given %v), want %v (given %v)", got.options, got.given, want.options, want.given)
	}
	if !strings.Contains(errb.String(), "--num-threads is now --threads") {
		t.Fatalf("no note of the older name:\n%s", errb.String())
	}
}

// TestSysbenchOrderRuns runs a sysbench script's prepare, run and cleanup as
// typed (with this machine's server substituted) on the embedded SQLite
// database and on MariaDB, and checks the run's result: the workload and
// options asked for, the options of other commands named as ignored in the
// options and the warnings, the command line as typed with the password
// hidden.
func TestSysbenchOrderRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs against the test servers")
	}
	sqlite := testdb.SQLite(t)
	my := testdb.MySQL(t)
	for name, target := range map[string][]string{
		"sqlite": {"--sqlite-db=" + sqlite.Path},
		"mysql": {"--db-driver=mysql", "--mysql-host=" + my.Hosts[0], "--mysql-port=" + strconv.Itoa(my.Ports[0]),
			"--mysql-user=" + my.User, "--mysql_password=" + my.Password, "--mysql-db=" + my.Database},
	} {
		t.Run(name, func(t *testing.T) {
			opts := join(target, strings.Fields("--tables=2 --table_size=300 --threads=2 --time=60 --events=50 --report-interval=1 --num-threads=2"))
			script := "/usr/share/sysbench/oltp_read_write.lua"
			r := runCLI(context.Background(), nil, join(opts, []string{script, "prepare"})...)
			if r.code != ExitOK || !strings.Contains(r.stderr, "prepare ignores --time=60 (run), --events=50 (run), --report-interval=1 (run)") {
				t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			run := []string{"--skip_trx=on", script, "run", "--percentile=99", "-o", out}
			if name == "mysql" {
				// Without transactions two threads may both delete an id and
				// then both insert it (sysbench's delete/insert pair): retry that.
				run = append([]string{"--mysql-ignore-errors=1062"}, run...)
			}
			r = runCLI(context.Background(), nil, join(opts, run)...)
			if r.code != ExitOK {
				t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "99th percentile:") || !strings.Contains(r.stderr, "--num-threads is now --threads") {
				t.Fatalf("run output lacks the 99th percentile or the note of --num-threads:\n%s%s", r.stdout, r.stderr)
			}
			res := readResult(t, out)
			if res.Workload != "oltp_read_write" || res.Status != result.StatusComplete || res.Totals.Counts.Events != 50 ||
				res.Threads != 2 || res.Options["skip-trx"] != "on" || res.Options["table-size"] != "300" {
				t.Fatalf("result: workload %s status %s events %d threads %d skip-trx %s table-size %s",
					res.Workload, res.Status, res.Totals.Counts.Events, res.Threads, res.Options["skip-trx"], res.Options["table-size"])
			}
			if strings.Contains(strings.Join(res.CommandLine, " "), my.Password+" ") && my.Password != "" {
				t.Fatalf("the password is in the command line: %q", res.CommandLine)
			}
			if res.CommandLine[len(res.CommandLine)-4] != "run" {
				t.Fatalf("command line not as typed: %q", res.CommandLine)
			}
			r = runCLI(context.Background(), nil, join(opts, []string{"--test=oltp_read_write", "cleanup"})...)
			if r.code != ExitOK || !strings.Contains(r.stdout, "sbtest2") || !strings.Contains(r.stderr, "cleanup ignores --threads=2 (prepare, run, warmup, check)") {
				t.Fatalf("cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestSysbenchIgnoredInResult checks that a run records the options it
// ignored, of another command and of another driver, in the result's
// options and, in one line, its warnings.
func TestSysbenchIgnoredInResult(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on the embedded database")
	}
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	var outb, errb syncbuf.Buffer
	a := &App{Stdout: &outb, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	code := a.Execute(context.Background(), []string{"--sqlite-db=" + cfg.Path, "--table-size=200", "--events=20",
		"--replace", "--pgsql-host=db1", "--db-driver=sqlite", "oltp_point_select", "run", "--output=" + out})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, outb.String(), errb.String())
	}
	res := readResult(t, out)
	if got, want := res.Options[OptionIgnored], "--replace (prepare), --pgsql-host (driver pgsql)"; got != want {
		t.Fatalf("options[%s] = %q, want %q", OptionIgnored, got, want)
	}
	var lines int
	for _, w := range res.Warnings {
		if strings.Contains(w, "--replace (prepare)") {
			lines++
		}
	}
	if lines != 1 {
		t.Fatalf("want one warning naming --replace, got %q", res.Warnings)
	}
}

// TestLocalhostUsesTheSocket checks that --mysql-host=localhost reaches the
// server through the Unix socket the client configuration names, as
// libmysqlclient does, and records the transport; an explicit port keeps
// TCP.
func TestLocalhostUsesTheSocket(t *testing.T) {
	if testing.Short() {
		t.Skip("runs against the test MariaDB")
	}
	sock, source, found := mycnf.Env{}.Socket()
	if !found {
		t.Skipf("no MySQL socket where the client configuration says (%q from %q)", sock, source)
	}
	my := testdb.MySQL(t)
	base := []string{"--db-driver=mysql", "--mysql-user=" + my.User, "--mysql-password=" + my.Password, "--mysql-db=" + my.Database,
		"--table-size=100", "--mysql-host=127.0.0.1"}
	if r := runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "prepare"})...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		name, transport, socket string
		extra                   []string
	}{
		{"localhost", result.TransportSocket, sock, []string{"--mysql-host=localhost"}},
		{"localhost with a port", result.TransportTCP, "", []string{"--mysql-host=localhost", "--mysql-port=" + strconv.Itoa(my.Ports[0])}},
		{"an address", result.TransportTCP, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := runCLI(context.Background(), nil, join(base, tc.extra, []string{"--events=10", "oltp_point_select", "run", "-o", out})...)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			res := readResult(t, out)
			if res.Target.Transport != tc.transport || res.Target.Socket != tc.socket {
				t.Fatalf("transport %q socket %q, want %q %q", res.Target.Transport, res.Target.Socket, tc.transport, tc.socket)
			}
		})
	}
}

// TestPercentileZeroIsOff checks sysbench's --percentile=0: no percentile
// computed or printed, the lines as sysbench prints them, the histogram kept.
func TestPercentileZeroIsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on the embedded database")
	}
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, "--sqlite-db="+cfg.Path, "--table-size=200", "--events=200", "--report-interval=1",
		"--percentile=0", "oltp_point_select", "run", "--output="+out)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "         percentile stats:               disabled\n") || !strings.Contains(r.stdout, "lat (ms,0%): 0.00 ") ||
		strings.Contains(r.stdout, "th percentile") {
		t.Fatalf("output not as sysbench's with --percentile=0:\n%s", r.stdout)
	}
	res := readResult(t, out)
	if len(res.Totals.Latency.Percentiles) != 0 || res.Totals.Latency.Histogram == nil {
		t.Fatalf("percentiles %v, histogram kept: %v", res.Totals.Latency.Percentiles, res.Totals.Latency.Histogram != nil)
	}
}
