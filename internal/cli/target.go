package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/targetspec"
	"github.com/fairbench/fairbench/internal/run/setup"
)

// DefaultSQLitePath is where the embedded default keeps its database.
const DefaultSQLitePath = targetspec.DefaultSQLitePath

// serverFlags are the --mysql-* or --pgsql-* connection flags of one protocol.
type serverFlags struct {
	prefix                      string // "mysql" or "pgsql"
	hosts, ports                string
	socket, user, password, db  string
	ssl, sslCA, sslCert, sslKey string
	ignoreErrors                string
	sslCipher, compression      string // MySQL only
	dryRun                      string // MySQL only: --mysql-dry-run
}

func (s *serverFlags) register(fs *pflag.FlagSet, kind string) {
	p := s.prefix
	passwordEnv := targetspec.DefaultPasswordEnv(kind)
	fs.StringVar(&s.hosts, p+"-host", targetspec.DefaultHost, "server host name or IP; a comma list spreads connections round-robin")
	fs.StringVar(&s.ports, p+"-port", strconv.Itoa(targetspec.DefaultPort(kind)), "server port; a comma list gives one port per host")
	fs.StringVar(&s.socket, p+"-socket", "", "Unix socket path (used instead of host and port)")
	fs.StringVar(&s.user, p+"-user", targetspec.DefaultUser, "user name")
	fs.StringVar(&s.password, p+"-password", "", "password (or set "+passwordEnv+"); never written to output or results")
	fs.StringVar(&s.db, p+"-db", targetspec.DefaultDB, "database name")
	fs.StringVar(&s.ssl, p+"-ssl", targetspec.DefaultSSL, "TLS: off, on (TLS when the server offers it; a fall-back to plain text is warned), required, verify-ca or verify-full")
	fs.StringVar(&s.sslCA, p+"-ssl-ca", "", "CA certificate file for verify-ca/verify-full")
	fs.StringVar(&s.sslCert, p+"-ssl-cert", "", "client certificate file")
	fs.StringVar(&s.sslKey, p+"-ssl-key", "", "client private key file")
	fs.StringVar(&s.ignoreErrors, p+"-ignore-errors", "", "server error codes that roll back and retry the event instead of stopping the run: a comma list, all, or none (default: the driver's, as sysbench)")
}

// targetFlags are all connection flags.
type targetFlags struct {
	kind       string
	psMode     string
	mysql      serverFlags
	pgsql      serverFlags
	sqlitePath string
	sqliteIgn  string
	// isolation and sessionVars are set on every connection, whatever the driver.
	isolation   string
	sessionVars []string
}

func newTargetFlags(fs *pflag.FlagSet) *targetFlags {
	t := &targetFlags{mysql: serverFlags{prefix: "mysql"}, pgsql: serverFlags{prefix: "pgsql"}}
	fs.StringVar(&t.kind, "db-driver", "", "database driver: mysql, pgsql or sqlite (default: sqlite unless --mysql-* or --pgsql-* flags name a server)")
	fs.StringVar(&t.psMode, "db-ps-mode", targetspec.DefaultPSMode, "statement mode: auto (server-side prepared statements) or disable (plain text statements)")
	t.mysql.register(fs, driver.KindMySQL)
	fs.StringVar(&t.mysql.sslCipher, "mysql-ssl-cipher", "", "TLS 1.2 cipher suites allowed, ':'-separated, OpenSSL's names (ECDHE-RSA-AES128-GCM-SHA256); holds the connection to TLS 1.2, as Go's TLS chooses TLS 1.3's suite itself")
	fs.StringVar(&t.mysql.compression, "mysql-compression", "off", "protocol compression (zlib): on or off")
	fs.Lookup("mysql-compression").NoOptDefVal = "on"
	fs.StringVar(&t.mysql.dryRun, "mysql-dry-run", "off", "dry run, as sysbench's: contact no server and pretend every call succeeds (no rows), so that the figures measure the client alone (statement generation, random numbers, timing); on or off; the result says so (target.dry_run)")
	fs.Lookup("mysql-dry-run").NoOptDefVal = "on"
	t.pgsql.register(fs, driver.KindPgSQL)
	fs.StringVar(&t.sqlitePath, "sqlite-db", DefaultSQLitePath, "SQLite database file of the embedded default")
	fs.StringVar(&t.sqliteIgn, "sqlite-ignore-errors", "", "SQLite error codes that roll back and retry the event: a comma list (SQLITE_BUSY,SQLITE_LOCKED), all, or none")
	fs.StringVar(&t.isolation, "isolation-level", "", "transaction isolation level of every connection: read-uncommitted, read-committed, repeatable-read or serializable (default: the server's); set again after a reconnect and read back into the result")
	fs.StringArrayVar(&t.sessionVars, "session-var", nil, "NAME=VALUE: a session variable every connection sets (MySQL system variable, PostgreSQL parameter, SQLite pragma), again after a reconnect; repeat for several; the server's value is read back into the result")
	return t
}

