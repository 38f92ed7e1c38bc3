package tlsserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fairbench/fairbench/internal/base/procutil"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// PostgreSQL is a private PostgreSQL server with TLS on, listening on
// 127.0.0.1:Port. Its pg_hba.conf accepts TLS connections only (hostnossl
// reject) and asks UserCert for a client certificate (clientcert=verify-ca).
type PostgreSQL struct {
	// Port is the server's TCP port on 127.0.0.1.
	Port int
	// SocketDir holds the server's Unix socket (user postgres, trust).
	SocketDir string

	certs *Certs
	bin   string // directory of initdb and pg_ctl
	data  string
	// owner runs the server binaries when the test runs as root (PostgreSQL
	// refuses to run as root); nil otherwise.
	owner *syscall.Credential
	admin *pgconn.PgConn
}

// StartPostgreSQL initialises a cluster in a temporary directory, starts it with
// TLS on (server certificate certs.Server, client certificates checked against
// certs.CA), creates UserTLS, UserCert and Database, and stops it with
// "pg_ctl -m immediate stop" when the test ends. Under -short it skips the test.
func StartPostgreSQL(t testing.TB, certs *Certs) *PostgreSQL {
	t.Helper()
	testdb.SkipShort(t, "a private PostgreSQL with TLS")
	p := &PostgreSQL{Port: freePort(t), certs: certs, bin: postgresBinDir(t), owner: postgresOwner(t)}
	// Not t.TempDir: the postgres user must be able to reach the directory.
	dir, err := os.MkdirTemp("", "fairbench-pg-")
	if err != nil {
		t.Fatalf("tlsserver: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p.SocketDir, p.data = dir, filepath.Join(dir, "data")
	if err := p.own(dir); err != nil {
		t.Fatalf("tlsserver: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()

	if err := procutil.Run(p.command(ctx, "initdb", "-D", p.data, "-U", "postgres", "--auth=trust",
		"--no-sync", "--encoding=UTF8", "--no-locale")); err != nil {
		t.Fatalf("tlsserver: initdb: %v", err)
	}
	if err := p.configure(); err != nil {
		t.Fatalf("tlsserver: configure PostgreSQL: %v", err)
	}
	logFile := filepath.Join(dir, "server.log")
	if err := procutil.Run(p.command(ctx, "pg_ctl", "-D", p.data, "-l", logFile, "-w",
		"-t", strconv.Itoa(int(startTimeout.Seconds())), "start")); err != nil {
		t.Fatalf("tlsserver: start PostgreSQL on port %d: %v\n%s", p.Port, err, procutil.LogTail(logFile))
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		if err := procutil.Run(p.command(stopCtx, "pg_ctl", "-D", p.data, "-m", "immediate", "-w", "stop")); err != nil {
			t.Errorf("tlsserver: stop PostgreSQL: %v", err)
		}
	})

	p.admin, err = pgconn.Connect(ctx, fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", dir, p.Port))
	if err != nil {
		t.Fatalf("tlsserver: connect to PostgreSQL as postgres: %v\n%s", err, procutil.LogTail(logFile))
	}
	t.Cleanup(func() { p.admin.Close(context.Background()) })
	for _, stmt := range []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", UserTLS, Password),
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", UserCert, Password),
		fmt.Sprintf("CREATE DATABASE %s OWNER %s", Database, UserTLS),
	} {
		if _, err := p.admin.Exec(ctx, stmt).ReadAll(); err != nil {
			t.Fatalf("tlsserver: %s: %v", stmt, err)
		}
	}
	return p
}

// postgresBinDir returns the bin directory of the newest installed PostgreSQL.
func postgresBinDir(t testing.TB) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	var candidates []string
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, "pg_ctl"))
	}
	pgctl := findBinary(t, "pg_ctl", "postgresql", candidates...)
	dir := filepath.Dir(pgctl)
	findBinary(t, "initdb", "postgresql", filepath.Join(dir, "initdb"))
	return dir
}

// pgVersion reads the major version from /usr/lib/postgresql/VERSION/bin.
func pgVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// postgresOwner returns the credentials of the postgres OS user when the test
// runs as root, and nil otherwise.
func postgresOwner(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("tlsserver: PostgreSQL does not run as root and there is no postgres user: "+
			"install the Debian package postgresql, which creates it: %v", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatalf("tlsserver: ids of the postgres user: %v", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
}

// command returns a PostgreSQL program run as the cluster's owner.
func (p *PostgreSQL) command(ctx context.Context, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(p.bin, program), args...)
	// The owner may not be allowed into the test's working directory.
	cmd.Dir = p.SocketDir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if p.owner != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.owner}
	}
	return cmd
}

