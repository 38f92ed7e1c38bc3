package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// fuzzParse feeds the captured logs of prefix and mutations of them to the
// parser of format: it must never panic, and every result it returns must be
// a valid result that the result file encoding takes (no NaN, no infinity).
func fuzzParse(f *testing.F, format Format, prefix string) {
	files, err := filepath.Glob(filepath.Join("testdata", prefix+"*.log"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no %s logs in testdata: %v", prefix, err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2]) // a cut log
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, opts := range []Options{
			{Format: format},
			{Format: format, KeepIncomplete: true, Threads: []int{4}, Workload: "oltp_read_write"},
		} {
			rs, err := Parse(bytes.NewReader(text), "fuzz.log", opts)
			if err != nil {
				if !strings.Contains(err.Error(), "fuzz.log") && !strings.Contains(err.Error(), "thread count") {
					t.Errorf("error %q does not name the log", err)
				}
				continue
			}
			for _, r := range rs {
				checkValid(t, r)
				var b bytes.Buffer
				if err := result.Encode(&b, r); err != nil {
					t.Fatalf("a parsed result cannot be written: %v", err)
				}
			}
		}
	})
}

func FuzzParseSysbench(f *testing.F) { fuzzParse(f, FormatSysbench, "sysbench-") }

func FuzzParseGoTPC(f *testing.F) { fuzzParse(f, FormatGoTPC, "go-tpc-") }

// FuzzParseCommand: an echoed command line never panics the parser, and a
// password never survives in what it keeps.
func FuzzParseCommand(f *testing.F) {
	for _, l := range []string{
		"$ sysbench oltp_point_select --mysql-password=s3cret --threads=4 run",
		"+ go-tpc tpcc -T4 -ps3cret --password s3cret --warehouses=4 run",
		"Starting component `bench`: /root/.tiup/components/bench/v1.0.8/tiup-bench tpcc -p s3cret run",
		"$ sysbench",
		"tiup bench",
	} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		c, ok := parseCommand(l)
		if !ok {
			return
		}
		for _, k := range []string{"password", "mysql-password", "pgsql-password", "p"} {
			if v, ok := c.options[k]; ok && v != "***" {
				t.Errorf("%s kept as %q from %q", k, v, l)
			}
		}
	})
}
