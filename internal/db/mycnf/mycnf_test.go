package mycnf

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// fakeEnv serves files from a map; sockets are the paths that are sockets.
func fakeEnv(env map[string]string, files map[string]string, dirs map[string][]string, sockets ...string) Env {
	return Env{
		Getenv: func(k string) string { return env[k] },
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		ReadDir: func(d string) ([]string, error) {
			if n, ok := dirs[d]; ok {
				return n, nil
			}
			return nil, fs.ErrNotExist
		},
		IsSocket: func(p string) bool {
			for _, s := range sockets {
				if s == p {
					return true
				}
			}
			return false
		},
		Home: func() (string, error) { return "/home/u", nil },
	}
}

func TestSocket(t *testing.T) {
	debian := map[string]string{
		"/etc/mysql/my.cnf":                           "[client-server]\n# Port or socket location where to connect\n# port = 3306\n!includedir /etc/mysql/conf.d/\n!includedir /etc/mysql/mariadb.conf.d/\n",
		"/etc/mysql/mariadb.conf.d/50-client.cnf":     "[client]\ndefault-character-set = utf8mb4\nsocket = /run/mysqld/mysqld.sock\n",
		"/etc/mysql/mariadb.conf.d/50-server.cnf":     "[mysqld]\nsocket = /srv/server-only.sock\n",
		"/etc/mysql/mariadb.conf.d/60-galera.cnf.bak": "[client]\nsocket = /not/read.sock\n",
	}
	dirs := map[string][]string{"/etc/mysql/mariadb.conf.d/": {"60-galera.cnf.bak", "50-server.cnf", "50-client.cnf"}}
	for _, tc := range []struct {
		name         string
		env          map[string]string
		files        map[string]string
		sockets      []string
		path, source string
		found        bool
	}{
		{"Debian's MariaDB: the client group of an included file", nil, debian, []string{"/run/mysqld/mysqld.sock"},
			"/run/mysqld/mysqld.sock", "/etc/mysql/mariadb.conf.d/50-client.cnf [client]", true},
		{"a named socket that is not there is not found", nil, debian, nil,
			"/run/mysqld/mysqld.sock", "/etc/mysql/mariadb.conf.d/50-client.cnf [client]", false},
		{"~/.my.cnf wins over /etc", nil, map[string]string{"/etc/my.cnf": "[client]\nsocket=/a.sock\n", "/home/u/.my.cnf": "[client]\nsocket = \"/b.sock\" # mine\n"},
			[]string{"/a.sock", "/b.sock"}, "/b.sock", "/home/u/.my.cnf [client]", true},
		{"MYSQL_UNIX_PORT wins", map[string]string{"MYSQL_UNIX_PORT": "/env.sock"}, debian, []string{"/env.sock"},
			"/env.sock", "MYSQL_UNIX_PORT", true},
		{"the server's group is not the client's; compiled default", nil, map[string]string{"/etc/my.cnf": "[mysqld]\nsocket=/srv.sock\n"},
			[]string{"/tmp/mysql.sock"}, "/tmp/mysql.sock", "compiled default", true},
		{"nothing", nil, nil, nil, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, source, found := fakeEnv(tc.env, tc.files, dirs, tc.sockets...).Socket()
			if path != tc.path || source != tc.source || found != tc.found {
				t.Fatalf("got %q %q %v, want %q %q %v", path, source, found, tc.path, tc.source, tc.found)
			}
		})
	}
}

// TestIsSocketOnDisk checks the default IsSocket against a real socket and a
// regular file.
func TestIsSocketOnDisk(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	}
	defer l.Close()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e := Env{Getenv: func(k string) string { return map[string]string{"MYSQL_UNIX_PORT": sock}[k] }}
	if p, _, found := e.Socket(); p != sock || !found {
		t.Fatalf("socket %s not found: %q %v", sock, p, found)
	}
	e.Getenv = func(string) string { return file }
	if _, _, found := e.Socket(); found {
		t.Fatal("a regular file taken for a socket")
	}
}
