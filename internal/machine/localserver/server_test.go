package localserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/bytesize"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// testData is the data set size of the test servers: small pools start fast.
const testData = 64 * bytesize.MiB

// serverDir returns an empty private directory for a test server. Its
// parents are made searchable, because PostgreSQL runs as the postgres OS
// user when the test runs as root.
func serverDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p := dir; p != filepath.Dir(p) && p != filepath.Clean(os.TempDir()); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "srv")
}

// startServer starts a server and stops it when the test ends; under -short
// it skips the test.
func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	testdb.SkipShort(t, "a private "+string(opts.Flavor)+" server")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start(%s, %s): %v", opts.Flavor, opts.Profile, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := Stop(ctx, srv.Dir); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return srv
}

// connect opens a connection through the fairbench driver the server gives.
func connect(t *testing.T, srv *Server) driver.Conn {
	t.Helper()
	d, err := open.Driver(srv.DriverConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	conn, err := d.Connect(context.Background(), 0)
	if err != nil {
		t.Fatalf("connect to the %s server: %v", srv.Flavor, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// queryOne returns the single row of query.
func queryOne(t *testing.T, conn driver.Conn, query string, args ...any) []string {
	t.Helper()
	rows, err := conn.QueryStrings(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", query, len(rows))
	}
	return rows[0]
}

// checkGenerated asserts that the server runs with the sizes Generate wrote.
func checkGenerated(t *testing.T, srv *Server, conn driver.Conn) {
	t.Helper()
	s := srv.Managed.Settings
	if srv.Flavor == FlavorPostgres {
		row := queryOne(t, conn, "SELECT pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes(?), "+
			"pg_size_bytes(current_setting('max_wal_size')) = pg_size_bytes(?), current_setting('max_connections'), "+
			"current_setting('checkpoint_timeout'), current_setting('synchronous_commit'), current_database(), current_setting('shared_buffers')",
			s["shared_buffers"], s["max_wal_size"])
		want := []string{"true", "true", "1000", "15min", "on", Database}
		for i, w := range want {
			if row[i] != w && !(w == "true" && row[i] == "t") {
				t.Errorf("column %d = %q, want %q (server row %v, generated shared_buffers %s, max_wal_size %s)", i, row[i], w, row, s["shared_buffers"], s["max_wal_size"])
			}
		}
		return
	}
	row := queryOne(t, conn, "SELECT @@innodb_buffer_pool_size, @@innodb_log_file_size, @@max_connections, "+
		"@@innodb_flush_log_at_trx_commit, @@innodb_flush_method, @@skip_name_resolve, @@performance_schema, @@bind_address, DATABASE()")
	pool, _ := bytesize.Parse(s["innodb_buffer_pool_size"])
	logSize, _ := bytesize.Parse(s["innodb_log_file_size"])
	want := []string{strconv.FormatInt(pool, 10), strconv.FormatInt(logSize, 10), "2000", "1", "O_DIRECT", "1", "0", "127.0.0.1", Database}
	for i, w := range want {
		if row[i] != w {
			t.Errorf("column %d = %q, want %q (server row %v)", i, row[i], w, row)
		}
	}
}

// TestStartStopRestart starts each installed flavor cpu-bound, checks the
// generated settings took effect, stops it, restarts the same data io-bound
// and checks the settings changed and a table survived.
func TestStartStopRestart(t *testing.T) {
	for _, flavor := range []Flavor{FlavorMariaDB, FlavorPostgres} {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := serverDir(t)

			srv := startServer(t, Options{Flavor: flavor, Profile: ProfileCPUBound, Dir: dir, DataBytes: testData})
			if want := map[Flavor]string{FlavorMariaDB: "128M", FlavorPostgres: "128MB"}[flavor]; srv.Managed.Settings[bufferSetting(flavor)] != want {
				t.Errorf("cpu-bound pool for 64 MiB = %q, want %q", srv.Managed.Settings[bufferSetting(flavor)], want)
			}
			conn := connect(t, srv)
			checkGenerated(t, srv, conn)
			checkTCP(t, srv)
			for _, stmt := range []string{
				"CREATE TABLE kept (id INT PRIMARY KEY, note VARCHAR(20))",
				"INSERT INTO kept VALUES (1, 'survives')",
			} {
				if _, err := conn.Exec(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			conn.Close()

			st, err := Status(ctx, dir)
			if err != nil || !st.Running || st.PID != srv.PID || st.Port != srv.Port || st.Profile != ProfileCPUBound ||
				st.Managed.Config != srv.Managed.Config {
				t.Fatalf("Status of the running server = %+v, %v", st, err)
			}
			if config, err := os.ReadFile(srv.ConfigFile); err != nil || string(config) != srv.Managed.Config {
				t.Errorf("config file %s does not hold the recorded config: %v", srv.ConfigFile, err)
			}
			if _, err := Start(ctx, Options{Flavor: flavor, Profile: ProfileCPUBound, Dir: dir, DataBytes: testData}); err == nil ||
				!strings.Contains(err.Error(), "already running") {
				t.Errorf("a second Start on the running dir = %v, want 'already running'", err)
			}

			if err := Stop(ctx, dir); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if processRunning(srv.PID, srv.Dir) {
				t.Fatalf("server pid %d still runs after Stop", srv.PID)
			}
			if st, err := Status(ctx, dir); err != nil || st.Running || st.StoppedAt.IsZero() {
				t.Errorf("Status after Stop = running %v, stopped at %v, %v", st.Running, st.StoppedAt, err)
			}
			if err := Stop(ctx, dir); err != nil {
				t.Errorf("stopping a stopped server: %v", err)
			}

			again := startServer(t, Options{Flavor: flavor, Profile: ProfileIOBound, Dir: dir, DataBytes: testData})
			if want := map[Flavor]string{FlavorMariaDB: "32M", FlavorPostgres: "32MB"}[flavor]; again.Managed.Settings[bufferSetting(flavor)] != want {
				t.Errorf("io-bound pool for 64 MiB = %q, want %q", again.Managed.Settings[bufferSetting(flavor)], want)
			}
			conn = connect(t, again)
			checkGenerated(t, again, conn)
			if row := queryOne(t, conn, "SELECT note FROM kept WHERE id = 1"); row[0] != "survives" {
				t.Errorf("row after the restart = %v, want survives", row)
			}
			conn.Close()
			if err := Stop(ctx, dir); err != nil {
				t.Fatalf("Stop after the restart: %v", err)
			}
			if processRunning(again.PID, again.Dir) {
				t.Fatalf("server pid %d still runs after Stop", again.PID)
			}
		})
	}
}

// checkTCP asserts that the server also takes the administrator over TCP on
// 127.0.0.1, as the connection flags start prints promise.
func checkTCP(t *testing.T, srv *Server) {
	t.Helper()
	cfg := srv.DriverConfig()
	cfg.Socket = ""
	d, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	conn, err := d.Connect(context.Background(), 0)
	if err != nil {
		t.Fatalf("connect over TCP to 127.0.0.1:%d: %v", srv.Port, err)
	}
	defer conn.Close()
	queryOne(t, conn, "SELECT 1")
}

// TestRestartAfterCrash kills a MariaDB server and starts the same
// directory again: stale pid and socket files do not stop it, and the data
// is recovered.
func TestRestartAfterCrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := serverDir(t)
	srv := startServer(t, Options{Flavor: FlavorMariaDB, Profile: ProfileIOBound, Dir: dir, DataBytes: testData})
	conn := connect(t, srv)
	for _, stmt := range []string{"CREATE TABLE kept (id INT PRIMARY KEY)", "INSERT INTO kept VALUES (7)"} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	conn.Close()
	if err := syscall.Kill(srv.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitGone(deadline, srv.PID, srv.Dir); err != nil {
		t.Fatalf("killed server still runs: %v", err)
	}
	if st, err := Status(ctx, dir); err != nil || st.Running {
		t.Fatalf("Status after the crash = running %v, %v", st.Running, err)
	}
	if !exists(filepath.Join(dir, mysqlPIDName)) {
		t.Fatalf("the killed server left no pid file: the test does not test stale files")
	}
	again := startServer(t, Options{Flavor: FlavorMariaDB, Profile: ProfileIOBound, Dir: dir, DataBytes: testData})
	if row := queryOne(t, connect(t, again), "SELECT id FROM kept"); row[0] != "7" {
		t.Errorf("row after crash recovery = %v, want 7", row)
	}
}

func TestStartRefusesMySQLWhenNotInstalled(t *testing.T) {
	in, err := findInstallation(context.Background(), FlavorMySQL, "")
	if err == nil {
		t.Skipf("MySQL is installed here (%s %s): nothing to refuse", in.daemon, in.version)
	}
	dir := serverDir(t)
	_, err = Start(context.Background(), Options{Flavor: FlavorMySQL, Profile: ProfileCPUBound, Dir: dir, DataBytes: testData})
	if err == nil {
		t.Fatal("Start(mysql) succeeded without MySQL")
	}
	for _, want := range []string{"flavor mysql: MySQL's server is not installed", "install MySQL Community Server", "--flavor=mariadb"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// Debian's mysqld is MariaDB: the message says so.
	if v, verr := daemonVersion(context.Background(), "/usr/sbin/mysqld"); verr == nil && strings.Contains(v, "MariaDB") &&
		!strings.Contains(err.Error(), "/usr/sbin/mysqld is MariaDB") {
		t.Errorf("error %q does not say that /usr/sbin/mysqld is MariaDB", err)
	}
	if exists(dir) {
		t.Errorf("the refused start created %s", dir)
	}
}

func TestNoServer(t *testing.T) {
	dir := t.TempDir()
	if _, err := Status(context.Background(), dir); !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), "fairbench server start --dir="+dir) {
		t.Errorf("Status of an empty dir = %v, want ErrNoServer with a hint", err)
	}
	if err := Stop(context.Background(), dir); !errors.Is(err, ErrNoServer) {
		t.Errorf("Stop of an empty dir = %v, want ErrNoServer", err)
	}
	if dirs, err := FindServers(dir); err != nil || len(dirs) != 0 {
		t.Errorf("FindServers of an empty dir = %v, %v", dirs, err)
	}
}

func TestStartRefusesForeignDirectory(t *testing.T) {
	testdb.SkipShort(t, "MariaDB's server installed")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, Dir: dir, DataBytes: testData})
	if err == nil || !strings.Contains(err.Error(), "is not empty and holds no fairbench server") {
		t.Fatalf("Start in a foreign directory = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Errorf("the refused start created a data directory")
	}
}

func TestDriverConfig(t *testing.T) {
	my := (&Server{Flavor: FlavorMariaDB, Dir: "/d", Port: 4000, Socket: "/d/mysqld.sock"}).DriverConfig()
	if my.Kind != driver.KindMySQL || my.User != "root" || my.Socket != "/d/mysqld.sock" || my.Database != Database || !my.Prepared {
		t.Errorf("mariadb config = %+v", my)
	}
	pg := (&Server{Flavor: FlavorPostgres, Dir: "/d", Port: 5000, Socket: "/d/.s.PGSQL.5000"}).DriverConfig()
	if pg.Kind != driver.KindPgSQL || pg.User != "postgres" || pg.Socket != "/d/.s.PGSQL.5000" || pg.Ports[0] != 5000 || pg.Database != Database {
		t.Errorf("postgres config = %+v", pg)
	}
	socket, tcp := (&Server{Flavor: FlavorPostgres, Port: 5000, Socket: "/d/.s.PGSQL.5000"}).ConnectFlags()
	if strings.Join(socket, " ") != "--pgsql-socket=/d/.s.PGSQL.5000 --pgsql-user=postgres --pgsql-db=sbtest" ||
		strings.Join(tcp, " ") != "--pgsql-host=127.0.0.1 --pgsql-port=5000 --pgsql-user=postgres --pgsql-db=sbtest" {
		t.Errorf("postgres flags = %v / %v", socket, tcp)
	}
}

func TestPostgresNeedsReachableDir(t *testing.T) {
	owner, err := postgresOwner()
	if err != nil {
		t.Fatal(err)
	}
	if owner == nil {
		t.Skip("not root: PostgreSQL runs as this user")
	}
	closed := t.TempDir() // 0700, owned by root
	if err := os.Chmod(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	err = reachable(filepath.Join(closed, "srv"), owner)
	if err == nil || !strings.Contains(err.Error(), "postgres, which may not enter "+closed+" (mode 700)") {
		t.Errorf("reachable(closed) = %v", err)
	}
	if err := reachable(serverDir(t), owner); err != nil {
		t.Errorf("reachable(open) = %v", err)
	}
}