// secretFlags are the flags whose values never appear in output or results
// (setup.Secrets: the passwords).
var secretFlags = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range setup.Secrets() {
		m[name] = true
	}
	return m
}()

// resolveKind picks the driver: explicit --db-driver, else the protocol whose flags
// were given, else the embedded SQLite default.
func (t *targetFlags) resolveKind(fs *pflag.FlagSet) (string, error) {
	if t.kind != "" {
		kind, ok := targetspec.ParseDriver(t.kind)
		if !ok {
			return "", fmt.Errorf("unknown --db-driver %q: use mysql, pgsql or sqlite", t.kind)
		}
		return kind, nil
	}
	var my, pg bool
	fs.Visit(func(f *pflag.Flag) {
		switch driverOf(f.Name) {
		case driver.KindMySQL:
			my = true
		case driver.KindPgSQL:
			pg = true
		}
	})
	switch {
	case my && pg:
		return "", fmt.Errorf("both --mysql-* and --pgsql-* flags given: choose one with --db-driver=mysql or --db-driver=pgsql")
	case my:
		return driver.KindMySQL, nil
	case pg:
		return driver.KindPgSQL, nil
	}
	return driver.KindSQLite, nil
}

// driverOf returns the driver whose connection option flag is (mysql, pgsql
// or sqlite), or "" for an option of no driver. --mysql-storage-engine is a
// workload option, used by the MySQL dialect and ignored by the others.
func driverOf(flag string) string {
	if flag == "mysql-storage-engine" {
		return ""
	}
	for _, kind := range []string{driver.KindMySQL, driver.KindPgSQL, driver.KindSQLite} {
		if strings.HasPrefix(flag, kind+"-") {
			return kind
		}
	}
	return ""
}

// ignoredGiven names the connection options given for another driver than
// the one the command uses ("--db-driver=sqlite --mysql-host=db1"): sysbench
// ignores them, and so does fairbench, but says so. None when the driver
// cannot be resolved (config reports that).
func (t *targetFlags) ignoredGiven(fs *pflag.FlagSet) []string {
	kind, given := t.otherDriverFlags(fs)
	if len(given) == 0 {
		return nil
	}
	how := "--db-driver=" + t.kind
	if t.kind == "" { // without --db-driver, only sqlite-* options can be another driver's
		how = "chosen by the --" + kind + "-* options"
	}
	return []string{fmt.Sprintf("%s given, but the driver is %s (%s): ignored, as sysbench ignores another driver's options",
		strings.Join(given, ", "), kind, how)}
}

// otherDriverFlags returns the driver the command uses and the connection
// options given for another one ("--mysql-host"), none when the driver
// cannot be resolved (config reports that).
func (t *targetFlags) otherDriverFlags(fs *pflag.FlagSet) (kind string, given []string) {
	kind, err := t.resolveKind(fs)
	if err != nil {
		return "", nil
	}
	fs.Visit(func(f *pflag.Flag) {
		if d := driverOf(f.Name); d != "" && d != kind {
			given = append(given, "--"+f.Name)
		}
	})
	return kind, given
}

