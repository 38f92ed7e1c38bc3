package sysbenchcli

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// testCatalog is a small catalog shaped like fairbench's: two tests, run
// with more options than prepare and cleanup, a boolean Lua option and a
// short flag; config is the one --config-file it can read.
func testCatalog(config string) Catalog {
	return Catalog{
		Tests:     []string{"oltp_read_write", "oltp_point_select"},
		Workloads: []string{"oltp_read_write", "oltp_point_select", "tpcc"},
		Commands:  []string{"run", "prepare", "cleanup", "warmup", "check", "list", "help"},
		Flags: func(phase, test string) *pflag.FlagSet {
			fs := pflag.NewFlagSet(phase, pflag.ContinueOnError)
			fs.Int("tables", 1, "")
			fs.Int("table-size", 10000, "")
			fs.String("mysql-host", "localhost", "")
			fs.String("mysql-ssl", "off", "")
			fs.String("pgsql-host", "localhost", "")
			b := fs.VarPF(newBool(), "skip-trx", "", "")
			b.NoOptDefVal = "true"
			switch phase {
			case "run":
				fs.Int("threads", 1, "")
				fs.Int("time", 10, "")
				fs.Int("events", 0, "")
				fs.Float64("rate", 0, "")
				fs.StringP("output", "o", "", "")
				fs.Bool("histogram", false, "")
			case "prepare", "warmup", "check":
				fs.Int("threads", 1, "")
				fs.Bool("replace", false, "")
			}
			return fs
		},
		ReadFile: func(name string) ([]byte, error) {
			if name == "sb.conf" {
				return []byte(config), nil
			}
			return nil, errors.New("no such file")
		},
	}
}

// boolValue is a boolean flag value that, like fairbench's, says "bool".
type boolValue bool

func newBool() *boolValue           { return new(boolValue) }
func (b *boolValue) String() string { return map[bool]string{true: "on", false: "off"}[bool(*b)] }
func (b *boolValue) Type() string   { return "bool" }
func (b *boolValue) Set(s string) error {
	v, ok := onOff[strings.ToLower(s)]
	if !ok {
		return errors.New("not a boolean")
	}
	*b = v == "true"
	return nil
}

// FuzzTranslate feeds command lines (words separated by spaces) and a config
// file to Translate: it never panics, and a command it returns is a known
// command of a known test whose arguments the command's own flags parse
// without an unknown option.
func FuzzTranslate(f *testing.F) {
	for _, seed := range []struct{ line, config string }{
		{"oltp_read_write --threads=4 run", ""},
		{"--test=/usr/share/sysbench/oltp_point_select.lua --num-threads=8 --max-time=60 run -o r.json", ""},
		{"--config-file=sb.conf oltp_read_write prepare", "table_size=100\n# c\nthreads=2\ntime=5\n"},
		{"--config-file sb.conf oltp_read_write cleanup --skip_trx=yes", "config-file=sb.conf\n"},
		{"run oltp_read_write --table_size 100 --skip-trx", ""},
		{"oltp_rw run", ""},
		{"tpcc --warehouses=4 prepare", ""},
		{"oltp_read_write --mysql-ssl --histogram run", ""},
		{"-o x oltp_read_write -ox run --", ""},
	} {
		f.Add(seed.line, seed.config)
	}
	f.Fuzz(func(t *testing.T, line, config string) {
		cat := testCatalog(config)
		c, err := Translate(strings.Fields(line), cat)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if c == nil {
			return
		}
		if !contains(cat.Tests, c.Test) || len(c.Args) < 2 || c.Args[1] != c.Test {
			t.Fatalf("%q resolved to test %q, args %q", line, c.Test, c.Args)
		}
		if c.Phase == "help" {
			return
		}
		fs := cat.Flags(c.Args[0], c.Test)
		if !contains(Phases, c.Args[0]) || fs == nil {
			t.Fatalf("%q resolved to command %q", line, c.Args[0])
		}
		if err := fs.Parse(c.Args[2:]); err != nil && strings.Contains(err.Error(), "unknown") {
			t.Fatalf("%q resolved to %q, which %s refuses: %v", line, c.Args, c.Args[0], err)
		}
		if fs.NArg() > 0 {
			t.Fatalf("%q resolved to %q with words left: %q", line, c.Args, fs.Args())
		}
	})
}
