package gotpccli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// extra stands for fairbench's own options of the tpcc commands.
func extra() *pflag.FlagSet {
	fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
	fs.Float64("warmup-time", 0, "")
	fs.String("mysql-host", "localhost", "")
	fs.String("sqlite-db", "", "")
	fs.Bool("interval-histograms", false, "")
	fs.String("threads", "1", "") // also go-tpc's: go-tpc's wins
	return fs
}

func TestClaims(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"tpcc run", true},
		{"tpcc --warehouses 4 prepare", true},
		{"-H db1 -P 4000 -D tpcc tpcc run", true},
		{"-T4 tpcc run", true},
		{"--time=10m tpcc run", true},
		{"--dropdata tpcc prepare", true},
		{"run tpcc", false},
		{"-H tpcc run", false}, // tpcc is -H's value
		{"--help", false},
		{"", false},
		{"-- tpcc run", true},
	} {
		if got := Claims(strings.Fields(c.args)); got != c.want {
			t.Errorf("Claims(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

func TestTranslate(t *testing.T) {
	for _, c := range []struct {
		args, want string
		notes      []string // each a part of one note
	}{
		{"tpcc run", "run tpcc --report-interval=10 --output-style=go-tpc",
			[]string{"embedded SQLite database (go-tpc would connect to 127.0.0.1:4000, database test", "time 10s (go-tpc: until interrupted"}},
		{"tpcc -H db1 run --time 10m", "run tpcc --db-driver=mysql --mysql-host=db1 --time=10m0s --report-interval=10 --output-style=go-tpc",
			[]string{"go-tpc's defaults differ and fairbench's apply: port 3306 (go-tpc: 4000), user sbtest (go-tpc: root), database sbtest (go-tpc: test)"}},
		{"tpcc -d postgres -H db1 -P 5433 -U u -D d cleanup", "cleanup tpcc --db-driver=pgsql --pgsql-host=db1 --pgsql-port=5433 --pgsql-user=u --pgsql-db=d", nil},
		{"tpcc --weight 10,10,10,10,60 --count 5000 --summary --ignore-error --output table -o r.json --warmup-time 30 run",
			"run tpcc --events=5000 --report-interval=0 --sqlite-ignore-errors=all --mix=10,10,10,10,60 --output-style=go-tpc-table --output=r.json --warmup-time=30",
			[]string{"embedded SQLite database"}},
		{"tpcc --weight 45 --weight 43 --weight 4 --weight 4 --weight 4 --interval 2500ms --mysql-host=db2 run",
			"run tpcc --report-interval=2.5 --mix=45,43,4,4,4 --output-style=go-tpc --mysql-host=db2", []string{"apply: time 10s"}},
		{"tpcc -T 8 --time 102400h --interval 5s --dropdata --check-all prepare", "prepare tpcc --threads=8 --replace=true",
			[]string{"--time, --interval, --check-all given: no effect on prepare, as in go-tpc"}},
		{"tpcc -T 8 --check-all -t 4 check", "check tpcc --threads=8 --check-all=true",
			[]string{"--acThreads given: no effect on check, as in go-tpc (--acThreads: OLAP threads of CH-benCHmark"}},
		{"tpcc -H a -p s3cret --conn-params tls=skip-verify --isolation 0 --partition-type 1 --parts 2 prepare --no-check true",
			"prepare tpcc --db-driver=mysql --mysql-host=a --mysql-password=s3cret --mysql-ssl=required --parts=2 --no-check=true",
			[]string{`the words "true" after prepare are ignored`}},
		{"tpcc -H h --isolation 2 --conn-params tidb_isolation_read_engines=%27tikv,tiflash%27&sql_mode=STRICT_ALL_TABLES&interpolateParams=true run",
			"run tpcc --db-driver=mysql --mysql-host=h --db-ps-mode=disable --session-var=tidb_isolation_read_engines='tikv,tiflash' --session-var=sql_mode=STRICT_ALL_TABLES --isolation-level=read-committed --report-interval=10 --output-style=go-tpc",
			[]string{"apply: time 10s"}},
		{"tpcc -d postgres -H h --isolation 6 --conn-params sslmode=require&options=-c%20work_mem%3D64MB%20-cstatement_timeout=0&search_path=public check",
			"check tpcc --db-driver=pgsql --pgsql-host=h --pgsql-ssl=required --session-var=work_mem=64MB --session-var=statement_timeout=0 --session-var=search_path=public --isolation-level=serializable",
			[]string{"apply: port 5432"}},
		{"tpcc --isolation 4 --mysql-host=db2 prepare", "prepare tpcc --isolation-level=repeatable-read --mysql-host=db2", nil},
	} {
		tr, err := Translate(strings.Fields(c.args), extra())
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if got := strings.Join(tr.Args, " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.args, got, c.want)
		}
		for _, n := range c.notes {
			if !slices.ContainsFunc(tr.Notes, func(s string) bool { return strings.Contains(s, n) }) {
				t.Errorf("%s: no note with %q in %q", c.args, n, tr.Notes)
			}
		}
		if c.notes == nil && len(tr.Notes) > 0 {
			t.Errorf("%s: unexpected notes %q", c.args, tr.Notes)
		}
	}
}

// TestRefusals: each go-tpc option fairbench cannot honour is refused with
// the reason, never accepted and ignored.
func TestRefusals(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"tpcc --isolation 5 run", "--isolation 5 (snapshot): neither MySQL nor PostgreSQL has this level"},
		{"tpcc --isolation 3 run", "--isolation 3 (write committed)"},
		{"tpcc --isolation 9 run", "go-tpc's levels are 0 (the server's default) to 7"},
		{"tpcc -H h --conn-params charset=utf8mb4 run", "charset=utf8mb4: a parameter of go-tpc's database driver"},
		{"tpcc -d postgres -H h --conn-params connect_timeout=5 run", "connect_timeout=5: a parameter of go-tpc's database driver"},
		{"tpcc -H h --conn-params a;b=1 run", `session variable name "a;b"`},
		{"tpcc -H h --conn-params novalue run", `"novalue" is not NAME=VALUE`},
		{"tpcc -d postgres -H h --conn-params options=-x run", "only -c NAME=VALUE settings"},
		{"tpcc -d postgres --conn-params sslmode=bogus run", "sslmode=bogus: give one of"},
		{"tpcc --max-procs 4 run", "--max-procs: fairbench does not cap"},
		{"tpcc --pprof :6060 run", "--pprof: fairbench serves no pprof endpoint"},
		{"tpcc --use-fk prepare", "no foreign keys"},
		{"tpcc --use-clustered-index=false prepare", "--use-clustered-index=false"},
		{"tpcc --tables history,orders --output-type csv --output-dir d prepare", "--tables history,orders: fairbench writes the CSV files of every table"},
		{"tpcc --output-type parquet --output-dir d prepare", "the only output type is csv"},
		{"tpcc --output-type csv prepare", "needs --output-dir"},
		{"tpcc --parts 4 --partition-type 2 prepare", "partitions by HASH only"},
		{"tpcc --conn-refresh-interval 10s run", "keeps each thread's connection"},
		{"tpcc --output r.json run", "write fairbench's result file with -o FILE or --result FILE"},
		{"tpcc -d oracle run", "go-tpc's drivers are mysql and postgres"},
		{"tpcc --weight 1,2,3 run", "give 5 weights"},
		{"tpcc --time 0s run", "give a positive duration"},
		{"tpcc", "tpcc needs an action"},
		{"tpcc bench", "tpcc bench: give one action"},
		{"tpcc --bogus run", "unknown flag --bogus"},
		{"tpcc -H a run --mysql-host=b", "--mysql-host is also set by a go-tpc flag"},
	} {
		_, err := Translate(strings.Fields(c.args), extra())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.args, err, c.want)
		}
	}
}

