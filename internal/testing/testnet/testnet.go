// Package testnet gives integration tests "a remote database server": a
// network namespace of the test's own, joined to the test's namespace by a
// veth pair on a private /30 (10.213.A.B+1 on the host side, +2 inside), and a
// private MariaDB started inside it that listens on the inner address only.
// Seen from the test, the server is on another machine as far as the network
// goes: fairbench cannot find its process by socket or port, so it has to be
// told about the server's machine (an agent, a file) or say that it is not
// known.
//
// Everything is removed when the test ends: the server is stopped, the
// namespace deleted (the veth pair goes with it) and the data directory lies
// in t.TempDir(). Tests are skipped, with the reason, when not run as root,
// when `ip netns` does not work, when MariaDB's server is not installed, and
// under -short.
//
// It is its own package, not part of internal/testing/testdb, because it starts the
// server with internal/machine/localserver, which the tests of the drivers (which
// import testdb) sit under.
package testnet

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/machine/localserver"
)

// Namespace is a network namespace of the test's own, reached from the
// test's namespace over a veth pair.
type Namespace struct {
	// Name is the namespace's name for `ip netns` ("fbtest-1a2b3c4d").
	Name string
	// HostAddr is the address of the host side of the veth pair (the
	// test's namespace); PeerAddr the address inside the namespace. Both
	// are in the same /30.
	HostAddr, PeerAddr string
}

// NewNamespace creates a namespace with a veth pair to it (both ends up, lo
// up inside) and deletes it when the test ends. It skips the test when it is
// not run as root or `ip netns` does not work.
func NewNamespace(t testing.TB) *Namespace {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("testnet: a network namespace needs root (run the test as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("testnet: the ip command (iproute2) is not installed")
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		t.Skipf("testnet: ip netns does not work here: %v %s", err, bytes.TrimSpace(out))
	}
	id := randomHex(4)
	ns := &Namespace{Name: "fbtest-" + id}
	hostIf, peerIf := "fbh"+id, "fbn"+id // at most 15 bytes
	base, err := freeSubnet()
	if err != nil {
		t.Fatalf("testnet: %v", err)
	}
	ns.HostAddr, ns.PeerAddr = ipString(base+1), ipString(base+2)

	if err := ip("netns", "add", ns.Name); err != nil {
		t.Skipf("testnet: ip netns add does not work here: %v", err)
	}
	t.Cleanup(func() {
		// Deleting the namespace removes the veth pair with it.
		if err := ip("netns", "delete", ns.Name); err != nil {
			t.Errorf("testnet: %v", err)
		}
		// A failed setup may leave the host end behind.
		_ = exec.Command("ip", "link", "delete", hostIf).Run()
	})
	steps := [][]string{
		{"link", "add", hostIf, "type", "veth", "peer", "name", peerIf},
		{"link", "set", peerIf, "netns", ns.Name},
		{"addr", "add", ns.HostAddr + "/30", "dev", hostIf},
		{"link", "set", hostIf, "up"},
		{"netns", "exec", ns.Name, "ip", "addr", "add", ns.PeerAddr + "/30", "dev", peerIf},
		{"netns", "exec", ns.Name, "ip", "link", "set", peerIf, "up"},
		{"netns", "exec", ns.Name, "ip", "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			t.Fatalf("testnet: set up namespace %s: %v", ns.Name, err)
		}
	}
	return ns
}

// Command returns a command that runs name with args inside the namespace
// (`ip netns exec`, which execs the program: the process's PID is the
// program's).
func (ns *Namespace) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// MariaDB is a private MariaDB server running inside a Namespace.
type MariaDB struct {
	// NS is the namespace the server runs in.
	NS *Namespace
	// PID is the server process's ID (mariadbd).
	PID int
	// Host and Port are where it listens: NS.PeerAddr, and a port of the
	// namespace's own.
	Host string
	Port int
	// User may connect from NS.HostAddr without a password; Database exists.
	User, Database string
	// Dir is the server's private directory (data, configuration, error log).
	Dir string
}

// ConnectFlags returns fairbench's flags that reach the server over TCP.
func (m *MariaDB) ConnectFlags() []string {
	return []string{"--db-driver=mysql", "--mysql-host=" + m.Host, "--mysql-port=" + strconv.Itoa(m.Port),
		"--mysql-user=" + m.User, "--mysql-db=" + m.Database}
}

// DSN returns a go-sql-driver/mysql data source name that reaches the
// server over TCP from the test's namespace.
func (m *MariaDB) DSN() string {
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = m.User, "tcp", net.JoinHostPort(m.Host, strconv.Itoa(m.Port)), m.Database
	mc.Timeout = 5 * time.Second
	return mc.FormatDSN()
}

