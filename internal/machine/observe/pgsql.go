package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// pgDatabaseCounters are the pg_stat_database columns kept, for the current database.
func pgDatabaseCounters() []string {
	return []string{
		"blks_read", "blks_hit", "tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted",
		"xact_commit", "xact_rollback", "temp_files", "temp_bytes", "deadlocks", "blk_read_time", "blk_write_time",
	}
}

// pgBgwriterCounters are the pg_stat_bgwriter columns kept. PostgreSQL 17 moved the
// checkpoint columns to pg_stat_checkpointer (below) and dropped buffers_backend.
func pgBgwriterCounters() []string {
	return []string{
		"buffers_checkpoint", "buffers_clean", "buffers_backend", "buffers_backend_fsync", "buffers_alloc",
		"maxwritten_clean", "checkpoints_timed", "checkpoints_req", "checkpoint_write_time", "checkpoint_sync_time",
	}
}

// pgCheckpointerCounters are the pg_stat_checkpointer columns kept (PostgreSQL 17+).
func pgCheckpointerCounters() []string {
	return []string{"num_timed", "num_requested", "buffers_written", "write_time", "sync_time"}
}

// pgWALCounters are the pg_stat_wal columns kept (PostgreSQL 14+; 18 moved
// the write and sync columns to pg_stat_io, and they are then absent). Its
// wal_bytes is left out: the WAL written is pgWALBytes.
func pgWALCounters() []string {
	return []string{"wal_records", "wal_fpi", "wal_buffers_full", "wal_write", "wal_sync", "wal_write_time", "wal_sync_time"}
}

// pgWALBytes is the counter name of the WAL position, whose delta is WAL written.
const pgWALBytes = "wal_bytes"

// pgProbe reads a PostgreSQL-protocol server. It learns at the first snapshot
// what the server has (block size, pg_stat_checkpointer, WAL position).
type pgProbe struct {
	ready        bool
	blockSize    int64
	checkpointer bool
	wal          bool // pg_stat_wal exists (PostgreSQL 14+)
	walTiming    bool // track_wal_io_timing is on: wal_sync_time counts
	sources      []string
}

func (p *pgProbe) source() string {
	if len(p.sources) == 0 {
		return "pg_stat_database, pg_stat_bgwriter"
	}
	return strings.Join(p.sources, ", ")
}

// setup learns the block size and which statistics views the server has.
func (p *pgProbe) setup(ctx context.Context, conn driver.Conn) {
	p.ready = true
	p.blockSize = 8192
	if rows, err := conn.QueryStrings(ctx, "SELECT current_setting('block_size')"); err == nil && len(rows) == 1 && len(rows[0]) == 1 {
		if n, err := strconv.ParseInt(rows[0][0], 10, 64); err == nil && n > 0 {
			p.blockSize = n
		}
	}
	p.checkpointer = queryTrue(ctx, conn, "SELECT to_regclass('pg_catalog.pg_stat_checkpointer') IS NOT NULL")
	p.wal = queryTrue(ctx, conn, "SELECT to_regclass('pg_catalog.pg_stat_wal') IS NOT NULL")
	p.walTiming = p.wal && queryTrue(ctx, conn, "SELECT current_setting('track_wal_io_timing', true) = 'on'")
}

// queryTrue runs a query of one boolean and reports whether it returned true.
func queryTrue(ctx context.Context, conn driver.Conn, query string) bool {
	rows, err := conn.QueryStrings(ctx, query)
	return err == nil && len(rows) == 1 && len(rows[0]) == 1 && (rows[0][0] == "t" || rows[0][0] == "true")
}

func (p *pgProbe) snapshot(ctx context.Context, conn driver.Conn) (map[string]int64, error) {
	if !p.ready {
		p.setup(ctx, conn)
	}
	snap := map[string]int64{}
	var errs []error
	read := func(view, query string, names []string) {
		if err := readJSONRow(ctx, conn, query, names, snap); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", view, err))
			return
		}
		p.addSource(view)
	}
	read("pg_stat_database", "SELECT row_to_json(d)::text FROM pg_stat_database d WHERE d.datname = current_database()", pgDatabaseCounters())
	read("pg_stat_bgwriter", "SELECT row_to_json(b)::text FROM pg_stat_bgwriter b", pgBgwriterCounters())
	if p.checkpointer {
		read("pg_stat_checkpointer", "SELECT row_to_json(c)::text FROM pg_stat_checkpointer c", pgCheckpointerCounters())
	}
	if p.wal {
		read("pg_stat_wal", "SELECT row_to_json(w)::text FROM pg_stat_wal w", pgWALCounters())
	}
	if rows, err := conn.QueryStrings(ctx, "SELECT pg_current_wal_lsn()::text"); err != nil {
		errs = append(errs, fmt.Errorf("pg_current_wal_lsn(): %w", err))
	} else if len(rows) != 1 || len(rows[0]) != 1 {
		errs = append(errs, errors.New("pg_current_wal_lsn(): no row"))
	} else if lsn, err := parseLSN(rows[0][0]); err != nil {
		errs = append(errs, err)
	} else {
		snap[pgWALBytes] = lsn
		p.addSource("pg_current_wal_lsn()")
	}
	if len(snap) == 0 {
		return nil, errors.Join(errs...)
	}
	return snap, errors.Join(errs...)
}