func TestPasswordRedacted(t *testing.T) {
	for _, args := range []string{"tpcc -p s3cret run", "tpcc -ps3cret run", "tpcc --password=s3cret run", "tpcc --password s3cret run"} {
		tr, err := Translate(strings.Fields(args), nil)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if strings.Contains(strings.Join(tr.CommandLine, " "), "s3cret") || !strings.Contains(strings.Join(tr.Args, " "), "-password=s3cret") {
			t.Errorf("%s: command line %q, args %q", args, tr.CommandLine, tr.Args)
		}
	}
}

func TestHelp(t *testing.T) {
	tr, err := Translate([]string{"tpcc", "--help"}, extra())
	if err != nil || !strings.Contains(tr.Help, "-H, --host") || !strings.Contains(tr.Help, "refused:") || strings.Contains(tr.Help, "warmup-time") {
		t.Errorf("help: %v\n%s", err, tr.Help)
	}
}

// FuzzTranslate: no command line panics the go-tpc form; a translation is
// fairbench's "ACTION tpcc --name=value…" and its command line shows no
// password given with -p.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{
		"tpcc --warehouses 4 --parts 4 prepare",
		"-H 127.0.0.1 -P 3306 -D tpcc tpcc --warehouses 4 run --time 10m --interval 5s -o r.json --output json",
		"tpcc prepare -d postgres -U u -p pw -D test -H h -P 5432 --conn-params sslmode=disable",
		"tpcc -T4 --weight 45,43,4,4,4 --count 100 --ignore-error --silence run --warmup-time=3",
		"tpcc --no-check true --dropdata --output-type=csv --output-dir=d prepare",
		"tpcc --isolation 2 check --check-all",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		_ = Claims(args)
		tr, err := Translate(args, extra())
		if err != nil || tr.Help != "" {
			return
		}
		if len(tr.Args) < 2 || !actions[tr.Args[0]] || tr.Args[1] != Workload || tr.Action != tr.Args[0] {
			t.Fatalf("%q: translated to %q", line, tr.Args)
		}
		for _, a := range tr.Args[2:] {
			if !strings.HasPrefix(a, "--") || !strings.Contains(a, "=") {
				t.Fatalf("%q: argument %q is not --name=value", line, a)
			}
		}
		password := ""
		for _, a := range tr.Args {
			if _, v, ok := strings.Cut(a, "sql-password="); ok {
				password = v
			}
		}
		if len(password) < 3 {
			return // too short to tell from other words
		}
		for i, a := range tr.CommandLine {
			if strings.HasPrefix(a, "-") && strings.Contains(a, password) && !strings.HasPrefix(a, "-p") && !strings.HasPrefix(a, "--password") {
				continue // another flag's value that happens to hold it
			}
			after := i > 0 && (tr.CommandLine[i-1] == "-p" || tr.CommandLine[i-1] == "--password")
			if (after || strings.HasPrefix(a, "-p") || strings.HasPrefix(a, "--password")) && strings.Contains(a, password) {
				t.Fatalf("%q: the password %q is in the command line %q", line, password, tr.CommandLine)
			}
		}
	})
}