// innerPort is the port the server listens on inside the namespace: the
// namespace is the test's own, so it is always free.
const innerPort = 3306

// RemoteMariaDB creates a namespace and starts a private MariaDB inside it;
// see StartMariaDB.
func RemoteMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	if testing.Short() {
		t.Skip("testnet: starts a private MariaDB in a network namespace")
	}
	if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
		t.Skip("testnet: MariaDB's server is not installed (scripts/test.sh installs it)")
	}
	return NewNamespace(t).StartMariaDB(t)
}

// StartMariaDB starts a small private MariaDB (32 MB buffer pool) inside the
// namespace, listening on PeerAddr only, and stops it when the test ends.
//
// The data directory is made by internal/machine/localserver, the way `fairbench
// server start` makes it (started once on 127.0.0.1 in the test's namespace
// to create the database sbtest and a root account for the veth's host
// address, then stopped); the daemon is then started again with the same
// configuration under `ip netns exec`, bound to PeerAddr.
func (ns *Namespace) StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "srv")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := localserver.Options{Flavor: localserver.FlavorMariaDB, Profile: localserver.ProfileCustom, Dir: dir,
		Settings: map[string]string{"innodb_buffer_pool_size": "32M"}}
	srv, err := localserver.Start(ctx, opts)
	if err != nil {
		t.Fatalf("testnet: initialise a private MariaDB: %v", err)
	}
	grant := func() error {
		db, err := sql.Open("mysql", "root@unix("+srv.Socket+")/")
		if err != nil {
			return err
		}
		defer db.Close()
		// skip_name_resolve is on: the client is matched by its address.
		for _, q := range []string{
			"CREATE USER IF NOT EXISTS 'root'@'" + ns.HostAddr + "'",
			"GRANT ALL ON *.* TO 'root'@'" + ns.HostAddr + "' WITH GRANT OPTION",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}
	gerr := grant()
	if err := localserver.Stop(ctx, dir); err != nil {
		t.Fatalf("testnet: stop the private MariaDB after initialising it: %v", err)
	}
	if gerr != nil {
		t.Fatalf("testnet: let root connect from %s: %v", ns.HostAddr, gerr)
	}

	logPath := filepath.Join(dir, "netns-mariadbd.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("testnet: %v", err)
	}
	defer logFile.Close()
	args := []string{"--defaults-file=" + srv.ConfigFile, "--bind-address=" + ns.PeerAddr, "--port=" + strconv.Itoa(innerPort)}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	// Not tied to ctx: the server lives until the test's cleanup.
	cmd := ns.Command(context.Background(), "/usr/sbin/mariadbd", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("testnet: start mariadbd in %s: %v", ns.Name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	m := &MariaDB{NS: ns, PID: cmd.Process.Pid, Host: ns.PeerAddr, Port: innerPort, User: "root", Database: localserver.Database, Dir: dir}
	// Registered after the namespace's: runs before it is deleted.
	t.Cleanup(func() {
		_ = syscall.Kill(m.PID, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = syscall.Kill(m.PID, syscall.SIGKILL)
			<-exited
		}
	})
	if err := m.waitReady(ctx, exited); err != nil {
		tail, _ := os.ReadFile(srv.LogFile)
		out, _ := os.ReadFile(logPath)
		t.Fatalf("testnet: the MariaDB in namespace %s did not start: %v\n%s\n%s", ns.Name, err, lastLines(tail, 20), lastLines(out, 20))
	}
	return m
}

// waitReady waits until the server answers over TCP from the host side.
func (m *MariaDB) waitReady(ctx context.Context, exited <-chan struct{}) error {
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = db.PingContext(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("mariadbd exited (last error: %w)", err)
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ip runs the ip command with args.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// freeSubnet picks a /30 in 10.213.0.0/16 that no interface of this
// namespace has an address in, and returns its network address as a number.
func freeSubnet() (uint32, error) {
	const net10213 = 10<<24 | 213<<16
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return 0, fmt.Errorf("list this machine's addresses: %w", err)
	}
	for range 64 {
		var b [2]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, err
		}
		base := uint32(net10213) | uint32(binary.BigEndian.Uint16(b[:]))&^3
		if base&0xffff == 0 {
			continue
		}
		used := false
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if v4 := n.IP.To4(); v4 != nil && binary.BigEndian.Uint32(v4)&^3 == base {
					used = true
				}
			}
		}
		if !used {
			return base, nil
		}
	}
	return 0, errors.New("no free /30 in 10.213.0.0/16")
}

func ipString(v uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return net.IP(b[:]).String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
