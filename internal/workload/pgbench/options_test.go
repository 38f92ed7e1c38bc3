package pgbench

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// TestInitOptionsValidate: pgbench's own checks with pgbench 15's wording (checked
// against /usr/bin/pgbench -i with the same values), then what each target
// cannot do, said with what to change.
func TestInitOptionsValidate(t *testing.T) {
	pg, my, lite := driver.KindPgSQL, driver.KindMySQL, driver.KindSQLite
	cases := []struct {
		name  string
		kinds []string
		edit  func(*InitOptions)
		want  string // "" when valid
	}{
		{"defaults", []string{pg, my, lite}, func(*InitOptions) {}, ""},
		{"scale 0", []string{pg}, func(o *InitOptions) { o.Scale = 0 }, "-s/--scale must be in range 1..2147483647"},
		{"scale -1", []string{pg}, func(o *InitOptions) { o.Scale = -1 }, "-s/--scale must be in range 1..2147483647"},
		{"scale too big", []string{pg}, func(o *InitOptions) { o.Scale = 1 << 31 }, "-s/--scale must be in range 1..2147483647"},
		{"fillfactor 9", []string{pg}, func(o *InitOptions) { o.FillFactor = 9 }, "-F/--fillfactor must be in range 10..100"},
		{"fillfactor 101", []string{pg}, func(o *InitOptions) { o.FillFactor = 101 }, "-F/--fillfactor must be in range 10..100"},
		{"fillfactor 10", []string{pg}, func(o *InitOptions) { o.FillFactor = 10 }, ""},
		{"partitions -1", []string{pg}, func(o *InitOptions) { o.Partitions = -1 }, "--partitions must be in range 0..2147483647"},
		{"method list", []string{pg}, func(o *InitOptions) { o.Partitions, o.PartitionMethod = 2, "list" },
			`invalid partition method, expecting "range" or "hash", got: "list"`},
		{"method without partitions", []string{pg}, func(o *InitOptions) { o.PartitionMethod = "hash" },
			"--partition-method requires greater than zero --partitions"},
		{"method in capitals", []string{pg, my}, func(o *InitOptions) { o.Partitions, o.PartitionMethod = 2, "HASH" }, ""},
		{"unknown step", []string{pg}, func(o *InitOptions) { o.Steps = "dtx" },
			`unrecognized initialization step "x"; allowed step characters are: "dtgGvpf"`},
		{"no steps", []string{pg}, func(o *InitOptions) { o.Steps = "" }, "no initialization steps specified"},
		{"only spaces", []string{pg}, func(o *InitOptions) { o.Steps = "  " }, "no initialization steps specified"},
		{"spaces ignored", []string{pg, my, lite}, func(o *InitOptions) { o.Steps = "d t g" }, ""},
		{"g and G", []string{pg}, func(o *InitOptions) { o.Steps = "dtgG" }, `give only one of "g"`},
		{"unlogged on mariadb", []string{my}, func(o *InitOptions) { o.Unlogged = true }, "mysql has no unlogged tables: leave the option out"},
		{"unlogged on sqlite", []string{lite}, func(o *InitOptions) { o.Unlogged = true }, "sqlite has no unlogged tables"},
		{"unlogged on postgres", []string{pg}, func(o *InitOptions) { o.Unlogged = true }, ""},
		{"fillfactor on mariadb", []string{my, lite}, func(o *InitOptions) { o.FillFactor = 90 }, "no per-table fill factor: leave it at 100"},
		{"tablespace on mariadb", []string{my, lite}, func(o *InitOptions) { o.Tablespace = "x" }, "--tablespace/--index-tablespace are PostgreSQL's"},
		{"index tablespace on sqlite", []string{lite}, func(o *InitOptions) { o.IndexTablespace = "x" }, "--tablespace/--index-tablespace are PostgreSQL's"},
		{"tablespaces on postgres", []string{pg}, func(o *InitOptions) { o.Tablespace, o.IndexTablespace = "a", "b" }, ""},
		{"partitions on sqlite", []string{lite}, func(o *InitOptions) { o.Partitions = 2 }, "sqlite has no range partitions; leave --partitions out"},
		{"hash partitions on sqlite", []string{lite}, func(o *InitOptions) { o.Partitions, o.PartitionMethod = 2, "hash" }, "sqlite has no hash partitions"},
		{"partitions on mariadb", []string{my, pg}, func(o *InitOptions) { o.Partitions = 3 }, ""},
		{"foreign keys on sqlite", []string{lite}, func(o *InitOptions) { o.ForeignKeys = true }, `leave "f" out of -I/--init-steps`},
		{"step f on sqlite", []string{lite}, func(o *InitOptions) { o.Steps = "dtgvpf" }, "sqlite cannot add them to existing tables"},
		{"foreign keys with partitions on mariadb", []string{my}, func(o *InitOptions) { o.ForeignKeys, o.Partitions = true, 2 },
			"mysql has no foreign keys on partitioned tables; drop one of the two"},
		{"foreign keys with partitions on postgres", []string{pg}, func(o *InitOptions) { o.ForeignKeys, o.Partitions = true, 2 }, ""},
		{"pgbench's check first", []string{lite}, func(o *InitOptions) { o.Unlogged, o.Scale = true, 0 }, "-s/--scale"},
	}
	for _, tc := range cases {
		for _, kind := range tc.kinds {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				o := DefaultInitOptions()
				tc.edit(&o)
				err := o.Validate(kind)
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("Validate: %v, want nil", err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("Validate: %v, want %q", err, tc.want)
				}
			})
		}
	}
	if err := DefaultInitOptions().Validate("oracle"); err == nil {
		t.Error("an unknown driver kind was accepted")
	}
}

