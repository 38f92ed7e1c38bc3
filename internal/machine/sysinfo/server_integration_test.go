package sysinfo_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// detect opens cfg with its real driver and fingerprints the server.
func detect(t *testing.T, cfg driver.Config) result.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatalf("open %s driver: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { drv.Close() })
	conn, err := drv.Connect(ctx, 0)
	if err != nil {
		t.Fatalf("connect %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { conn.Close() })
	return sysinfo.DetectServer(ctx, cfg.Kind, conn)
}

func TestDetectServerMariaDB(t *testing.T) {
	s := detect(t, testdb.MySQL(t))
	if s.Note != "" {
		t.Errorf("Note = %q, want none", s.Note)
	}
	if s.Flavor != "MariaDB" || !strings.Contains(s.Version, "MariaDB") {
		t.Errorf("Flavor, Version = %q, %q; want MariaDB", s.Flavor, s.Version)
	}
	if n, err := strconv.ParseInt(s.Variables["innodb_buffer_pool_size"], 10, 64); err != nil || n <= 0 {
		t.Errorf("innodb_buffer_pool_size = %q, want a positive size", s.Variables["innodb_buffer_pool_size"])
	}
	for _, name := range []string{"max_connections", "innodb_flush_log_at_trx_commit", "log_bin", "version_compile_machine"} {
		if s.Variables[name] == "" {
			t.Errorf("variable %s missing from %v", name, s.Variables)
		}
	}
	if _, ok := s.Variables["autocommit"]; ok {
		t.Errorf("unwanted variable autocommit recorded")
	}
}

func TestDetectServerPostgreSQL(t *testing.T) {
	s := detect(t, testdb.PgSQL(t))
	if s.Note != "" {
		t.Errorf("Note = %q, want none", s.Note)
	}
	if s.Flavor != "PostgreSQL" || !strings.HasPrefix(s.VersionComment, "PostgreSQL ") || s.Version == "" {
		t.Errorf("Flavor, Version, VersionComment = %q, %q, %q", s.Flavor, s.Version, s.VersionComment)
	}
	if s.Variables["shared_buffers"] == "" {
		t.Errorf("shared_buffers missing from %v", s.Variables)
	}
	if n, err := strconv.ParseInt(s.Variables["shared_buffers_bytes"], 10, 64); err != nil || n < 128*1024 {
		t.Errorf("shared_buffers_bytes = %q, want a size in bytes", s.Variables["shared_buffers_bytes"])
	}
	for _, name := range []string{"fsync", "synchronous_commit", "max_connections", "wal_level"} {
		if s.Variables[name] == "" {
			t.Errorf("setting %s missing from %v", name, s.Variables)
		}
	}
}

func TestDetectServerSQLite(t *testing.T) {
	s := detect(t, testdb.SQLite(t))
	if s.Note != "" {
		t.Errorf("Note = %q, want none", s.Note)
	}
	if s.Flavor != "SQLite" || !strings.HasPrefix(s.Version, "3.") {
		t.Errorf("Flavor, Version = %q, %q; want SQLite 3.x", s.Flavor, s.Version)
	}
	for _, pragma := range []string{"journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout"} {
		if s.Variables[pragma] == "" {
			t.Errorf("pragma %s missing from %v", pragma, s.Variables)
		}
	}
}

func TestDetectServerNeverFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drv, err := open.Driver(testdb.MySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	conn, err := drv.Connect(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// PostgreSQL's queries on a MariaDB connection: some fail, nothing panics.
	s := sysinfo.DetectServer(ctx, driver.KindPgSQL, conn)
	if !strings.Contains(s.Note, "server_version") || !strings.Contains(s.Note, "pg_settings") {
		t.Errorf("DetectServer(pgsql on MariaDB) = %+v, want a Note naming what failed", s)
	}
	if s := sysinfo.DetectServer(ctx, "oracle", conn); !strings.Contains(s.Note, "unknown driver kind") {
		t.Errorf("DetectServer(oracle) Note = %q", s.Note)
	}
}
