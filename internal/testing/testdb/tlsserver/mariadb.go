package tlsserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/base/procutil"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// MariaDB is a private MariaDB server with TLS on, listening on 127.0.0.1:Port.
type MariaDB struct {
	// Port is the server's TCP port on 127.0.0.1.
	Port int
	// Socket is the server's Unix socket (root may log in there without a password).
	Socket string

	certs *Certs
	// served is the key pair the server presents; ServeCert overwrites its files.
	served KeyPair
	admin  *sql.DB
}

// StartMariaDB creates a data directory, starts mariadbd with TLS on (server
// certificate certs.Server, client certificates checked against certs.CA), sets
// up UserTLS (REQUIRE SSL), UserCert (REQUIRE X509) and Database, and stops the
// server when the test ends. Under -short it skips the test.
func StartMariaDB(t testing.TB, certs *Certs) *MariaDB {
	t.Helper()
	testdb.SkipShort(t, "a private MariaDB with TLS")
	daemon := findBinary(t, "mariadbd", "mariadb-server", "/usr/sbin/mariadbd", "/usr/bin/mariadbd")
	installDB := findBinary(t, "mariadb-install-db", "mariadb-server", "/usr/bin/mariadb-install-db", "/usr/sbin/mariadb-install-db")
	dir := t.TempDir()
	m := &MariaDB{
		Port:   freePort(t),
		Socket: filepath.Join(dir, "mariadbd.sock"),
		certs:  certs,
		served: KeyPair{filepath.Join(dir, "served.pem"), filepath.Join(dir, "served-key.pem")},
	}
	if err := m.copyServed(certs.Server); err != nil {
		t.Fatalf("tlsserver: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()

	data := filepath.Join(dir, "data")
	// --no-defaults must come first; --force skips the DNS check of the host
	// name (no account uses it). The other options go on to the bootstrap
	// server, which must create InnoDB files of the size the server expects.
	install := append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--force", "--tmpdir=" + dir}, mariadbSizing()...)
	if err := procutil.Run(exec.CommandContext(ctx, installDB, install...)); err != nil {
		t.Fatalf("tlsserver: initialise MariaDB data directory: %v", err)
	}

	errLog := filepath.Join(dir, "error.log")
	args := append([]string{"--no-defaults",
		"--datadir=" + data,
		"--socket=" + m.Socket,
		"--port=" + strconv.Itoa(m.Port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(dir, "mariadbd.pid"),
		"--log-error=" + errLog,
		"--tmpdir=" + dir,
		"--skip-name-resolve",
		"--ssl-ca=" + certs.CA,
		"--ssl-cert=" + m.served.Cert,
		"--ssl-key=" + m.served.Key,
	}, mariadbSizing()...)
	if os.Geteuid() == 0 {
		args = append(args, "--user=root") // mariadbd refuses to run as root unless told to
	}
	cmd := exec.Command(daemon, args...)
	// The server dies with the test binary even if the cleanup never runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("tlsserver: start %s: %v", daemon, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		// The data directory is thrown away, so there is nothing to shut down cleanly.
		_ = cmd.Process.Kill()
		<-exited
	})

	connector, err := mysql.NewConnector(m.rootConfig())
	if err != nil {
		t.Fatalf("tlsserver: MariaDB admin connection: %v", err)
	}
	m.admin = sql.OpenDB(connector)
	t.Cleanup(func() { m.admin.Close() })
	stop := func() error {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("mariadbd exited: %v\n%s", err, procutil.LogTail(errLog))
		default:
			return nil
		}
	}
	if err := procutil.Poll(ctx, pollEvery, m.admin.PingContext, stop); err != nil {
		t.Fatalf("tlsserver: MariaDB on port %d did not come up: %v\n%s", m.Port, err, procutil.LogTail(errLog))
	}
	if err := m.setUp(ctx); err != nil {
		t.Fatalf("tlsserver: set up MariaDB accounts: %v", err)
	}
	return m
}

// mariadbSizing returns the options that make a small server that starts fast.
func mariadbSizing() []string {
	return []string{
		"--innodb-buffer-pool-size=16M",
		"--innodb-log-file-size=8M",
		"--innodb-flush-log-at-trx-commit=0",
		"--innodb-doublewrite=0",
		"--innodb-use-native-aio=0",
		"--performance-schema=OFF",
		"--max-connections=50",
	}
}

// rootConfig reaches the server as root over its Unix socket.
func (m *MariaDB) rootConfig() *mysql.Config {
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr = "root", "unix", m.Socket
	mc.Logger = &mysql.NopLogger{}
	return mc
}

// setUp creates the accounts and the database.
func (m *MariaDB) setUp(ctx context.Context) error {
	for _, stmt := range []string{
		"CREATE DATABASE " + Database,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s' REQUIRE SSL", UserTLS, Password),
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s' REQUIRE X509", UserCert, Password),
		fmt.Sprintf("GRANT ALL ON %s.* TO '%s'@'%%'", Database, UserTLS),
		fmt.Sprintf("GRANT ALL ON %s.* TO '%s'@'%%'", Database, UserCert),
	} {
		if _, err := m.admin.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// Config returns a driver configuration that reaches the server over TCP at
// 127.0.0.1 as user (UserTLS or UserCert), with TLS off; set its SSL fields.
func (m *MariaDB) Config(user string) driver.Config {
	return driver.Config{
		Kind:     driver.KindMySQL,
		Hosts:    []string{"127.0.0.1"},
		Ports:    []int{m.Port},
		User:     user,
		Password: Password,
		Database: Database,
		Prepared: true,
	}
}

// ServeCert makes the server present pair (signed by Certs.CA) to new
// connections until the test ends, then certs.Server again.
func (m *MariaDB) ServeCert(t testing.TB, pair KeyPair) {
	t.Helper()
	if err := m.serve(pair); err != nil {
		t.Fatalf("tlsserver: %v", err)
	}
	t.Cleanup(func() {
		if err := m.serve(m.certs.Server); err != nil {
			t.Errorf("tlsserver: restore the server certificate: %v", err)
		}
	})
}

// serve installs pair and has the server reload its TLS files.
func (m *MariaDB) serve(pair KeyPair) error {
	if err := m.copyServed(pair); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if _, err := m.admin.ExecContext(ctx, "FLUSH SSL"); err != nil {
		return fmt.Errorf("reload MariaDB's TLS certificate (FLUSH SSL): %w", err)
	}
	return nil
}

// copyServed copies pair over the files the server presents.
func (m *MariaDB) copyServed(pair KeyPair) error {
	return errors.Join(copyFile(pair.Cert, m.served.Cert, 0o644), copyFile(pair.Key, m.served.Key, 0o600))
}
