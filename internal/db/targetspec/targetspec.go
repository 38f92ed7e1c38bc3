// Package targetspec turns a target's connection settings — the run
// command's --mysql-*/--pgsql-*/--sqlite-* flags or a plan's target: keys —
// into a driver.Config. It is the one place that knows the settings'
// defaults, the drivers' aliases and the checks, so that a flag and the plan
// key of the same name accept the same values and refuse the same mistakes
// with the same words (each in its own spelling: --mysql-port or port).
package targetspec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/mysql"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/db/mycnf"
)

// Key names one setting, spelled as a plan's target: key.
type Key string

// The settings.
const (
	Driver       Key = "driver"        // mysql, pgsql or sqlite, or an alias (ParseDriver)
	PSMode       Key = "ps_mode"       // auto or disable
	Host         Key = "host"          // a host, or a comma list
	Port         Key = "port"          // a port, or a comma list with one per host
	Socket       Key = "socket"        // a Unix socket instead of host and port
	User         Key = "user"          // the user name
	Password     Key = "password"      // the password itself (flags only: plans refuse it)
	PasswordEnv  Key = "password_env"  // the environment variable holding the password
	DB           Key = "db"            // the database name
	SSL          Key = "ssl"           // off, on, required, verify-ca or verify-full
	SSLCA        Key = "ssl_ca"        // the CA file for verify-ca/verify-full
	SSLCert      Key = "ssl_cert"      // the client certificate
	SSLKey       Key = "ssl_key"       // the client key
	IgnoreErrors Key = "ignore_errors" // error codes that roll back and retry an event
	SQLiteDB     Key = "sqlite_db"     // the embedded database's file
	SSLCipher    Key = "ssl_cipher"    // MySQL: the TLS 1.2 cipher suites allowed
	Compression  Key = "compression"   // MySQL: protocol compression, on or off
	DryRun       Key = "dry_run"       // MySQL: no server contacted, every call succeeds (flags only: plans have no such key)
	Isolation    Key = "isolation"     // the transaction isolation level of every connection
	SessionVars  Key = "session_vars"  // NAME=VALUE session variables of every connection, one a line
)

// Keys lists every setting, in the order of the run command's help.
var Keys = []Key{Driver, PSMode, Host, Port, Socket, User, Password, PasswordEnv, DB, SSL, SSLCA, SSLCert, SSLKey, IgnoreErrors, SQLiteDB, SSLCipher, Compression, DryRun, Isolation, SessionVars}

// Defaults of the settings not given.
const (
	DefaultHost       = "localhost"
	DefaultUser       = "sbtest"
	DefaultDB         = "sbtest"
	DefaultSSL        = "off"
	DefaultPSMode     = "auto"
	DefaultSQLitePath = "fairbench-data/fairbench.db"
)

// DefaultPort is the port of a server of kind (0 for SQLite).
func DefaultPort(kind string) int {
	switch kind {
	case driver.KindMySQL:
		return 3306
	case driver.KindPgSQL:
		return 5432
	}
	return 0
}

// DefaultPasswordEnv is the environment variable the password of a server of
// kind is read from when none is given ("" for SQLite).
func DefaultPasswordEnv(kind string) string {
	switch kind {
	case driver.KindMySQL:
		return "MYSQL_PWD"
	case driver.KindPgSQL:
		return "PGPASSWORD"
	}
	return ""
}

// ParseDriver resolves a driver name or alias (mariadb, postgres, pg, ...)
// to its kind; ok is false for a name no driver answers to.
func ParseDriver(name string) (kind string, ok bool) {
	switch name {
	case driver.KindMySQL, "mariadb", "tidb", "percona":
		return driver.KindMySQL, true
	case driver.KindPgSQL, "postgres", "postgresql", "pg":
		return driver.KindPgSQL, true
	case driver.KindSQLite:
		return driver.KindSQLite, true
	}
	return "", false
}

// Settings are the settings as given: a key present was given (even empty),
// a key absent takes its default.
type Settings map[Key]string

// Spelling says how messages write a setting: as the run command's flag or
// as the plan's key.
type Spelling int

// The spellings.
const (
	Flags Spelling = iota // --mysql-port, --db-driver
	Plan                  // port, driver
)

// Name is how sp writes key of a driver of kind (kind matters to flags only).
func (sp Spelling) Name(key Key, kind string) string {
	if sp == Plan {
		return string(key)
	}
	switch key {
	case Driver:
		return "--db-driver"
	case PSMode:
		return "--db-ps-mode"
	case SQLiteDB:
		return "--sqlite-db"
	case Isolation:
		return "--isolation-level"
	case SessionVars:
		return "--session-var"
	case PasswordEnv: // no flag: the run command reads DefaultPasswordEnv
		return "the password's environment variable"
	}
	if kind == "" {
		kind = driver.KindMySQL
	}
	return "--" + kind + "-" + strings.ReplaceAll(string(key), "_", "-")
}

