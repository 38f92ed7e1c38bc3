package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestFrontDoorMessages runs mistyped command lines as a user would and
// checks what they are told: the command, flag or workload they probably
// meant, the flag a bad value belongs to with the form it takes, and lists
// written as text. None of them reaches a database.
func TestFrontDoorMessages(t *testing.T) {
	db := "--sqlite-db=" + filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		args   []string
		want   []string // each in stderr
		absent []string // none in stderr
	}{
		// Commands: cobra's suggestions, not the lecture on sysbench's
		// order, which stays for what reads as a sysbench command line.
		{[]string{"runn"}, []string{"fairbench: unknown command \"runn\"; did you mean \"run\"?\n"}, []string{"sysbench test", "TESTNAME"}},
		{[]string{"compre"}, []string{`unknown command "compre"; did you mean "compare"?`}, []string{"sysbench test"}},
		{[]string{"comp", "a=r.json"}, []string{`unknown command "comp"; did you mean "compare" or "cost"?`}, nil},
		{[]string{"runn", "oltp_read_write", "--threads=4"}, []string{`unknown command "runn"; did you mean "run"?`}, nil},
		{[]string{"server", "strat"}, []string{`unknown command "strat" for "fairbench server"; did you mean "start"?`}, nil},
		{[]string{"suite", "rnu", "plan.yaml"}, []string{`unknown command "rnu" for "fairbench suite"; did you mean "run"?`}, nil},
		{[]string{"nosuchthing"}, []string{`unknown command "nosuchthing": 'fairbench --help' lists the commands`}, []string{"did you mean", "write one of"}},
		{[]string{"hlep"}, []string{`unknown command "hlep"; did you mean "help"?`}, []string{"sysbench test"}},
		{[]string{"help", "runn"}, []string{`fairbench: unknown help topic "runn"; did you mean "run"? ('fairbench help' lists the commands)`}, []string{"Unknown help topic"}},
		{[]string{"help", "nosuchthing"}, []string{`unknown help topic "nosuchthing" ('fairbench help' lists the commands)`}, []string{"did you mean"}},
		{[]string{"nosuchthing", "run"}, []string{`"nosuchthing" is neither a fairbench command nor a sysbench test; write one of`, "--test=TESTNAME"}, nil},
		{[]string{"oltp_read_writ", "--threads=4", "run"}, []string{`"oltp_read_writ" is not a sysbench test; did you mean "oltp_read_write"?`}, nil},
		{[]string{"oltp_read_write", "--threads=4", "runn"}, []string{`unknown command "runn" for oltp_read_write (did you mean "run"?)`}, nil},
		// Flags: the nearest flag, and a value after an unknown flag is
		// the flag's, not a stray word.
		{[]string{"run", "oltp_point_select", "--thread=2"}, []string{"fairbench: unknown flag --thread; did you mean --threads?\n"}, nil},
		{[]string{"run", "oltp_point_select", "--thread", "2"}, []string{"unknown flag --thread; did you mean --threads?"}, []string{"unexpected"}},
		{[]string{"oltp_point_select", "--thread", "2", "run"}, []string{"unknown flag --thread; did you mean --threads?"}, []string{"unknown command"}},
		{[]string{"compare", "--fromat"}, []string{"fairbench: unknown flag --fromat; did you mean --format?\n"}, nil},
		{[]string{"run", "tpcc", "--warehouse=2"}, []string{"unknown flag --warehouse; did you mean --warehouses?"}, nil},
		{[]string{"tpcc", "--thread", "2", "run"}, []string{"unknown flag --thread; did you mean --threads?", "go-tpc form"}, nil},
		{[]string{"run", "oltp_point_select", "--zzzzzz=1"}, []string{"unknown flag --zzzzzz: neither sysbench's oltp_point_select nor fairbench takes it"}, []string{"did you mean"}},
		// Values: the flag and the form it takes, never strconv's wording.
		{[]string{"run", "oltp_point_select", "--threads=two", db}, []string{"fairbench: --threads: \"two\" is not a whole number (e.g. --threads=8)\n"}, []string{"strconv", "invalid argument"}},
		{[]string{"run", "tpcc", "--warehouses=ten", db}, []string{`--warehouses: "ten" is not a whole number (e.g. --warehouses=8)`}, []string{"strconv"}},
		{[]string{"run", "oltp_point_select", "--report-interval=often", db}, []string{`--report-interval: "often" is not a number (e.g. --report-interval=2.5)`}, []string{"strconv"}},
		{[]string{"run", "oltp_point_select", "--rand-seed=-1", db}, []string{`--rand-seed: "-1" is not a whole number, 0 or more`}, []string{"strconv"}},
		{[]string{"run", "oltp_point_select", "--time=ten", db}, []string{`--time: "ten" is not a duration: give seconds (300) or a value with a unit`}, []string{"invalid argument"}},
		{[]string{"run", "oltp_point_select", db, "--time"}, []string{"--time needs a value: --time=SECONDS"}, []string{`"on"`}},
		{[]string{"run", "tpcc", db, "--threads"}, []string{"--threads needs a value (e.g. --threads=8)"}, nil},
		{[]string{"tpcc", "--threads", "two", "run"}, []string{`--threads: "two" is not a whole number (e.g. --threads=8)`}, []string{"strconv"}},
		{[]string{"tpcc", "--time", "5x", "run"}, []string{`--time: "5x" is not a duration (e.g. --time=90s)`}, []string{"time: unknown unit"}},
		// Workloads: the nearest, and the list as text.
		{[]string{"run", "oltp_point_selec"}, []string{`unknown workload "oltp_point_selec"; did you mean "oltp_point_select"? The workloads are oltp_delete, oltp_insert, oltp_point_select,`, "'fairbench list'"}, []string{"["}},
		{[]string{"prepare", "oltp_nonsense", "--tables=2"}, []string{`unknown workload "oltp_nonsense": the workloads are oltp_delete, oltp_insert,`, ", tpcc ("}, []string{"[", "did you mean"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runCLI(context.Background(), nil, tc.args...)
			if r.code != ExitUsage {
				t.Errorf("exit %d, want %d", r.code, ExitUsage)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(r.stderr, a) {
					t.Errorf("stderr has %q:\n%s", a, r.stderr)
				}
			}
		})
	}
}