// TestInitOptionsSteps: --foreign-keys adds f when the steps lack it, as pgbench does.
func TestInitOptionsSteps(t *testing.T) {
	for _, tc := range []struct {
		steps string
		fk    bool
		want  string
	}{{"dtgvp", false, "dtgvp"}, {"dtgvp", true, "dtgvpf"}, {"dtfgvp", true, "dtfgvp"}, {" d t ", false, "dt"}} {
		o := InitOptions{Steps: tc.steps, ForeignKeys: tc.fk}
		if got := o.steps(); got != tc.want {
			t.Errorf("steps(%q, fk %v) = %q, want %q", tc.steps, tc.fk, got, tc.want)
		}
	}
}

// TestTimingsString: the final line as pgbench 15 writes it.
func TestTimingsString(t *testing.T) {
	tm := Timings{Total: 1234 * time.Millisecond, Steps: []StepTiming{
		{'d', "drop tables", 10 * time.Millisecond}, {'t', "create tables", 4 * time.Millisecond},
		{'g', "client-side generate", 1005 * time.Millisecond}, {'v', "vacuum", 100 * time.Millisecond},
		{'p', "primary keys", 115 * time.Millisecond},
	}}
	want := "done in 1.23 s (drop tables 0.01 s, create tables 0.00 s, client-side generate 1.00 s, vacuum 0.10 s, primary keys 0.12 s)."
	if got := tm.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestPartitionBounds: pgbench's range partitions split the accounts in
// parts of equal size, rounded up.
func TestPartitionBounds(t *testing.T) {
	o := DefaultInitOptions()
	o.Partitions = 3
	p := partitioning(o)
	if p == nil || p.Hash || p.Count != 3 || len(p.Bounds) != 2 || p.Bounds[0] != 33335 || p.Bounds[1] != 66669 {
		t.Errorf("range partitions %+v, want bounds 33335 and 66669 as pgbench's", p)
	}
	o.PartitionMethod = "Hash"
	if p := partitioning(o); !p.Hash || len(p.Bounds) != 0 {
		t.Errorf("hash partitions %+v", p)
	}
	o.Partitions = 0
	if p := partitioning(o); p != nil {
		t.Errorf("no partitions asked, got %+v", p)
	}
}

// TestBigAid: from scale 20000 the account ids are bigints in accounts and
// history, as pgbench makes them.
func TestBigAid(t *testing.T) {
	for _, tc := range []struct {
		scale int
		want  driver.ColumnType
	}{{19999, driver.Integer}, {20000, driver.BigInt}} {
		o := DefaultInitOptions()
		o.Scale = tc.scale
		for _, tb := range schemaTables(o) {
			for _, c := range tb.Columns {
				if c.Name == "aid" && c.Type != tc.want {
					t.Errorf("scale %d: %s.aid type %v, want %v", tc.scale, tb.Name, c.Type, tc.want)
				}
			}
		}
	}
}

// FuzzInitOptionsValidate: any steps and partition method are either refused with an
// error or accepted with only pgbench's step letters, one generation step at
// most; Validate never panics.
func FuzzInitOptionsValidate(f *testing.F) {
	for _, s := range []string{"dtgvp", "dtGvpf", "x", "", "d t", "gG", "ñ"} {
		f.Add(s, "range", 2)
	}
	f.Fuzz(func(t *testing.T, steps, method string, parts int) {
		o := DefaultInitOptions()
		o.Steps, o.PartitionMethod, o.Partitions = steps, method, parts
		if err := o.Validate(driver.KindPgSQL); err != nil {
			return
		}
		s := o.steps()
		for _, c := range s {
			if !strings.ContainsRune(allowedSteps, c) {
				t.Fatalf("accepted step %q in %q", c, steps)
			}
		}
		if strings.Contains(s, "g") && strings.Contains(s, "G") {
			t.Fatalf("accepted both g and G in %q", steps)
		}
		if m := o.partitionMethod(); m != "range" && m != "hash" {
			t.Fatalf("accepted method %q", method)
		}
	})
}