// Given is how sp quotes a value given for key: --mysql-ssl=verify-ca or
// ssl "verify-ca".
func (sp Spelling) Given(key Key, kind, value string) string {
	if sp == Plan {
		return fmt.Sprintf("%s %q", key, value)
	}
	return sp.Name(key, kind) + "=" + value
}

// Suggest is how sp writes the setting to add: --mysql-ssl-ca=FILE or
// ssl_ca: FILE.
func (sp Spelling) Suggest(key Key, kind, value string) string {
	if sp == Plan {
		return fmt.Sprintf("%s: %s", key, value)
	}
	return sp.Name(key, kind) + "=" + value
}

// Error is a mistake in one setting.
type Error struct {
	Key Key    // the setting at fault
	Msg string // what is wrong and what to do, in the input's spelling
}

func (e *Error) Error() string { return e.Msg }

func errorf(key Key, format string, args ...any) error {
	return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Parse checks the settings s and turns them into a driver configuration and
// the ignore-errors list of the driver (checked against the driver's codes,
// but not resolved: the run does that with the driver's defaults). Without a
// driver the target is the embedded SQLite database. getenv reads the
// password's environment variable. Every error is an *Error.
func Parse(s Settings, sp Spelling, getenv func(string) string) (driver.Config, string, error) {
	cfg := driver.Config{Prepared: true}
	kind := driver.KindSQLite
	if name, given := s[Driver]; given {
		k, ok := ParseDriver(name)
		if !ok {
			return cfg, "", errorf(Driver, "unknown %s %q: use mysql, pgsql or sqlite", sp.Name(Driver, ""), name)
		}
		kind = k
	}
	cfg.Kind = kind
	switch mode := orDefault(s, PSMode, DefaultPSMode); mode {
	case "auto", "enable", "on":
	case "disable", "off":
		cfg.Prepared = false
	default:
		return cfg, "", errorf(PSMode, "unknown %s %q: use auto or disable", sp.Name(PSMode, kind), mode)
	}
	if err := parseSession(s, sp, kind, &cfg); err != nil {
		return cfg, "", err
	}
	ignore := s[IgnoreErrors]
	if kind == driver.KindSQLite {
		if _, given := s[Driver]; !given {
			for _, k := range []Key{Host, Port, Socket} {
				if _, ok := s[k]; ok {
					return cfg, "", errorf(k, "%s given without a driver: add %s or %s", sp.Name(k, ""),
						sp.Suggest(Driver, "", driver.KindMySQL), sp.Suggest(Driver, "", driver.KindPgSQL))
				}
			}
		}
		cfg.Path = orDefault(s, SQLiteDB, DefaultSQLitePath)
		if strings.TrimSpace(cfg.Path) == "" {
			return cfg, "", errorf(SQLiteDB, "%s must name a file", sp.Name(SQLiteDB, kind))
		}
		return cfg, ignore, checkIgnoreErrors(sp, kind, ignore)
	}
	cfg.Socket, cfg.User, cfg.Database = s[Socket], orDefault(s, User, DefaultUser), orDefault(s, DB, DefaultDB)
	hosts := orDefault(s, Host, DefaultHost)
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			return cfg, "", errorf(Host, "%s has an empty entry in %q", sp.Name(Host, kind), hosts)
		}
		cfg.Hosts = append(cfg.Hosts, h)
	}
	ports := orDefault(s, Port, strconv.Itoa(DefaultPort(kind)))
	for _, p := range strings.Split(ports, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 65535 {
			return cfg, "", errorf(Port, "%s %q: give a port number from 1 to 65535 (or a comma list, one per host)", sp.Name(Port, kind), ports)
		}
		cfg.Ports = append(cfg.Ports, n)
	}
	if len(cfg.Ports) > 1 && len(cfg.Ports) != len(cfg.Hosts) && len(cfg.Hosts) > 1 {
		return cfg, "", errorf(Port, "%s lists %d ports for %d hosts: give one port, or one per host", sp.Name(Port, kind), len(cfg.Ports), len(cfg.Hosts))
	}
	var err error
	if cfg.SSL, err = driver.ParseSSLMode(orDefault(s, SSL, DefaultSSL)); err != nil {
		return cfg, "", errorf(SSL, "%s: %v", sp.Name(SSL, kind), err)
	}
	if (cfg.SSL == driver.SSLVerifyCA || cfg.SSL == driver.SSLVerifyFull) && s[SSLCA] == "" {
		return cfg, "", errorf(SSL, "%s needs %s to verify the server", sp.Given(SSL, kind, string(cfg.SSL)), sp.Suggest(SSLCA, kind, "FILE"))
	}
	cfg.SSLCA, cfg.SSLCert, cfg.SSLKey = s[SSLCA], s[SSLCert], s[SSLKey]
	for _, k := range []Key{SSLCipher, Compression, DryRun} {
		if _, given := s[k]; given && kind != driver.KindMySQL {
			return cfg, "", errorf(k, "%s is for MySQL only: leave it out", sp.Name(k, driver.KindMySQL))
		}
	}
	cfg.SSLCipher = s[SSLCipher]
	if cfg.SSLCipher != "" && cfg.SSL == driver.SSLOff {
		return cfg, "", errorf(SSLCipher, "%s needs TLS: add %s (or on, verify-ca, verify-full)", sp.Name(SSLCipher, kind), sp.Suggest(SSL, kind, "required"))
	}
	if cfg.SSLCipher != "" {
		if _, err := mysql.CipherSuites(cfg.SSLCipher); err != nil {
			return cfg, "", errorf(SSLCipher, "%v", err)
		}
	}
	for _, sw := range []struct {
		key Key
		on  *bool
	}{{Compression, &cfg.Compression}, {DryRun, &cfg.DryRun}} {
		switch v := strings.ToLower(strings.TrimSpace(orDefault(s, sw.key, "off"))); v {
		case "on", "true", "yes", "1":
			*sw.on = true
		case "off", "false", "no", "0", "":
		default:
			return cfg, "", errorf(sw.key, "%s: use on or off", sp.Given(sw.key, kind, v))
		}
	}
	_, portGiven := s[Port]
	if cfg.Kind == driver.KindMySQL && cfg.Socket == "" && !portGiven && cfg.SSL == driver.SSLOff &&
		len(cfg.Hosts) == 1 && cfg.Hosts[0] == "localhost" {
		// libmysqlclient (and so sysbench) reaches "localhost" through the
		// Unix socket its configuration names; an explicit port, or TLS
		// asked for (never used over a socket), keeps TCP.
		if path, _, found := (mycnf.Env{Getenv: getenv}).Socket(); found {
			cfg.Socket = path
		}
	}
	if cfg.Kind == driver.KindPgSQL && cfg.Socket == "" && len(cfg.Hosts) == 1 && strings.HasPrefix(cfg.Hosts[0], "/") {
		// libpq (and so psql and sysbench: --pgsql-host=/var/run/postgresql)
		// reads a host that starts with "/" as the directory of the server's
		// Unix socket. It is the socket, as --pgsql-socket gives it: the run
		// is on this machine's server, over a socket, and says so.
		cfg.Socket, cfg.Hosts = cfg.Hosts[0], []string{DefaultHost}
	}
	cfg.Password = s[Password]
	if cfg.Password == "" {
		envVar, named := s[PasswordEnv]
		if !named {
			envVar = DefaultPasswordEnv(kind)
		}
		cfg.Password = getenv(envVar)
		if named && cfg.Password == "" {
			return cfg, "", errorf(PasswordEnv, "the environment variable %s holds no password: export %s=... before running", envVar, envVar)
		}
	}
	return cfg, ignore, checkIgnoreErrors(sp, kind, ignore)
}

