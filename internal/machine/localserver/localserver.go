// Package localserver starts, stops and inspects a private database server
// process that fairbench owns: MariaDB, MySQL or PostgreSQL, run from the
// server binaries installed on this machine, with a configuration generated
// from a profile so that a benchmark can be repeated on another machine with
// the same settings.
//
// Everything the server needs lives in one private directory (Options.Dir):
//
//	data/                      the data directory (initialised on the first start, reused after)
//	my.cnf                     the generated configuration (MariaDB, MySQL)
//	postgresql.fairbench.conf  the generated configuration (PostgreSQL; data/postgresql.conf includes it)
//	mysqld.sock, .s.PGSQL.N    the Unix socket
//	error.log, server.log      the server's log
//	fairbench-server.json      the state file that Stop and Status read
//
// The server listens on 127.0.0.1 only and trusts local connections (root
// without a password on MariaDB and MySQL, postgres with trust authentication
// on PostgreSQL): it is a benchmark server, not one to keep data in.
package localserver

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Flavor names the database server.
type Flavor string

// The server flavors fairbench can run.
const (
	FlavorMariaDB  Flavor = "mariadb"
	FlavorMySQL    Flavor = "mysql"
	FlavorPostgres Flavor = "postgres"
)

// ParseFlavor validates a --flavor value; "postgresql" and "pg" mean postgres.
func ParseFlavor(s string) (Flavor, error) {
	switch f := Flavor(strings.ToLower(strings.TrimSpace(s))); f {
	case FlavorMariaDB, FlavorMySQL, FlavorPostgres:
		return f, nil
	case "postgresql", "pg", "pgsql":
		return FlavorPostgres, nil
	case "":
		return "", fmt.Errorf("no server flavor given: use mariadb, mysql or postgres")
	}
	return "", fmt.Errorf("unknown server flavor %q: use mariadb, mysql or postgres", s)
}

// mysqlFamily reports whether f speaks the MySQL protocol and reads my.cnf.
func (f Flavor) mysqlFamily() bool { return f == FlavorMariaDB || f == FlavorMySQL }

// Profile names a generated server configuration.
type Profile string

// The configuration profiles. The two sized profiles follow the method of the
// ARM-vs-x86 MySQL studies fairbench learns from: "CPU bound: buffer pool large
// enough to hold the complete data set" and "IO bound: buffer pool holds about
// 50% of the data". See Generate for the settings each gives.
const (
	// ProfileCPUBound sizes the buffer pool (shared_buffers) to hold the whole
	// data set with room to spare, so that a warmed-up run reads nothing from
	// disk and measures CPU, locking and the redo/WAL path.
	ProfileCPUBound Profile = "cpu-bound"
	// ProfileIOBound sizes the buffer pool to about half the data set, so that
	// a uniform workload misses the cache about half the time and measures the
	// storage as well.
	ProfileIOBound Profile = "io-bound"
	// ProfileCustom writes only the user's settings (plus the private paths and
	// port): the server's own defaults for everything else.
	ProfileCustom Profile = "custom"
)

// ParseProfile validates a --profile value; "cpu" and "io" are short forms.
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(strings.ToLower(strings.TrimSpace(s))); p {
	case ProfileCPUBound, ProfileIOBound, ProfileCustom:
		return p, nil
	case "cpu", "cpubound", "cpu_bound":
		return ProfileCPUBound, nil
	case "io", "iobound", "io_bound":
		return ProfileIOBound, nil
	}
	return "", fmt.Errorf("unknown server profile %q: use cpu-bound, io-bound or custom", s)
}

// Options say which server to run, where, and how to size it.
type Options struct {
	Flavor  Flavor
	Profile Profile
	// Dir is the server's private directory: data directory, socket, generated
	// configuration, log and state file. It is created when missing; an
	// existing directory must be empty or hold a server fairbench started.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one (the previous
	// port of Dir when it is still free, so that restarts keep the address).
	Port int
	// DataBytes is the data set size the profile is sized for (0 means 1 GiB).
	DataBytes int64
	// MemoryBytes is the machine memory for the safety cap (0 reads
	// /proc/meminfo, lowered to the cgroup memory limit when there is one).
	MemoryBytes int64
	// Settings are the user's settings by the server's own names. They
	// override the profile's; for ProfileCustom they are the whole tuning.
	Settings map[string]string
	// BinDir is searched first for the server programs (mariadbd,
	// mariadb-install-db, mysqld, postgres, initdb, pg_ctl); empty means the
	// usual Debian locations and $PATH.
	BinDir string
	// CPUs pins every thread of the server to these CPUs (it is started
	// through cpuset.Command, so all its threads inherit the mask); empty
	// leaves it unpinned, with fairbench's own affinity. Start refuses CPUs
	// outside the online ones this process may use.
	CPUs cpuset.Set
}