// config builds and validates the driver configuration: the driver is
// resolved from the flags given (resolveKind), and the chosen driver's flags
// that were given go to the one parser of target settings (targetspec), which
// plans use too.
func (t *targetFlags) config(fs *pflag.FlagSet, getenv func(string) string) (driver.Config, string, error) {
	kind, err := t.resolveKind(fs)
	if err != nil {
		return driver.Config{}, "", err
	}
	if err := psModeOfQueryMode(fs); err != nil {
		return driver.Config{}, "", err
	}
	return targetspec.Parse(t.settings(fs, kind), targetspec.Flags, getenv)
}

// psModeOfQueryMode sets --db-ps-mode from the pgbench workloads'
// --query-mode (pgbench -M): simple sends text statements (disable),
// extended and prepared bind parameters (auto); both given and at odds are
// refused, so that no result records one mode and ran the other.
func psModeOfQueryMode(fs *pflag.FlagSet) error {
	qm := fs.Lookup("query-mode")
	if qm == nil || !fs.Changed("query-mode") || qm.Value.String() == "" {
		return nil
	}
	want := "auto"
	if qm.Value.String() == "simple" {
		want = "disable"
	}
	if ps := fs.Lookup("db-ps-mode"); ps != nil && fs.Changed("db-ps-mode") {
		if ps.Value.String() != want {
			return fmt.Errorf("--query-mode=%s needs --db-ps-mode=%s, not %s: give one of the two", qm.Value, want, ps.Value)
		}
		return nil
	}
	return fs.Set("db-ps-mode", want)
}

// settings are the flags of driver kind that were given, as target settings
// (the flags' defaults are targetspec's).
func (t *targetFlags) settings(fs *pflag.FlagSet, kind string) targetspec.Settings {
	s := targetspec.Settings{targetspec.Driver: kind}
	given := func(key targetspec.Key, flag, value string) {
		if fs.Changed(flag) {
			s[key] = value
		}
	}
	given(targetspec.PSMode, "db-ps-mode", t.psMode)
	given(targetspec.Isolation, "isolation-level", t.isolation)
	given(targetspec.SessionVars, "session-var", strings.Join(t.sessionVars, "\n"))
	if kind == driver.KindSQLite {
		given(targetspec.SQLiteDB, "sqlite-db", t.sqlitePath)
		given(targetspec.IgnoreErrors, "sqlite-ignore-errors", t.sqliteIgn)
		return s
	}
	f := &t.mysql
	if kind == driver.KindPgSQL {
		f = &t.pgsql
	}
	for key, value := range map[targetspec.Key]string{
		targetspec.Host: f.hosts, targetspec.Port: f.ports, targetspec.Socket: f.socket,
		targetspec.User: f.user, targetspec.Password: f.password, targetspec.DB: f.db,
		targetspec.SSL: f.ssl, targetspec.SSLCA: f.sslCA, targetspec.SSLCert: f.sslCert, targetspec.SSLKey: f.sslKey,
		targetspec.IgnoreErrors: f.ignoreErrors, targetspec.SSLCipher: f.sslCipher, targetspec.Compression: f.compression,
		targetspec.DryRun: f.dryRun,
	} {
		given(key, targetspec.Flags.Name(key, kind)[2:], value)
	}
	return s
}

// describeTarget names the target for messages, without credentials.
func describeTarget(cfg driver.Config) string { return cfg.Describe() }

// redactArgs returns args with the values of secret flags replaced.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !secretFlags[strings.ReplaceAll(name, "_", "-")] { // --mysql_password, as sysbench spells it too
			continue
		}
		if hasValue {
			out[i] = "--" + name + "=***"
		} else if i+1 < len(out) {
			out[i+1] = "***"
			i++
		}
	}
	return out
}

// resolvedOptions returns every flag's value as parsed, secrets redacted
// (setup.Options.AddFlags).
func resolvedOptions(fs *pflag.FlagSet) map[string]string {
	opts := setup.Options{}
	opts.AddFlags(fs)
	return opts
}