// parseSession reads the isolation level and the session variables (one
// NAME=VALUE a line) that every connection sets.
func parseSession(s Settings, sp Spelling, kind string, cfg *driver.Config) error {
	var err error
	if cfg.Isolation, err = driver.ParseIsolation(s[Isolation]); err != nil {
		return errorf(Isolation, "%s: %v", sp.Name(Isolation, kind), err)
	}
	for _, line := range strings.Split(s[SessionVars], "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := driver.ParseSessionVar(line)
		if err != nil {
			return errorf(SessionVars, "%s: %v", sp.Name(SessionVars, kind), err)
		}
		cfg.SessionVars = append(cfg.SessionVars, v)
	}
	return nil
}

// checkIgnoreErrors refuses, before anything connects, an ignore-errors
// value with a code that the driver's errors never carry.
func checkIgnoreErrors(sp Spelling, kind, spec string) error {
	if _, err := driver.ParseErrorPolicy(spec, nil, open.ErrorCodeCheck(kind)); err != nil {
		return errorf(IgnoreErrors, "%s: %v", sp.Given(IgnoreErrors, kind, spec), err)
	}
	return nil
}

// orDefault is the value given for key, or def when none was.
func orDefault(s Settings, key Key, def string) string {
	if v, ok := s[key]; ok {
		return v
	}
	return def
}
