package oltp

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// parse returns workload k with args parsed onto a fresh flag set.
func parse(t testing.TB, k kind, args ...string) *oltp {
	t.Helper()
	fs := pflag.NewFlagSet(k.name(), pflag.ContinueOnError)
	w := newOLTP(k, fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return w
}

func TestDefaultsMatchSysbench(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	newOLTP(readWrite, fs)
	want := map[string]string{
		"tables": "1", "table-size": "10000", "range-size": "100", "point-selects": "10",
		"simple-ranges": "1", "sum-ranges": "1", "order-ranges": "1", "distinct-ranges": "1",
		"index-updates": "1", "non-index-updates": "1", "delete-inserts": "1",
		"range-selects": "on", "auto-inc": "on", "skip-trx": "off", "secondary": "off",
		"create-secondary": "on", "mysql-storage-engine": "innodb", "create-table-options": "",
	}
	for name, def := range want {
		f := fs.Lookup(name)
		if f == nil {
			t.Errorf("flag --%s is not registered", name)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s default = %q, want %q", name, f.DefValue, def)
		}
		if f.Usage == "" {
			t.Errorf("--%s has no usage text", name)
		}
	}
}

func TestBoolFlagsAcceptSysbenchSpellings(t *testing.T) {
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"--skip-trx=on"}, true},
		{[]string{"--skip-trx=ON"}, true},
		{[]string{"--skip-trx"}, true},
		{[]string{"--skip-trx=true"}, true},
		{[]string{"--skip-trx=1"}, true},
		{[]string{"--skip-trx=off"}, false},
		{[]string{"--skip-trx=false"}, false},
		{nil, false},
	}
	for _, c := range cases {
		w := parse(t, readWrite, c.args...)
		if w.opts.SkipTrx != c.want {
			t.Errorf("%v: SkipTrx = %v, want %v", c.args, w.opts.SkipTrx, c.want)
		}
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	newOLTP(readWrite, fs)
	if err := fs.Parse([]string{"--range-selects=maybe"}); err == nil || !strings.Contains(err.Error(), "on or off") {
		t.Errorf("--range-selects=maybe: error %v, want one that says to use on or off", err)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		k       kind
		args    []string
		wantErr string // empty: valid
	}{
		{readWrite, nil, ""},
		{pointSelect, []string{"--point-selects=0"}, ""}, // point_select always runs one
		{readWrite, []string{"--tables=0"}, "--tables=0"},
		{readWrite, []string{"--table-size=0"}, "--table-size=0"},
		{readWrite, []string{"--table-size=3000000000"}, "--table-size=3000000000"},
		{readWrite, []string{"--range-size=0"}, "--range-size=0"},
		{readWrite, []string{"--table-size=2147483647", "--range-size=2"}, "--range-size=2"},
		{readWrite, []string{"--point-selects=-1"}, "--point-selects=-1"},
		{writeOnly, []string{"--delete-inserts=-2"}, "--delete-inserts=-2"},
		{readWrite, []string{"--mysql-storage-engine=inno db"}, "--mysql-storage-engine"},
		{readOnly, []string{"--point-selects=0", "--range-selects=off", "--skip-trx"}, "no statement"},
		{updateIndex, []string{"--index-updates=0"}, "no statement"},
		{readOnly, []string{"--point-selects=0", "--skip-trx"}, ""},
	}
	for _, c := range cases {
		err := parse(t, c.k, c.args...).Validate()
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s %v: unexpected error %v", c.k.name(), c.args, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s %v: error %v, want one containing %q", c.k.name(), c.args, err, c.wantErr)
		}
	}
}

func TestSpecsAreTheEightWorkloads(t *testing.T) {
	want := []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
		"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete"}
	specs := Specs()
	if len(specs) != len(want) {
		t.Fatalf("Specs() has %d workloads, want %d", len(specs), len(want))
	}
	for i, s := range specs {
		if s.Name != want[i] || s.Summary == "" || s.New == nil {
			t.Errorf("spec %d = %q (summary %q), want %q with a summary and New", i, s.Name, s.Summary, want[i])
			continue
		}
		fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
		if err := s.New(fs).Validate(); err != nil {
			t.Errorf("%s with defaults: %v", s.Name, err)
		}
		if fs.Lookup("table-size") == nil {
			t.Errorf("%s does not register --table-size", s.Name)
		}
	}
}

func TestStatementsPerEvent(t *testing.T) {
	// The query counts of sysbench's scripts with default options.
	cases := []struct {
		k    kind
		args []string
		want int
	}{
		{pointSelect, nil, 1},
		{readOnly, nil, 16},
		{readWrite, nil, 20},
		{writeOnly, nil, 6},
		{updateIndex, nil, 1},
		{updateNonIndex, nil, 1},
		{insert, nil, 1},
		{deleteRows, nil, 1},
		{readWrite, []string{"--skip-trx"}, 18},
		{readWrite, []string{"--range-selects=off"}, 16},
		{readOnly, []string{"--point-selects=3", "--sum-ranges=2"}, 10},
		{updateIndex, []string{"--index-updates=3"}, 3},
		{deleteRows, []string{"--delete-inserts=5"}, 1},
	}
	for _, c := range cases {
		w := parse(t, c.k, c.args...)
		if got := planFor(c.k, &w.opts).statements(); got != c.want {
			t.Errorf("%s %v: %d statements per event, want %d", c.k.name(), c.args, got, c.want)
		}
	}
}
