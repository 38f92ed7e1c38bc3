package sysinfo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// detectTimeout bounds the metadata queries, so that fingerprinting a slow server
// cannot hold up a run.
const detectTimeout = 10 * time.Second

// DetectServer fingerprints the server behind conn, a connection of the driver kind
// ("mysql", "pgsql" or "sqlite"). It uses only small metadata queries and never
// fails: what could not be read is described in Server.Note.
func DetectServer(ctx context.Context, kind string, conn driver.Conn) result.Server {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	var (
		s     result.Server
		notes notes
	)
	switch {
	case conn == nil:
		notes.add(fmt.Errorf("no connection to the %s server", kind))
	case kind == driver.KindMySQL:
		s = detectMySQL(ctx, conn, &notes)
	case kind == driver.KindPgSQL:
		s = detectPgSQL(ctx, conn, &notes)
	case kind == driver.KindSQLite:
		s = detectSQLite(ctx, conn, &notes)
	default:
		notes.add(fmt.Errorf("unknown driver kind %q", kind))
	}
	if len(s.Variables) == 0 {
		s.Variables = nil
	}
	s.Note = notes.String()
	return s
}

// notes collects what went wrong while fingerprinting.
type notes []string

func (n *notes) add(err error) { *n = append(*n, err.Error()) }

func (n notes) String() string { return strings.Join(n, "; ") }

// queryRow runs a query expected to return one row and returns it.
func queryRow(ctx context.Context, conn driver.Conn, query string) ([]string, error) {
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no row", query)
	}
	return rows[0], nil
}
