package servermachine

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestFindProcess(t *testing.T) {
	fsys := fixture()
	for _, tc := range []struct {
		name     string
		socket   string
		port     int
		wantPID  int
		wantComm string
	}{
		{"mysql socket", "/run/mysqld/mysqld.sock", 0, 100, "mariadbd"},
		{"socket through a symbolic link", "/var/run/mysqld/mysqld.sock", 0, 100, "mariadbd"},
		{"postgres socket", "/run/postgresql/.s.PGSQL.5432", 0, 200, "postgres"},
		{"socket bound through a symbolic link", "/run/otherd/otherd.sock", 0, 500, "otherd"},
		{"loopback listener", "", 3306, 100, "mariadbd"},
		{"wildcard and ::1 listener", "", 5432, 200, "postgres"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p Process
			var err error
			if tc.socket != "" {
				p, err = FindUnixSocketProcess(fsys, tc.socket)
			} else {
				p, err = FindTCPListener(fsys, tc.port)
			}
			if err != nil || p.PID != tc.wantPID || p.Comm != tc.wantComm {
				t.Fatalf("got %+v, %v; want pid %d %s", p, err, tc.wantPID, tc.wantComm)
			}
		})
	}
}

func TestFindProcessNotFound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fsys   fs.FS
		socket string
		port   int
		want   []string
		denied bool
	}{
		{"no such socket", fixture(), "/tmp/none.sock", 0, []string{"no process of this machine holds /tmp/none.sock", "--server-pid"}, false},
		{"listener on another address only", fixture(), "", 6000, []string{"no process of this machine holds TCP port 6000"}, false},
		{"fds of another user", deniedFS{fixture(), []string{"1", "100"}}, "/run/mysqld/mysqld.sock", 0,
			[]string{"holding /run/mysqld/mysqld.sock could not be identified", "permission denied reading /proc/*/fd", "as the server's user or as root", "--server-pid"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.socket != "" {
				_, err = FindUnixSocketProcess(tc.fsys, tc.socket)
			} else {
				_, err = FindTCPListener(tc.fsys, tc.port)
			}
			var nf *NotFoundError
			if !errors.As(err, &nf) || nf.Denied != tc.denied {
				t.Fatalf("error %v, want a NotFoundError with Denied %v", err, tc.denied)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// TestFindRealServers finds the shared MariaDB and PostgreSQL of the
// development machine by their sockets and ports.
func TestFindRealServers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("reading other users' /proc/*/fd needs root")
	}
	root := os.DirFS("/")
	for _, tc := range []struct {
		name, socket string
		port         int
		comm         []string
	}{
		{"mariadb socket", "/run/mysqld/mysqld.sock", 0, []string{"mariadbd", "mysqld"}},
		{"mariadb port", "", 3306, []string{"mariadbd", "mysqld"}},
		{"postgres socket", "/var/run/postgresql/.s.PGSQL.5432", 0, []string{"postgres"}},
		{"postgres port", "", 5432, []string{"postgres"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testdb.SkipShort(t, "the machine's "+tc.comm[0]+" server")
			if tc.socket != "" {
				if _, err := os.Stat(tc.socket); err != nil {
					t.Skipf("no server here: %v", err)
				}
			}
			var p Process
			var err error
			if tc.socket != "" {
				p, err = FindUnixSocketProcess(root, tc.socket)
			} else {
				p, err = FindTCPListener(root, tc.port)
			}
			if err != nil {
				t.Fatal(err)
			}
			ok := false
			for _, c := range tc.comm {
				ok = ok || p.Comm == c
			}
			if p.PID <= 0 || !ok {
				t.Fatalf("found %+v, want one of %v", p, tc.comm)
			}
			if _, err := cpuset.ProcessList(root, p.PID); err != nil {
				t.Errorf("cpuset.ProcessList(%d): %v", p.PID, err)
			}
			t.Logf("%s: pid %d %s", tc.name, p.PID, p.Comm)
		})
	}
}

// A listener of this process is found on this machine's own root, through
// sock_diag (os.DirFS("/")) and through proc/net/tcp (the same root behind
// another fs.FS): both give this process.
func TestFindTCPListenerOfThisProcess(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for name, fsys := range map[string]fs.FS{"sock_diag": os.DirFS("/"), "proc/net/tcp": otherRoot{os.DirFS("/")}} {
		t.Run(name, func(t *testing.T) {
			p, err := FindTCPListener(fsys, port)
			if err != nil || p.PID != os.Getpid() {
				t.Fatalf("FindTCPListener(%d) = %+v, %v; want this process (%d)", port, p, err, os.Getpid())
			}
		})
	}
	l.Close()
	var nf *NotFoundError
	if _, err := FindTCPListener(os.DirFS("/"), port); !errors.As(err, &nf) {
		t.Fatalf("a closed port: %v, want a NotFoundError", err)
	}
}

// otherRoot is the root file system behind another fs.FS value: what
// FindTCPListener reads through proc/net/tcp.
type otherRoot struct{ fs.FS }

func (r otherRoot) ReadLink(name string) (string, error)   { return fs.ReadLink(r.FS, name) }
func (r otherRoot) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(r.FS, name) }

// TestFindPostgresByLockFile: the process PostgreSQL's lock file names is
// the server when it holds the socket, even when another server process,
// searched first, holds it too; a lock file naming a process that does not
// hold it (a stale one) is passed over for the search.
func TestFindPostgresByLockFile(t *testing.T) {
	const sock = "/run/postgresql/.s.PGSQL.5432"
	for _, tc := range []struct {
		name    string
		lock    string // the lock file's text; "" for none
		wantPID int
	}{
		{"no lock file: the first server process found", "", 150},
		{"the lock file's process", "200\n/var/lib/postgresql/15/main\n1795873483\n5432\n", 200},
		{"a stale lock file", "500\n/var/lib/postgresql/15/main\n", 150},
		{"a lock file without a PID", "\n", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fixture()
			// A second postgres process holding the socket, which the search
			// meets first (a lower PID).
			fsys["proc/150/comm"] = &fstest.MapFile{Data: []byte("postgres\n")}
			fsys["proc/150/fd/3"] = &fstest.MapFile{Data: []byte("socket:[1002]"), Mode: fs.ModeSymlink | 0o777}
			if tc.lock != "" {
				fsys["run/postgresql/.s.PGSQL.5432.lock"] = &fstest.MapFile{Data: []byte(tc.lock)}
			}
			p, err := FindUnixSocketProcess(fsys, sock)
			if err != nil || p.PID != tc.wantPID || p.Comm != "postgres" {
				t.Fatalf("got %+v, %v; want pid %d postgres", p, err, tc.wantPID)
			}
		})
	}
}
