package warmup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// fixture is a database with tables "wa" (300 rows, index wa_k) and "wb"
// (200 rows, indexes wb_ck and wb_k).
type fixture struct {
	drv    driver.Driver
	conn   driver.Conn
	server result.Server
}

func newFixture(t *testing.T, cfg driver.Config) fixture {
	t.Helper()
	ctx := context.Background()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { drv.Close() })
	conn, err := drv.Connect(ctx, 0)
	if err != nil {
		t.Fatalf("connect %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { conn.Close() })
	stmts := []string{
		"CREATE TABLE wa (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, c VARCHAR(20) NOT NULL)",
		"CREATE INDEX wa_k ON wa (k)",
		"CREATE TABLE wb (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, c VARCHAR(20) NOT NULL)",
		"CREATE INDEX wb_k ON wb (k)",
		"CREATE INDEX wb_ck ON wb (c, k)",
		insert("wa", 300),
		insert("wb", 200),
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%.60s: %v", s, err)
		}
	}
	return fixture{drv: drv, conn: conn, server: sysinfo.DetectServer(ctx, cfg.Kind, conn)}
}

func insert(table string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (id, k, c) VALUES ", table)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d, %d, 'row %d')", i, i%17, i)
	}
	return b.String()
}

// check runs the warm-up over both tables on two connections and checks the report and log.
func check(t *testing.T, f fixture, opt options, method string, wantIndexes map[string]int) Report {
	t.Helper()
	var log bytes.Buffer
	rep, err := run(context.Background(), f.drv, f.server, []string{"wa", "wb"}, 2, &log, nil, opt)
	if err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	if rep.Method != method || rep.Tables != 2 || rep.Rows != 500 || len(rep.PerTable) != 2 {
		t.Errorf("report = %s (%d per-table entries); want %s over 2 tables, 500 rows", rep, len(rep.PerTable), method)
	}
	for i, want := range []struct {
		table string
		rows  int64
	}{{"wa", 300}, {"wb", 200}} {
		if i >= len(rep.PerTable) {
			break
		}
		got := rep.PerTable[i]
		if got.Table != want.table || got.Rows != want.rows || got.Indexes != wantIndexes[want.table] || len(got.Skipped) != 0 {
			t.Errorf("PerTable[%d] = %+v, want %s with %d rows and %d indexes read", i, got, want.table, want.rows, wantIndexes[want.table])
		}
	}
	for _, re := range []string{`(?m)^wa: 300 rows in \d+\.\d\ds$`, `(?m)^wb: 200 rows in \d+\.\d\ds$`,
		`(?m)^warm-up by ` + regexp.QuoteMeta(method) + `: 2 tables, 500 rows in \d+\.\d\ds$`} {
		if !regexp.MustCompile(re).MatchString(log.String()) {
			t.Errorf("log lacks %s:\n%s", re, log.String())
		}
	}
	return rep
}

func TestMySQL(t *testing.T) {
	f := newFixture(t, testdb.MySQL(t))
	rep := check(t, f, options{}, MethodChecksum, map[string]int{"wa": 1, "wb": 2})
	for _, tr := range rep.PerTable {
		if tr.Checksum == "" || tr.Checksum == "0" {
			t.Errorf("%s: checksum %q, want one", tr.Table, tr.Checksum)
		}
	}
	// The COUNT(*) reads the index it is forced onto.
	rows, err := f.conn.QueryStrings(context.Background(), "EXPLAIN "+mysqlIndexScan("wb", "wb_ck"))
	if err != nil || len(rows) != 1 || !strings.Contains(strings.Join(rows[0], " "), "wb_ck") {
		t.Errorf("EXPLAIN index scan = %q, %v; want it to use wb_ck", rows, err)
	}
}

func TestPgSQLPrewarm(t *testing.T) {
	f := newFixture(t, testdb.PgSQL(t))
	// Indexes: the primary key's and the secondary ones.
	rep := check(t, f, options{}, MethodPrewarm, map[string]int{"wa": 2, "wb": 3})
	for _, tr := range rep.PerTable {
		if tr.Blocks < 2 {
			t.Errorf("%s: %d blocks prewarmed, want table and indexes", tr.Table, tr.Blocks)
		}
	}
}

func TestPgSQLFullScan(t *testing.T) {
	f := newFixture(t, testdb.PgSQL(t))
	check(t, f, options{noPrewarm: true}, MethodFullScan, map[string]int{"wa": 2, "wb": 3})
	// Under the index-scan settings the ordered scan can only read the index.
	ctx := context.Background()
	if _, err := f.conn.QueryStrings(ctx, pgIndexScanSettings); err != nil {
		t.Fatal(err)
	}
	indexes, err := pgIndexes(ctx, f.conn, `"wb"`)
	if err != nil || len(indexes) != 3 {
		t.Fatalf("pgIndexes = %+v, %v; want 3", indexes, err)
	}
	for _, ix := range indexes {
		rows, err := f.conn.QueryStrings(ctx, "EXPLAIN "+pgIndexScan(`"wb"`, ix.keys))
		if err != nil || !strings.Contains(fmt.Sprint(rows), "Index Only Scan using "+ix.name+" ") {
			t.Errorf("EXPLAIN scan of %s (%s) = %q, %v; want an index-only scan of it", ix.name, ix.keys, rows, err)
		}
	}
}

