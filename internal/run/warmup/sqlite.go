package warmup

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// sqliteScan reads each table's B-tree with count(*) and each index with a scan
// forced onto it, so that the operating system caches the database file's pages.
type sqliteScan struct{}

func (sqliteScan) name() string { return MethodFullScan }

func (sqliteScan) table(ctx context.Context, conn driver.Conn, table string) (TableReport, error) {
	var (
		rep TableReport
		err error
	)
	qt := quoteIdent(table, '"')
	if rep.Rows, err = queryInt(ctx, conn, "SELECT count(*) FROM "+qt+" NOT INDEXED"); err != nil {
		return rep, err
	}
	// The first column of each index; the rowid "index" of the primary key is the table itself.
	indexes, err := conn.QueryStrings(ctx, "SELECT il.name, coalesce(ii.name, ''), il.partial"+
		" FROM pragma_index_list(?) il JOIN pragma_index_info(il.name) ii ON ii.seqno = 0"+
		" WHERE il.origin <> 'pk' ORDER BY il.name", table)
	if err != nil {
		return rep, fmt.Errorf("list indexes: %w", err)
	}
	for _, ix := range indexes {
		switch {
		case len(ix) != 3:
			return rep, fmt.Errorf("list indexes: unexpected row %q", ix)
		case ix[1] == "":
			rep.Skipped = append(rep.Skipped, ix[0]+": an expression index")
			continue
		case ix[2] != "0":
			rep.Skipped = append(rep.Skipped, ix[0]+": a partial index")
			continue
		}
		if _, err := queryInt(ctx, conn, sqliteIndexScan(table, ix[0], ix[1])); err != nil {
			return rep, fmt.Errorf("index %s: %w", ix[0], err)
		}
		rep.Indexes++
	}
	return rep, nil
}

// sqliteIndexScan reads all of index ix, whose first column is col. count(col)
// rather than count(*), which SQLite would answer from the smallest index.
func sqliteIndexScan(table, ix, col string) string {
	return "SELECT count(" + quoteIdent(col, '"') + ") FROM " + quoteIdent(table, '"') + " INDEXED BY " + quoteIdent(ix, '"')
}
