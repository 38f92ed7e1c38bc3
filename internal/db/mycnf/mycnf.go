// Package mycnf finds the Unix socket a MySQL client library connects to for
// the host "localhost": MYSQL_UNIX_PORT, else the socket of the client
// groups of the option files (my.cnf and what it includes), else the paths
// client libraries are compiled with. It reads files only; it never connects.
package mycnf

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// OptionFiles are the option files read, in order (a later value wins), as
// libmysqlclient and MariaDB Connector/C read them on Linux; "~" is the home.
var OptionFiles = []string{"/etc/my.cnf", "/etc/mysql/my.cnf", "~/.my.cnf"}

// DefaultSockets are the socket paths client libraries are compiled with:
// Debian's and Ubuntu's MariaDB and MySQL, then Oracle's and Red Hat's builds.
var DefaultSockets = []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock", "/var/lib/mysql/mysql.sock"}

// clientGroups are the option file groups a client reads.
var clientGroups = map[string]bool{"client": true, "client-server": true, "client-mariadb": true, "mariadb-client": true}

// maxIncludeDepth bounds !include chains.
const maxIncludeDepth = 8

// Env is where the files are read; the zero value reads this machine's.
type Env struct {
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
	ReadDir  func(string) ([]string, error) // names of a directory's entries
	IsSocket func(string) bool              // the path exists and is a socket
	Home     func() (string, error)         // the user's home directory
}

// Socket returns the socket a client library uses for "localhost" and where
// its path came from ("MYSQL_UNIX_PORT", "/etc/mysql/my.cnf [client-server]",
// "compiled default"); found is false when that path is not a socket, or no
// path was named and no default path is one.
func (e Env) Socket() (path, source string, found bool) {
	e = e.withDefaults()
	if p := e.Getenv("MYSQL_UNIX_PORT"); p != "" {
		return p, "MYSQL_UNIX_PORT", e.IsSocket(p)
	}
	for _, f := range OptionFiles {
		if strings.HasPrefix(f, "~/") {
			home, err := e.Home()
			if err != nil || home == "" {
				continue
			}
			f = filepath.Join(home, f[2:])
		}
		if p, src := e.readOptions(f, 0); p != "" {
			path, source = p, src
		}
	}
	if path != "" {
		return path, source, e.IsSocket(path)
	}
	for _, p := range DefaultSockets {
		if e.IsSocket(p) {
			return p, "compiled default", true
		}
	}
	return "", "", false
}

// readOptions returns the last socket of a client group in file (and the
// files it includes), with where it was set; "" when none.
func (e Env) readOptions(file string, depth int) (socket, source string) {
	if depth > maxIncludeDepth {
		return "", ""
	}
	raw, err := e.ReadFile(file)
	if err != nil {
		return "", ""
	}
	group := ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case strings.HasPrefix(line, "!includedir"):
			dir := strings.TrimSpace(strings.TrimPrefix(line, "!includedir"))
			names, err := e.ReadDir(dir)
			if err != nil {
				continue
			}
			sort.Strings(names)
			for _, n := range names {
				if strings.HasSuffix(n, ".cnf") {
					if p, src := e.readOptions(filepath.Join(dir, n), depth+1); p != "" {
						socket, source = p, src
					}
				}
			}
			continue
		case strings.HasPrefix(line, "!include"):
			if p, src := e.readOptions(strings.TrimSpace(strings.TrimPrefix(line, "!include")), depth+1); p != "" {
				socket, source = p, src
			}
			continue
		case line[0] == '[':
			group = strings.ToLower(strings.TrimSpace(strings.Trim(line, "[]")))
			continue
		}
		if !clientGroups[group] {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || strings.ReplaceAll(strings.TrimSpace(name), "_", "-") != "socket" {
			continue
		}
		value = strings.TrimSpace(value)
		if i := strings.Index(value, " #"); i >= 0 {
			value = strings.TrimSpace(value[:i])
		}
		if v := strings.Trim(value, `"'`); v != "" {
			socket, source = v, file+" ["+group+"]"
		}
	}
	return socket, source
}

func (e Env) withDefaults() Env {
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.ReadFile == nil {
		e.ReadFile = os.ReadFile
	}
	if e.ReadDir == nil {
		e.ReadDir = func(dir string) ([]string, error) {
			entries, err := os.ReadDir(dir)
			names := make([]string, len(entries))
			for i, en := range entries {
				names[i] = en.Name()
			}
			return names, err
		}
	}
	if e.IsSocket == nil {
		e.IsSocket = func(p string) bool {
			fi, err := os.Stat(p)
			return err == nil && fi.Mode()&os.ModeSocket != 0
		}
	}
	if e.Home == nil {
		e.Home = os.UserHomeDir
	}
	return e
}