// TestOwnOptionsWin: fairbench's own --report-interval and --output-style
// replace go-tpc's defaults rather than clash with them.
func TestOwnOptionsWin(t *testing.T) {
	fs := extra()
	fs.Float64("report-interval", 0, "")
	fs.String("output-style", "", "")
	tr, err := Translate(strings.Fields("tpcc run --report-interval 1 --output-style fairbench"), fs)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tr.Args, " "); got != "run tpcc --report-interval=1 --output-style=fairbench" {
		t.Errorf("got %s", got)
	}
	if _, err := Translate(strings.Fields("tpcc run --interval 5s --report-interval 1"), fs); err == nil {
		t.Errorf("--interval and --report-interval together: accepted")
	}
}

// TestOutput maps every go-tpc output style to go-tpc's --output value, which
// the go-tpc form reads back as the same style, and nothing else.
func TestOutput(t *testing.T) {
	for _, tc := range []struct {
		style, want string
		ok          bool
	}{
		{StylePlain, "plain", true},
		{StyleTable, "table", true},
		{StyleJSON, "json", true},
		{StyleFairbench, "", false},
		{"plain", "", false},
		{"", "", false},
	} {
		got, ok := Output(tc.style)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Output(%q) = %q, %v; want %q, %v", tc.style, got, ok, tc.want, tc.ok)
		}
		if ok && goTPCOutputs[got] != tc.style {
			t.Errorf("--output %s reads back as style %q, not %q", got, goTPCOutputs[got], tc.style)
		}
	}
}
