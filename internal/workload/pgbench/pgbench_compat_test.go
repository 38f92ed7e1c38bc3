package pgbench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// pgbenchInitBinary is real pgbench, which the comparison runs.
const pgbenchInitBinary = "/usr/bin/pgbench"

// runPgbench runs real pgbench -i with args against cfg's database.
func runPgbenchInit(t *testing.T, cfg driver.Config, args ...string) string {
	t.Helper()
	host, port := cfg.Endpoint(0)
	all := append([]string{"-i", "-h", host, "-p", strconv.Itoa(port), "-U", cfg.User}, args...)
	cmd := exec.CommandContext(initTestCtx(t), pgbenchInitBinary, append(all, cfg.Database)...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+cfg.Password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %s: %v\n%s", strings.Join(all, " "), err, out)
	}
	return string(out)
}

// pgCatalog describes the pgbench tables of the connection's schema: columns
// (order, type, length, nullability), relations (kind, persistence, storage
// options, partition bounds), indexes and constraints with their definitions.
func pgCatalog(t *testing.T, c driver.Conn) map[string][][]string {
	t.Helper()
	qs := map[string]string{
		"columns": "SELECT table_name, ordinal_position, column_name, data_type, coalesce(character_maximum_length, 0), is_nullable" +
			" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name LIKE 'pgbench%' ORDER BY 1, 2",
		"relations": "SELECT relname, relkind, relpersistence, coalesce(array_to_string(reloptions, ','), ''), coalesce(pg_get_expr(relpartbound, oid), '')" +
			" FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname LIKE 'pgbench%' ORDER BY 1",
		"indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2",
		"constraints": "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint" +
			" WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2",
		"partitioning": "SELECT c.relname, p.partstrat::text, pg_get_partkeydef(c.oid) FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid ORDER BY 1",
	}
	out := map[string][][]string{}
	for name, q := range qs {
		out[name] = queryRows(t, c, q)
	}
	return out
}

// TestSchemaMatchesPgbench initializes one scratch database with real
// pgbench -i and another with Init, with the same options, and compares
// their catalogs and data.
func TestSchemaMatchesPgbench(t *testing.T) {
	testdb.SkipShort(t, "PostgreSQL and pgbench")
	if _, err := os.Stat(pgbenchInitBinary); err != nil {
		t.Skipf("needs real pgbench at %s: %v", pgbenchInitBinary, err)
	}
	cases := []struct {
		args []string
		edit func(*InitOptions)
	}{
		{[]string{"-s", "1"}, func(*InitOptions) {}},
		{[]string{"-s", "2", "-F", "90", "--partitions=3", "--foreign-keys"}, func(o *InitOptions) {
			o.Scale, o.FillFactor, o.Partitions, o.ForeignKeys = 2, 90, 3, true
		}},
		{[]string{"-s", "1", "-I", "dtGvpf", "--partitions=2", "--partition-method=hash", "--unlogged-tables"}, func(o *InitOptions) {
			o.Steps, o.Partitions, o.PartitionMethod, o.Unlogged = "dtGvpf", 2, "hash", true
		}},
		// PostgreSQL refuses pg_default on a partitioned table, for pgbench as for Init.
		{[]string{"-s", "1", "--tablespace=pg_default", "--index-tablespace=pg_default"}, func(o *InitOptions) {
			o.Tablespace, o.IndexTablespace = "pg_default", "pg_default"
		}},
		{[]string{"-s", "1", "-I", "dtg", "-q"}, func(o *InitOptions) { o.Steps, o.Quiet = "dtg", true }},
	}
	real, ours := testdb.PgSQL(t), testdb.PgSQL(t)
	realDB, oursDB := openInitTarget(t, real), openInitTarget(t, ours)
	realConn, oursConn := connectInit(t, realDB), connectInit(t, oursDB)
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			runPgbenchInit(t, real, tc.args...)
			opts := DefaultInitOptions()
			tc.edit(&opts)
			mustInit(t, oursDB, opts)
			want, got := pgCatalog(t, realConn), pgCatalog(t, oursConn)
			for name := range want {
				if fmt.Sprint(got[name]) != fmt.Sprint(want[name]) {
					t.Errorf("%s differ:\nfairbench: %v\npgbench:   %v", name, got[name], want[name])
				}
			}
			d := realDB.Dialect()
			if w, g := dataFingerprint(t, realConn, d), dataFingerprint(t, oursConn, d); fmt.Sprint(w) != fmt.Sprint(g) {
				t.Errorf("data differ:\nfairbench: %v\npgbench:   %v", g, w)
			}
		})
	}
}
