// Package testdb gives integration tests a private database on the real MariaDB/MySQL
// and PostgreSQL servers of the machine (or a temporary SQLite file), and drops it
// when the test ends. The servers are reached at 127.0.0.1 with the machine's
// test credentials; FAIRBENCH_TEST_MYSQL_* and FAIRBENCH_TEST_PGSQL_* (HOST, PORT,
// USER, PASSWORD) override them. The project's test script starts the servers.
//
// Under -short (`make unit`, the lane that needs no server) MySQL and PgSQL skip
// the test, and All returns the SQLite target only: see SkipShort. Without -short
// a server that cannot be reached fails the test.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/db/driver"
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func port(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if p, err := strconv.Atoi(v); err == nil {
			return p
		}
	}
	return def
}

// uniqueName returns a database name no other test run uses.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return fmt.Sprintf("fbt_%s_%s", prefix, hex.EncodeToString(b))
}

// SkipShort skips the test under -short, saying that it needs what ("MariaDB",
// "PostgreSQL", "sysbench", "chromium"): `make unit` runs go test -short on a
// machine that may have no database server, container tool or browser. Without
// -short it does nothing, and a test that cannot find what it needs fails.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s (-short)", what)
	}
}

// ShortParallel lets perCPU parallel tests per CPU run at once under -short
// (`make unit`), unless the command line gives -parallel: a package whose
// parallel tests then run on SQLite or against no server, and mostly wait on
// fixed durations rather than compute, calls it from TestMain after
// flag.Parse. Without -short it does nothing: there the parallel tests share
// the machine's servers, and the default (one per CPU) stands.
func ShortParallel(perCPU int) error {
	if !testing.Short() {
		return nil
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return nil
	}
	if err := flag.Set("test.parallel", strconv.Itoa(perCPU*runtime.GOMAXPROCS(0))); err != nil {
		return fmt.Errorf("testdb: set -test.parallel: %w", err)
	}
	return nil
}

// MySQLServer returns a Config for the test MySQL-protocol server without a database.
func MySQLServer() driver.Config {
	return driver.Config{
		Kind:     driver.KindMySQL,
		Hosts:    []string{env("FAIRBENCH_TEST_MYSQL_HOST", "127.0.0.1")},
		Ports:    []int{port("FAIRBENCH_TEST_MYSQL_PORT", 3306)},
		User:     env("FAIRBENCH_TEST_MYSQL_USER", "root"),
		Password: os.Getenv("FAIRBENCH_TEST_MYSQL_PASSWORD"),
		Prepared: true,
	}
}

// MySQLSocket is the test MySQL-protocol server's Unix socket
// (FAIRBENCH_TEST_MYSQL_SOCKET, /run/mysqld/mysqld.sock by default).
func MySQLSocket() string {
	return env("FAIRBENCH_TEST_MYSQL_SOCKET", "/run/mysqld/mysqld.sock")
}

// PgSQLServer returns a Config for the test PostgreSQL server without a database.
func PgSQLServer() driver.Config {
	return driver.Config{
		Kind:     driver.KindPgSQL,
		Hosts:    []string{env("FAIRBENCH_TEST_PGSQL_HOST", "127.0.0.1")},
		Ports:    []int{port("FAIRBENCH_TEST_PGSQL_PORT", 5432)},
		User:     env("FAIRBENCH_TEST_PGSQL_USER", "postgres"),
		Password: os.Getenv("FAIRBENCH_TEST_PGSQL_PASSWORD"),
		Prepared: true,
	}
}

// MySQL creates a fresh database on the test MySQL-protocol server, drops it when
// the test ends, and returns a Config that uses it.
func MySQL(t testing.TB) driver.Config {
	t.Helper()
	SkipShort(t, "MariaDB")
	cfg := MySQLServer()
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net = cfg.User, cfg.Password, "tcp"
	mc.Addr = fmt.Sprintf("%s:%d", cfg.Hosts[0], cfg.Ports[0])
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatalf("testdb: open mysql: %v", err)
	}
	cfg.Database = uniqueName("my")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+cfg.Database); err != nil {
		db.Close()
		t.Fatalf("testdb: create mysql database at %s (is MariaDB running? scripts/test.sh starts it): %v", mc.Addr, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+cfg.Database); err != nil {
			t.Errorf("testdb: drop %s: %v", cfg.Database, err)
		}
		db.Close()
	})
	return cfg
}

// PgSQL creates a fresh database on the test PostgreSQL server, drops it when the
// test ends, and returns a Config that uses it.
func PgSQL(t testing.TB) driver.Config {
	t.Helper()
	SkipShort(t, "PostgreSQL")
	cfg := PgSQLServer()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pcfg, err := pgx.ParseConfig("")
	if err != nil {
		t.Fatalf("testdb: pgx config: %v", err)
	}
	pcfg.Host, pcfg.Port, pcfg.User, pcfg.Password, pcfg.Database = cfg.Hosts[0], uint16(cfg.Ports[0]), cfg.User, cfg.Password, "postgres"
	conn, err := pgx.ConnectConfig(ctx, pcfg)
	if err != nil {
		t.Fatalf("testdb: connect postgres at %s:%d (is PostgreSQL running? scripts/test.sh starts it): %v", cfg.Hosts[0], cfg.Ports[0], err)
	}
	cfg.Database = uniqueName("pg")
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+cfg.Database); err != nil {
		conn.Close(ctx)
		t.Fatalf("testdb: create postgres database: %v", err)
	}
	conn.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.ConnectConfig(ctx, pcfg)
		if err != nil {
			t.Errorf("testdb: reconnect to drop %s: %v", cfg.Database, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+cfg.Database+" WITH (FORCE)"); err != nil {
			t.Errorf("testdb: drop %s: %v", cfg.Database, err)
		}
	})
	return cfg
}

// SQLite returns a Config for a database file in the test's temporary directory.
func SQLite(t testing.TB) driver.Config {
	t.Helper()
	return driver.Config{
		Kind:     driver.KindSQLite,
		Path:     filepath.Join(t.TempDir(), "fairbench.db"),
		Prepared: true,
	}
}

// All returns a fresh Config for each of the three targets, keyed by driver kind,
// for table tests that run the same case everywhere. Under -short it returns the
// SQLite target only, and logs that the servers' cases do not run.
func All(t testing.TB) map[string]driver.Config {
	t.Helper()
	if testing.Short() {
		t.Log("testdb: the MariaDB and PostgreSQL cases need their servers (-short): SQLite only")
		return map[string]driver.Config{driver.KindSQLite: SQLite(t)}
	}
	return map[string]driver.Config{
		driver.KindMySQL:  MySQL(t),
		driver.KindPgSQL:  PgSQL(t),
		driver.KindSQLite: SQLite(t),
	}
}
