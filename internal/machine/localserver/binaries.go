package localserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/procutil"
)

// installation is the server programs of one flavor found on this machine.
type installation struct {
	flavor Flavor
	// daemon is mariadbd, mysqld or postgres.
	daemon string
	// initDB initialises a data directory: mariadb-install-db or initdb
	// (empty for MySQL, whose daemon does it with --initialize-insecure).
	initDB string
	// pgCtl is PostgreSQL's pg_ctl.
	pgCtl string
	// version is the first line the daemon prints for --version.
	version string
	// pgMajor is PostgreSQL's major version ("15"), to match PG_VERSION.
	pgMajor string
}

// The installation hints of the messages.
const (
	installMariaDB  = "install the Debian package mariadb-server (apt-get install mariadb-server)"
	installMySQL    = "install MySQL Community Server (package mysql-server from Oracle's APT repository, https://dev.mysql.com/downloads/repo/apt/) or use --flavor=mariadb"
	installPostgres = "install the Debian package postgresql (apt-get install postgresql)"
)

// findInstallation locates the programs of flavor, searching binDir first,
// and checks that the daemon is the flavor it claims (Debian's mysqld is a
// link to mariadbd).
func findInstallation(ctx context.Context, f Flavor, binDir string) (installation, error) {
	in := installation{flavor: f}
	switch f {
	case FlavorMariaDB:
		var tried []string
		for _, name := range []string{"mariadbd", "mysqld"} {
			for _, path := range candidates(binDir, name, "/usr/sbin", "/usr/bin", "/usr/local/mysql/bin") {
				tried = append(tried, path)
				v, err := daemonVersion(ctx, path)
				if err != nil || !strings.Contains(v, "MariaDB") {
					continue
				}
				in.daemon, in.version = path, v
				break
			}
			if in.daemon != "" {
				break
			}
		}
		if in.daemon == "" {
			return in, fmt.Errorf("MariaDB's server is not installed (no MariaDB mariadbd or mysqld among %s): %s", strings.Join(dedupe(tried), ", "), installMariaDB)
		}
		in.initDB = firstExecutable(append(candidates(binDir, "mariadb-install-db", "/usr/bin", "/usr/sbin", "/usr/local/mysql/scripts"),
			candidates(binDir, "mysql_install_db", "/usr/bin", "/usr/sbin", "/usr/local/mysql/scripts")...))
		if in.initDB == "" {
			return in, fmt.Errorf("MariaDB's mariadb-install-db is not installed (needed to create the data directory): %s", installMariaDB)
		}
	case FlavorMySQL:
		var seen []string
		for _, path := range candidates(binDir, "mysqld", "/usr/sbin", "/usr/bin", "/usr/local/mysql/bin") {
			v, err := daemonVersion(ctx, path)
			if err != nil {
				continue
			}
			if strings.Contains(v, "MariaDB") {
				seen = append(seen, fmt.Sprintf("%s is MariaDB, %s", path, v))
				continue
			}
			in.daemon, in.version = path, v
			break
		}
		if in.daemon == "" {
			what := "no mysqld found"
			if len(seen) > 0 {
				what = strings.Join(seen, "; ")
			}
			return in, fmt.Errorf("flavor mysql: MySQL's server is not installed (%s): %s", what, installMySQL)
		}
	case FlavorPostgres:
		dir := postgresBinDir(binDir)
		if dir == "" {
			return in, fmt.Errorf("PostgreSQL's server is not installed (no postgres, initdb and pg_ctl in /usr/lib/postgresql/*/bin or $PATH): %s", installPostgres)
		}
		in.daemon, in.initDB, in.pgCtl = filepath.Join(dir, "postgres"), filepath.Join(dir, "initdb"), filepath.Join(dir, "pg_ctl")
		v, err := daemonVersion(ctx, in.daemon)
		if err != nil {
			return in, fmt.Errorf("PostgreSQL's server at %s does not run: %w", in.daemon, err)
		}
		in.version = v
		in.pgMajor = pgMajorVersion(v)
	default:
		return in, fmt.Errorf("unknown server flavor %q: use mariadb, mysql or postgres", f)
	}
	return in, nil
}

// candidates returns name in binDir (when given), in each of dirs, and in $PATH.
func candidates(binDir, name string, dirs ...string) []string {
	var out []string
	if binDir != "" {
		out = append(out, filepath.Join(binDir, name))
	}
	for _, d := range dirs {
		out = append(out, filepath.Join(d, name))
	}
	if p, err := exec.LookPath(name); err == nil {
		out = append(out, p)
	}
	return dedupe(out)
}

// dedupe drops repeated entries, keeping the first.
func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// isExecutable reports whether path is an executable file.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// firstExecutable returns the first executable path, or "".
func firstExecutable(paths []string) string {
	for _, p := range paths {
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

// daemonVersion runs path --version and returns its first line, trimmed.
func daemonVersion(ctx context.Context, path string) (string, error) {
	if !isExecutable(path) {
		return "", fmt.Errorf("%s: not an executable file", path)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", path, err, procutil.Tail(out))
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	fields := strings.Fields(first)
	// MariaDB and MySQL start with their own path: "/usr/sbin/mariadbd Ver 10.11…".
	if len(fields) > 1 && filepath.IsAbs(fields[0]) {
		fields = fields[1:]
	}
	return strings.Join(fields, " "), nil
}

// postgresBinDir returns the directory holding postgres, initdb and pg_ctl:
// binDir when it has them, else the newest /usr/lib/postgresql/N/bin, else
// the directory of pg_ctl in $PATH; "" when there is none.
func postgresBinDir(binDir string) string {
	complete := func(dir string) bool {
		return isExecutable(filepath.Join(dir, "postgres")) && isExecutable(filepath.Join(dir, "initdb")) &&
			isExecutable(filepath.Join(dir, "pg_ctl"))
	}
	if binDir != "" && complete(binDir) {
		return binDir
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(d string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if complete(d) {
			return d
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil && complete(filepath.Dir(p)) {
		return filepath.Dir(p)
	}
	return ""
}

// pgMajorVersion returns the major version of "postgres (PostgreSQL) 15.20 (…)":
// "15" (for 9.6: "9.6", as PG_VERSION writes it).
func pgMajorVersion(version string) string {
	_, rest, ok := strings.Cut(version, "(PostgreSQL) ")
	if !ok {
		return ""
	}
	num, _, _ := strings.Cut(rest, " ")
	parts := strings.Split(num, ".")
	if len(parts) >= 2 && parts[0] == "9" {
		return parts[0] + "." + parts[1]
	}
	if end := strings.IndexFunc(parts[0], func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
		return parts[0][:end]
	}
	return parts[0]
}