func (p *pgProbe) addSource(s string) {
	for _, have := range p.sources {
		if have == s {
			return
		}
	}
	p.sources = append(p.sources, s)
}

// readJSONRow runs a query returning one row_to_json text and stores the wanted
// numeric columns into snap (milliseconds columns rounded).
func readJSONRow(ctx context.Context, conn driver.Conn, query string, names []string, snap map[string]int64) error {
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil {
		return err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return fmt.Errorf("%d rows, want 1", len(rows))
	}
	dec := json.NewDecoder(strings.NewReader(rows[0][0]))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf("decode %q: %w", rows[0][0], err)
	}
	for _, name := range names {
		num, ok := obj[name].(json.Number)
		if !ok {
			continue
		}
		if n, err := num.Int64(); err == nil {
			snap[name] = n
		} else if f, err := num.Float64(); err == nil {
			snap[name] = int64(math.Round(f))
		}
	}
	return nil
}

// parseLSN turns a PostgreSQL WAL position "16/B374D848" into a byte offset.
func parseLSN(s string) (int64, error) {
	hi, lo, ok := strings.Cut(strings.TrimSpace(s), "/")
	if ok {
		h, err1 := strconv.ParseUint(hi, 16, 32)
		l, err2 := strconv.ParseUint(lo, 16, 32)
		if err1 == nil && err2 == nil {
			return int64(h<<32 | l), nil
		}
	}
	return 0, fmt.Errorf("pg_current_wal_lsn(): %q is not a WAL position", s)
}

func (*pgProbe) gauges(ctx context.Context, conn driver.Conn) (map[string]float64, error) {
	const query = "SELECT count(*) FILTER (WHERE state = 'active')," +
		" count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'IO')," +
		" count(*) FILTER (WHERE state = 'active' AND wait_event_type IN ('Lock', 'LWLock'))" +
		" FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
	rows, err := conn.QueryStrings(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_activity: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 3 {
		return nil, errors.New("pg_stat_activity: unexpected result")
	}
	g := map[string]float64{}
	for i, name := range []string{"active_backends", "active_backends_waiting_io", "active_backends_waiting_lock"} {
		n, err := strconv.ParseFloat(rows[0][i], 64)
		if err != nil {
			return nil, fmt.Errorf("pg_stat_activity: %s is %q, not a number", name, rows[0][i])
		}
		g[name] = n
	}
	return g, nil
}

func (p *pgProbe) derive(s *result.ObservedServer, seconds float64) {
	c := counters(s.Counters)
	if hits, ok := c.get("blks_hit"); ok {
		if reads, ok := c.get("blks_read"); ok && hits+reads > 0 {
			s.BufferPoolHitPct = ptr(100 * float64(hits) / float64(hits+reads))
		}
	}
	s.DiskReadsPerSec = c.rate(seconds, "blks_read")
	s.LogBytesPerSec = c.rate(seconds, pgWALBytes)
	s.LogFlushesPerSec = c.rate(seconds, "wal_sync")
	if ms, ok := c.get("wal_sync_time"); ok && p.walTiming && seconds > 0 {
		s.LogFlushTimePct = ptr(100 * float64(ms) / 1000 / seconds)
	}
	s.RowsReadPerSec = c.rate(seconds, "tup_returned")
	s.RowsChangedPerSec = c.rate(seconds, "tup_inserted", "tup_updated", "tup_deleted")
	// Buffers written: by checkpoints (buffers_checkpoint, or buffers_written from
	// PostgreSQL 17), by the background writer and, where counted, by backends.
	checkpoint, ok := c.get("buffers_checkpoint")
	if !ok {
		checkpoint, ok = c.get("buffers_written")
	}
	if clean, ok2 := c.get("buffers_clean"); ok && ok2 && seconds > 0 {
		backend, _ := c.get("buffers_backend")
		s.BytesWrittenPerSec = ptr(float64((checkpoint+clean+backend)*p.blockSize) / seconds)
	}
}