// own hands path to the cluster's owner.
func (p *PostgreSQL) own(path string) error {
	if p.owner == nil {
		return nil
	}
	if err := os.Chown(path, int(p.owner.Uid), int(p.owner.Gid)); err != nil {
		return fmt.Errorf("hand %s to the postgres user: %w", path, err)
	}
	return nil
}

// configure writes the TLS files, postgresql.conf settings and pg_hba.conf.
func (p *PostgreSQL) configure() error {
	if err := p.install(p.certs.Server); err != nil {
		return err
	}
	ca, err := os.ReadFile(p.certs.CA)
	if err != nil {
		return err
	}
	if err := p.writeOwned("ca.crt", ca, 0o644); err != nil {
		return err
	}
	conf := strings.Join([]string{
		"",
		"# fairbench tlsserver",
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", p.Port),
		fmt.Sprintf("unix_socket_directories = '%s'", p.SocketDir),
		"ssl = on",
		"ssl_cert_file = 'server.crt'",
		"ssl_key_file = 'server.key'",
		"ssl_ca_file = 'ca.crt'",
		"shared_buffers = 16MB",
		"max_connections = 30",
		"fsync = off",
		"synchronous_commit = off",
		"full_page_writes = off",
		"",
	}, "\n")
	f, err := os.OpenFile(filepath.Join(p.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to postgresql.conf: %w", err)
	}
	hba := strings.Join([]string{
		"local all all trust",
		fmt.Sprintf("hostssl all %s 127.0.0.1/32 trust clientcert=verify-ca", UserCert),
		"hostssl all all 127.0.0.1/32 trust",
		"hostnossl all all 127.0.0.1/32 reject",
		"",
	}, "\n")
	return p.writeOwned("pg_hba.conf", []byte(hba), 0o600)
}

// install copies pair to the files the server presents.
func (p *PostgreSQL) install(pair KeyPair) error {
	cert, err := os.ReadFile(pair.Cert)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(pair.Key)
	if err != nil {
		return err
	}
	// PostgreSQL insists that the key belongs to its owner and is private.
	return errors.Join(p.writeOwned("server.crt", cert, 0o644), p.writeOwned("server.key", key, 0o600))
}

// writeOwned writes name into the data directory, owned by the cluster's owner.
func (p *PostgreSQL) writeOwned(name string, data []byte, mode os.FileMode) error {
	path := filepath.Join(p.data, name)
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(path, mode); err != nil {
		return err
	}
	return p.own(path)
}

// Config returns a driver configuration that reaches the server over TCP at
// 127.0.0.1 as user (UserTLS or UserCert), with TLS off; set its SSL fields.
func (p *PostgreSQL) Config(user string) driver.Config {
	return driver.Config{
		Kind:     driver.KindPgSQL,
		Hosts:    []string{"127.0.0.1"},
		Ports:    []int{p.Port},
		User:     user,
		Password: Password,
		Database: Database,
		Prepared: true,
	}
}

// ServeCert makes the server present pair (signed by Certs.CA) to new
// connections until the test ends, then certs.Server again.
func (p *PostgreSQL) ServeCert(t testing.TB, pair KeyPair) {
	t.Helper()
	if err := p.serve(pair); err != nil {
		t.Fatalf("tlsserver: %v", err)
	}
	t.Cleanup(func() {
		if err := p.serve(p.certs.Server); err != nil {
			t.Errorf("tlsserver: restore the server certificate: %v", err)
		}
	})
}

// serve installs pair, reloads the configuration and waits until new
// connections get the new certificate (the reload is asynchronous).
func (p *PostgreSQL) serve(pair KeyPair) error {
	want, err := certDER(pair.Cert)
	if err != nil {
		return err
	}
	if err := p.install(pair); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if _, err := p.admin.Exec(ctx, "SELECT pg_reload_conf()").ReadAll(); err != nil {
		return fmt.Errorf("reload PostgreSQL's configuration: %w", err)
	}
	presents := func(ctx context.Context) error {
		got, err := p.presentedCert(ctx)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("server does not present %s yet", pair.Cert)
		}
		return nil
	}
	if err := procutil.Poll(ctx, pollEvery, presents, func() error { return nil }); err != nil {
		return fmt.Errorf("PostgreSQL did not switch to %s: %w", pair.Cert, err)
	}
	return nil
}

// presentedCert connects over TLS without verification and returns the DER
// bytes of the certificate the server presents.
func (p *PostgreSQL) presentedCert(ctx context.Context) ([]byte, error) {
	c, err := pgconn.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=require",
		p.Port, UserTLS, Database))
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	tc, ok := c.Conn().(*tls.Conn)
	if !ok {
		return nil, errors.New("connection is not TLS")
	}
	peer := tc.ConnectionState().PeerCertificates
	if len(peer) == 0 {
		return nil, errors.New("server presented no certificate")
	}
	return peer[0].Raw, nil
}