// TestPhaseHelp: `run --help` and `help run` list the options every
// workload's run takes, under the headings of a workload's help, and the
// workloads; not a workload's own options.
func TestPhaseHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"help", "run"}, {"run", "-h"}} {
		r := runCLI(context.Background(), nil, args...)
		if r.code != ExitOK {
			t.Fatalf("%q: exit %d: %s", args, r.code, r.stderr)
		}
		last := -1
		for _, want := range []string{"fairbench run WORKLOAD [flags]", "Workloads:", "oltp_point_select ", "tpcc ",
			"Run length and load:", "--threads int", "--time seconds", "Output:", "-o, --output", "--report-interval",
			"Live metrics and profiles:", "Coordinated clients:", "Client CPUs:", "Server machine options:", "--server-agent",
			"Random numbers:", "--rand-type", "Connection options:", "--mysql-host", "'fairbench run WORKLOAD --help'"} {
			i := strings.Index(r.stdout, want)
			if i < 0 {
				t.Errorf("%q: help lacks %q:\n%s", args, want, r.stdout)
				continue
			}
			if i < last {
				t.Errorf("%q: %q is out of order", args, want)
			}
			last = i
		}
		for _, absent := range []string{"--table-size", "--warehouses int", "Available Commands"} {
			if strings.Contains(r.stdout, absent) {
				t.Errorf("%q: help has %q", args, absent)
			}
		}
	}
	r := runCLI(context.Background(), nil, "help", "prepare")
	if !strings.Contains(r.stdout, "Prepare options:") || !strings.Contains(r.stdout, "--replace") || strings.Contains(r.stdout, "Run length and load:") {
		t.Errorf("help prepare:\n%s", r.stdout)
	}
}

// TestWorkloadHelpReadOptions: a workload's help lists the options it
// reads; those it accepts and ignores (the OLTP family's shared options)
// come under their own heading, those it refuses are named.
func TestWorkloadHelpReadOptions(t *testing.T) {
	const compat = "Accepted for sysbench compatibility, with no effect on "
	section := func(help, heading string) string {
		_, after, ok := strings.Cut(help, "\n"+heading)
		if !ok {
			return ""
		}
		body, _, _ := strings.Cut(after, "\n\n")
		return body
	}
	for _, tc := range []struct {
		workload       string
		reads, ignores []string // flags in its own options, and in the compatibility heading
	}{
		{"oltp_point_select", []string{"--tables", "--table-size"}, []string{"--point-selects", "--range-size", "--simple-ranges", "--index-updates", "--delete-inserts", "--skip-trx"}},
		{"oltp_update_index", []string{"--tables", "--index-updates"}, []string{"--point-selects", "--non-index-updates", "--skip-trx"}},
		{"oltp_read_only", []string{"--point-selects", "--range-size", "--skip-trx"}, []string{"--index-updates", "--delete-inserts"}},
		{"oltp_read_write", []string{"--point-selects", "--range-size", "--index-updates", "--delete-inserts", "--skip-trx"}, nil},
	} {
		r := runCLI(context.Background(), nil, "run", tc.workload, "--help")
		if r.code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tc.workload, r.code, r.stderr)
		}
		own := section(r.stdout, tc.workload+" options:")
		ignored := section(r.stdout, compat+tc.workload+":")
		for _, f := range tc.reads {
			if !strings.Contains(own, f+" ") || strings.Contains(ignored, f+" ") {
				t.Errorf("%s: %s is not among the options it reads:\n%s", tc.workload, f, r.stdout)
			}
		}
		for _, f := range tc.ignores {
			if !strings.Contains(ignored, f+" ") || strings.Contains(own, f+" ") {
				t.Errorf("%s: %s is not under %q:\n%s", tc.workload, f, compat, r.stdout)
			}
		}
		if want := len(tc.ignores) > 0; strings.Contains(r.stdout, compat) != want {
			t.Errorf("%s: the compatibility heading is there: %v, want %v", tc.workload, !want, want)
		}
	}
	r := runCLI(context.Background(), nil, "run", "tpcc", "--help")
	if strings.Contains(r.stdout, "--rand-type string") || !strings.Contains(r.stdout, "--rand-seed") ||
		!strings.Contains(r.stdout, "tpcc refuses --rand-pareto-h, --rand-spec-iter, --rand-spec-pct, --rand-spec-res, --rand-type, --rand-zipfian-exp: TPC-C draws its keys") {
		t.Errorf("tpcc's help lists the options it refuses, or does not name them:\n%s", r.stdout)
	}
}