// Server is a running server that Start started.
type Server struct {
	Flavor  Flavor
	Profile Profile
	// Dir is the absolute private directory.
	Dir string
	// Port is the TCP port on 127.0.0.1.
	Port int
	// Socket is the Unix socket file (for PostgreSQL: Dir/.s.PGSQL.Port).
	Socket string
	// PID is the server process (the postmaster for PostgreSQL).
	PID int
	// Version is what the server binary says about itself (--version).
	Version string
	// ConfigFile is the generated configuration file.
	ConfigFile string
	// LogFile is the server's log.
	LogFile string
	// Managed is the generated configuration, for the result file.
	Managed result.ManagedServer
	// Notes say where the profile could not be followed (a capped buffer pool).
	Notes []string
	// CPUs is the set the server is pinned to (Managed.CPUList); empty when unpinned.
	CPUs cpuset.Set
}

// DriverConfig returns the driver configuration that reaches the server over
// its Unix socket: root on MariaDB and MySQL, postgres on PostgreSQL, database
// sbtest in both cases, server-side prepared statements on.
func (s *Server) DriverConfig() driver.Config {
	cfg := driver.Config{Socket: s.Socket, Database: Database, Prepared: true,
		Hosts: []string{"127.0.0.1"}, Ports: []int{s.Port}}
	switch {
	case s.Flavor.mysqlFamily():
		cfg.Kind, cfg.User = driver.KindMySQL, "root"
	default:
		cfg.Kind, cfg.User = driver.KindPgSQL, "postgres"
	}
	return cfg
}

// ConnectFlags returns the fairbench command-line flags that reach the server:
// over the Unix socket, and over TCP on 127.0.0.1.
func (s *Server) ConnectFlags() (socket, tcp []string) {
	port := strconv.Itoa(s.Port)
	if s.Flavor.mysqlFamily() {
		return []string{"--mysql-socket=" + s.Socket, "--mysql-user=root", "--mysql-db=" + Database},
			[]string{"--mysql-host=127.0.0.1", "--mysql-port=" + port, "--mysql-user=root", "--mysql-db=" + Database}
	}
	return []string{"--pgsql-socket=" + s.Socket, "--pgsql-user=postgres", "--pgsql-db=" + Database},
		[]string{"--pgsql-host=127.0.0.1", "--pgsql-port=" + port, "--pgsql-user=postgres", "--pgsql-db=" + Database}
}

// Database is the database Start creates for the benchmark (sysbench's default).
const Database = "sbtest"

// Fixed names inside the private directory.
const (
	stateFileName   = "fairbench-server.json"
	dataDirName     = "data"
	mysqlConfigName = "my.cnf"
	pgConfigName    = "postgresql.fairbench.conf"
	mysqlSocketName = "mysqld.sock"
	mysqlPIDName    = "mysqld.pid"
	mysqlErrorLog   = "error.log"
	mysqlOutputLog  = "mysqld.out"
	pgLogName       = "server.log"
)

// layout names the files of a private directory.
type layout struct {
	dir string // absolute
}

func (l layout) state() string { return filepath.Join(l.dir, stateFileName) }
func (l layout) data() string  { return filepath.Join(l.dir, dataDirName) }

func (l layout) config(f Flavor) string {
	if f.mysqlFamily() {
		return filepath.Join(l.dir, mysqlConfigName)
	}
	return filepath.Join(l.dir, pgConfigName)
}

func (l layout) socket(f Flavor, port int) string {
	if f.mysqlFamily() {
		return filepath.Join(l.dir, mysqlSocketName)
	}
	return filepath.Join(l.dir, ".s.PGSQL."+strconv.Itoa(port))
}

func (l layout) log(f Flavor) string {
	if f.mysqlFamily() {
		return filepath.Join(l.dir, mysqlErrorLog)
	}
	return filepath.Join(l.dir, pgLogName)
}

// absDir returns dir as an absolute, clean path.
func absDir(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", fmt.Errorf("no server directory given: set a private directory for the server (--dir)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("server directory %s: %w", dir, err)
	}
	return abs, nil
}

func (l layout) pidFile() string { return filepath.Join(l.dir, mysqlPIDName) }