func TestPgSQLPartitioned(t *testing.T) {
	f := newFixture(t, testdb.PgSQL(t))
	ctx := context.Background()
	for _, s := range []string{
		"CREATE TABLE wp (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, c VARCHAR(20) NOT NULL) PARTITION BY HASH (id)",
		"CREATE TABLE wp_0 PARTITION OF wp FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
		"CREATE TABLE wp_1 PARTITION OF wp FOR VALUES WITH (MODULUS 2, REMAINDER 1)",
		"CREATE INDEX wp_k ON wp (k)",
		insert("wp", 100),
	} {
		if _, err := f.conn.Exec(ctx, s); err != nil {
			t.Fatalf("%.60s: %v", s, err)
		}
	}
	for _, opt := range []options{{}, {noPrewarm: true}} {
		rep, err := run(ctx, f.drv, f.server, []string{"wp"}, 1, nil, nil, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		tr := rep.PerTable[0]
		if tr.Rows != 100 || tr.Indexes != 2 || (!opt.noPrewarm && tr.Blocks < 4) {
			t.Errorf("%s: %+v, want 100 rows, 2 indexes (and with pg_prewarm the blocks of both partitions and their indexes)", rep.Method, tr)
		}
	}
}

func TestPgSQLFullScanSkipsExpressionIndex(t *testing.T) {
	f := newFixture(t, testdb.PgSQL(t))
	if _, err := f.conn.Exec(context.Background(), "CREATE INDEX wa_lower ON wa (lower(c))"); err != nil {
		t.Fatal(err)
	}
	rep, err := run(context.Background(), f.drv, f.server, []string{"wa"}, 1, nil, nil, options{noPrewarm: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.PerTable[0]; tr.Indexes != 2 || len(tr.Skipped) != 1 || !strings.HasPrefix(tr.Skipped[0], "wa_lower:") {
		t.Errorf("PerTable[0] = %+v, want 2 indexes read and wa_lower skipped", tr)
	}
}

func TestSQLite(t *testing.T) {
	f := newFixture(t, testdb.SQLite(t))
	check(t, f, options{}, MethodFullScan, map[string]int{"wa": 1, "wb": 2})
	for _, ix := range [][2]string{{"wb_k", "k"}, {"wb_ck", "c"}} {
		rows, err := f.conn.QueryStrings(context.Background(), "EXPLAIN QUERY PLAN "+sqliteIndexScan("wb", ix[0], ix[1]))
		if err != nil || !strings.Contains(fmt.Sprint(rows), "COVERING INDEX "+ix[0]+"]") {
			t.Errorf("plan of the %s scan = %q, %v; want a scan of it", ix[0], rows, err)
		}
	}
}

func TestMissingTable(t *testing.T) {
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t, cfg)
			for _, tc := range []struct {
				tables []string
				want   string
			}{
				{[]string{"wa", "sbtest3"}, "sbtest3 is not in the database: run 'fairbench prepare' first"},
				{[]string{"sbtest3", "wb", "sbtest4"}, "sbtest3, sbtest4 are not in the database: run 'fairbench prepare' first"},
			} {
				var log bytes.Buffer
				_, err := Run(context.Background(), f.drv, f.server, tc.tables, 4, &log, nil)
				if !errors.Is(err, driver.ErrTableMissing) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Run(%v) error = %v, want ErrTableMissing saying %q", tc.tables, err, tc.want)
				}
				if log.Len() != 0 {
					t.Errorf("log = %q, want nothing before the check", log.String())
				}
			}
		})
	}
}

func TestTableNameCase(t *testing.T) {
	f := newFixture(t, testdb.SQLite(t))
	rep, err := Run(context.Background(), f.drv, f.server, []string{"WA"}, 1, nil, nil)
	if err != nil || rep.PerTable[0].Table != "wa" || rep.Rows != 300 {
		t.Errorf("Run(WA) = %+v, %v; want table wa with 300 rows", rep, err)
	}
}

func TestReportString(t *testing.T) {
	r := Report{Method: MethodFullScan, Tables: 3, Rows: 1500, Duration: 2_346_000_000, Note: "pg_prewarm unavailable"}
	if got, want := r.String(), "warm-up by full scan: 3 tables, 1500 rows in 2.35s (pg_prewarm unavailable)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestQuoteIdent(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    byte
		want string
	}{{"sbtest1", '`', "`sbtest1`"}, {"a`b", '`', "`a``b`"}, {`a"b`, '"', `"a""b"`}} {
		if got := quoteIdent(tc.name, tc.q); got != tc.want {
			t.Errorf("quoteIdent(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}
