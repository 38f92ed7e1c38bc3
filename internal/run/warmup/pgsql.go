package warmup

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// pgPrewarmSchema returns the schema of the pg_prewarm extension, installing the
// extension first when it is not installed in the database yet.
func pgPrewarmSchema(ctx context.Context, conn driver.Conn) (string, error) {
	const query = "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_prewarm'"
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_prewarm"); err != nil {
			return "", err
		}
		if rows, err = conn.QueryStrings(ctx, query); err != nil {
			return "", err
		}
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return "", fmt.Errorf("pg_prewarm: extension not found after CREATE EXTENSION")
	}
	return rows[0][0], nil
}

// pgPrewarm loads each table and its indexes into shared buffers with pg_prewarm
// (of every leaf partition, for a partitioned table) and then counts the rows.
type pgPrewarm struct {
	schema string // where the extension lives
}

func (pgPrewarm) name() string { return MethodPrewarm }

func (p pgPrewarm) table(ctx context.Context, conn driver.Conn, table string) (TableReport, error) {
	var rep TableReport
	fn := quoteIdent(p.schema, '"') + ".pg_prewarm"
	qt := quoteIdent(table, '"')
	// The relations with storage: the table itself, or the leaf partitions of a partitioned one.
	query := "WITH rels AS (SELECT c.oid AS relid FROM pg_class c WHERE c.relkind IN ('r', 'm')" +
		" AND (c.oid = CAST(? AS regclass) OR c.oid IN (SELECT relid FROM pg_partition_tree(CAST(? AS regclass)))))" +
		" SELECT (SELECT coalesce(sum(" + fn + "(relid)), 0) FROM rels)" +
		" + (SELECT coalesce(sum(" + fn + "(i.indexrelid)), 0) FROM pg_index i WHERE i.indrelid IN (SELECT relid FROM rels))," +
		" (SELECT count(*) FROM pg_index i WHERE i.indrelid = CAST(? AS regclass))"
	rows, err := conn.QueryStrings(ctx, query, qt, qt, qt)
	if err != nil {
		return rep, fmt.Errorf("pg_prewarm: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 2 {
		return rep, fmt.Errorf("pg_prewarm: unexpected result %q", rows)
	}
	if _, err := fmt.Sscan(rows[0][0], &rep.Blocks); err != nil {
		return rep, fmt.Errorf("pg_prewarm: blocks %q: %w", rows[0][0], err)
	}
	if _, err := fmt.Sscan(rows[0][1], &rep.Indexes); err != nil {
		return rep, fmt.Errorf("pg_prewarm: indexes %q: %w", rows[0][1], err)
	}
	rep.Rows, err = queryInt(ctx, conn, "SELECT count(*) FROM "+qt)
	return rep, err
}

// pgScan reads each table with a sequential count(*) and each plain B-tree index
// with an ordered index(-only) scan over its key columns.
type pgScan struct{}

func (pgScan) name() string { return MethodFullScan }

// pgSeqScanSettings and pgIndexScanSettings steer the planner of the warm-up's own
// connection to the scan wanted (session settings; the connection is closed after).
const (
	pgSeqScanSettings = "SELECT set_config('enable_seqscan', 'on', false), set_config('enable_indexscan', 'off', false)," +
		" set_config('enable_indexonlyscan', 'off', false), set_config('enable_bitmapscan', 'off', false)"
	pgIndexScanSettings = "SELECT set_config('enable_seqscan', 'off', false), set_config('enable_indexscan', 'on', false)," +
		" set_config('enable_indexonlyscan', 'on', false), set_config('enable_bitmapscan', 'off', false)," +
		" set_config('enable_sort', 'off', false)"
)

func (pgScan) table(ctx context.Context, conn driver.Conn, table string) (TableReport, error) {
	var rep TableReport
	qt := quoteIdent(table, '"')
	if _, err := conn.QueryStrings(ctx, pgSeqScanSettings); err != nil {
		return rep, fmt.Errorf("planner settings: %w", err)
	}
	var err error
	if rep.Rows, err = queryInt(ctx, conn, "SELECT count(*) FROM "+qt); err != nil {
		return rep, err
	}
	indexes, err := pgIndexes(ctx, conn, qt)
	if err != nil {
		return rep, err
	}
	if len(indexes) == 0 {
		return rep, nil
	}
	if _, err := conn.QueryStrings(ctx, pgIndexScanSettings); err != nil {
		return rep, fmt.Errorf("planner settings: %w", err)
	}
	for _, ix := range indexes {
		if !ix.plain {
			rep.Skipped = append(rep.Skipped, ix.name+": not a plain B-tree index")
			continue
		}
		if _, err := queryInt(ctx, conn, pgIndexScan(qt, ix.keys)); err != nil {
			return rep, fmt.Errorf("index %s: %w", ix.name, err)
		}
		rep.Indexes++
	}
	return rep, nil
}

// pgIndex is one index of a table as the full-scan warm-up needs it.
type pgIndex struct {
	name  string
	plain bool   // a B-tree on columns, without expressions or a predicate
	keys  string // the key columns, quoted, comma-separated
}

// pgIndexes lists the indexes of the table (quoted name qt).
func pgIndexes(ctx context.Context, conn driver.Conn, qt string) ([]pgIndex, error) {
	rows, err := conn.QueryStrings(ctx, "SELECT c.relname, am.amname = 'btree' AND i.indexprs IS NULL AND i.indpred IS NULL,"+
		" array_to_string(ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k ORDER BY k), ', ')"+
		" FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam"+
		" WHERE i.indrelid = CAST(? AS regclass) ORDER BY c.relname", qt)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	out := make([]pgIndex, 0, len(rows))
	for _, r := range rows {
		if len(r) != 3 {
			return nil, fmt.Errorf("list indexes: unexpected row %q", r)
		}
		out = append(out, pgIndex{name: r[0], plain: r[1] == "t" || r[1] == "true", keys: r[2]})
	}
	return out, nil
}

// pgIndexScan reads a whole index in key order (with pgIndexScanSettings the
// planner can only do it by scanning an index). Where the keys of one index are
// a prefix of another's, the planner may read the other one instead: PostgreSQL
// has no way to name the index a query must use.
func pgIndexScan(qt, keys string) string {
	return "SELECT count(*) FROM (SELECT " + keys + " FROM " + qt + " ORDER BY " + keys + ") s"
}
