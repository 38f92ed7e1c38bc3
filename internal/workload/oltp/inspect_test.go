package oltp

import (
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestInspectComparesTableSizeWithMaxID loads 2 tables of 1000 rows on each
// target and inspects them with other --table-size values: below the ids
// loaded, a little above (inserts), far above, and with one table shrunk.
func TestInspectComparesTableSizeWithMaxID(t *testing.T) {
	for kindName, cfg := range testdb.All(t) {
		t.Run(kindName, func(t *testing.T) {
			t.Parallel()
			db := openTarget(t, cfg)
			loaded := parse(t, readWrite, prepareArgs...)
			if err := loaded.Validate(); err != nil {
				t.Fatal(err)
			}
			dropAtEnd(t, loaded, db)
			if _, _, err := prepareWith(t, loaded, db, 2, false); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			conn := connect(t, db)
			inspect := func(t *testing.T, args ...string) (found string, differs bool, warnings []string) {
				t.Helper()
				w := parse(t, readWrite, args...)
				if err := w.Validate(); err != nil {
					t.Fatal(err)
				}
				rep, err := w.Inspect(testCtx(t), conn, db.Dialect())
				if err != nil {
					t.Fatalf("Inspect %v: %v", args, err)
				}
				if len(rep.Checks) != 1 || rep.Checks[0].Option != "table-size" || len(rep.Options) != 0 {
					t.Fatalf("Inspect %v: checks %+v, options %v; want one table-size check and no option changed", args, rep.Checks, rep.Options)
				}
				return rep.Checks[0].Found, rep.Checks[0].Differs, rep.Warnings
			}
			cases := []struct {
				name    string
				args    []string
				found   string
				warning []string // substrings of the one warning; nil: none
			}{
				{"as loaded", []string{"--tables=2", "--table-size=1000"}, "1000", nil},
				{"within the growth allowed", []string{"--tables=2", "--table-size=950"}, "1000", nil},
				{"one table of two", []string{"--tables=1", "--table-size=1000"}, "1000", nil},
				{"more than loaded", []string{"--tables=2", "--table-size=2000"}, "1000",
					[]string{"--table-size is 2000", "1000 in sbtest1, 1000 in sbtest2", "find no row", "--table-size=2000 --replace"}},
				{"far fewer than loaded", []string{"--tables=2", "--table-size=500"}, "1000",
					[]string{"--table-size is 500", "1000 in sbtest1", "never reached"}},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					found, differs, warnings := inspect(t, tc.args...)
					if found != tc.found || differs != (tc.warning != nil) {
						t.Errorf("found %q differs %v, want %q %v", found, differs, tc.found, tc.warning != nil)
					}
					if tc.warning == nil {
						if len(warnings) != 0 {
							t.Errorf("warnings %q, want none", warnings)
						}
						return
					}
					if len(warnings) != 1 {
						t.Fatalf("warnings %q, want one", warnings)
					}
					for _, want := range tc.warning {
						if !strings.Contains(warnings[0], want) {
							t.Errorf("warning lacks %q: %s", want, warnings[0])
						}
					}
				})
			}
			// One table shrunk: the range found and only that table named.
			if _, err := conn.Exec(testCtx(t), "DELETE FROM sbtest2 WHERE id > 600"); err != nil {
				t.Fatal(err)
			}
			found, differs, warnings := inspect(t, prepareArgs...)
			if found != "600..1000" || !differs || len(warnings) != 1 || !strings.Contains(warnings[0], "600 in sbtest2") || strings.Contains(warnings[0], "sbtest1") {
				t.Errorf("after shrinking sbtest2: found %q differs %v warnings %q", found, differs, warnings)
			}
		})
	}
}

func TestSizeReportNamesAFewTables(t *testing.T) {
	w := parse(t, readWrite, "--tables=8", "--table-size=100")
	var maxes []tableMax
	for n := 1; n <= 8; n++ {
		maxes = append(maxes, tableMax{tableName(n), 50})
	}
	rep := w.sizeReport(100, maxes)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "50 in sbtest5 and 3 more tables") || strings.Contains(rep.Warnings[0], "sbtest6") {
		t.Fatalf("warnings %q", rep.Warnings)
	}
	if c := rep.Checks[0]; c.Found != "50" || c.Asked != "100" || c.Source != "MAX(id) of sbtest1..sbtest8" {
		t.Fatalf("check %+v", c)
	}
}

// TestInspectSkipsInsertWithClientIDs: oltp_insert --auto-inc=off starts from
// empty tables by design, so --table-size describes no loaded data.
func TestInspectSkipsInsertWithClientIDs(t *testing.T) {
	w := parse(t, insert, "--auto-inc=off", "--tables=1", "--table-size=1000")
	db := openTarget(t, testdb.SQLite(t))
	if _, _, err := prepareWith(t, w, db, 1, false); err != nil {
		t.Fatal(err)
	}
	rep, err := w.Inspect(testCtx(t), connect(t, db), db.Dialect())
	if err != nil || len(rep.Checks)+len(rep.Warnings) != 0 {
		t.Fatalf("Inspect: %+v, %v; want nothing checked", rep, err)
	}
}

// TestIgnoredOptions pins which per-event options each workload ignores (and
// so names when given): those its sysbench script never reads.
func TestIgnoredOptions(t *testing.T) {
	all := []string{"point-selects", "range-selects", "range-size", "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges",
		"index-updates", "non-index-updates", "delete-inserts", "skip-trx"}
	used := map[kind][]string{
		pointSelect:    nil,
		readOnly:       {"point-selects", "range-selects", "range-size", "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges", "skip-trx"},
		readWrite:      all,
		writeOnly:      {"index-updates", "non-index-updates", "delete-inserts", "skip-trx"},
		updateIndex:    {"index-updates"},
		updateNonIndex: {"non-index-updates"},
		insert:         nil,
		deleteRows:     nil,
	}
	for _, k := range kinds() {
		unused := parse(t, k).IgnoredOptions()
		for _, name := range all {
			_, ignored := unused[name]
			if isUsed := slices.Contains(used[k], name); ignored == isUsed {
				t.Errorf("%s: --%s unused %v, want %v", k.name(), name, ignored, !isUsed)
			}
		}
		for _, name := range []string{"tables", "table-size", "auto-inc", "secondary", "create-secondary", "mysql-storage-engine"} {
			if _, ignored := unused[name]; ignored {
				t.Errorf("%s: --%s said to be ignored, but it shapes the data", k.name(), name)
			}
		}
	}
}
