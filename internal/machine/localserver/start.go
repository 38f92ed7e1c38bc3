package localserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fairbench/fairbench/internal/base/procutil"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// maxSocketPath is the longest Unix socket path Linux accepts (sun_path less its NUL).
const maxSocketPath = 107

// Start starts the server opts describe and returns when it accepts
// connections. It initialises the data directory when there is none and
// reuses an existing one (a plan restarts the same data under another
// profile), writes the generated configuration, creates the database sbtest
// when missing, and writes a state file into opts.Dir for Stop and Status.
// The server runs on after the calling process exits; stop it with Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	// Validate everything the user gave before touching the disk.
	if _, err := generate(opts); err != nil {
		return nil, err
	}
	if !opts.CPUs.IsEmpty() {
		if err := cpuset.CheckUsable(os.DirFS("/"), os.Getpid(), opts.CPUs, "server CPUs"); err != nil {
			return nil, err
		}
	}
	flavor, _ := ParseFlavor(string(opts.Flavor))
	in, err := findInstallation(ctx, flavor, opts.BinDir)
	if err != nil {
		return nil, err
	}
	dir, err := absDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	l := layout{dir: dir}
	prev, err := prepareDir(l, flavor)
	if err != nil {
		return nil, err
	}
	opts.Dir = dir
	if opts.Port, err = choosePort(opts.Port, prev); err != nil {
		return nil, err
	}
	p, err := generate(opts)
	if err != nil {
		return nil, err
	}
	srv := &Server{
		Flavor: flavor, Profile: p.profile, Dir: dir, Port: opts.Port, Socket: l.socket(flavor, opts.Port),
		Version: in.version, ConfigFile: l.config(flavor), LogFile: l.log(flavor), Managed: p.managed, Notes: p.notes,
		CPUs: opts.CPUs,
	}
	if len(srv.Socket) > maxSocketPath {
		return nil, fmt.Errorf("the server's socket %s would be %d bytes long, more than the %d a Unix socket allows: use a shorter --dir",
			srv.Socket, len(srv.Socket), maxSocketPath)
	}
	st := &stateFile{Flavor: flavor, Profile: p.profile, Port: srv.Port, Socket: srv.Socket, Daemon: in.daemon,
		Version: in.version, Notes: p.notes, Managed: p.managed}
	if flavor == FlavorPostgres {
		err = startPostgres(ctx, in, l, p, srv, st)
	} else {
		err = startMySQL(ctx, in, l, p, srv, st)
	}
	if err != nil {
		return nil, err
	}
	return srv, nil
}

// prepareDir creates the private directory or checks that an existing one
// holds a stopped server of flavor (or nothing), and returns the previous
// state when there is one.
func prepareDir(l layout, f Flavor) (*stateFile, error) {
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the server directory: %w", err)
	}
	prev, err := readState(l)
	switch {
	case errors.Is(err, ErrNoServer):
		prev = nil
		entries, err := os.ReadDir(l.dir)
		if err != nil {
			return nil, fmt.Errorf("read the server directory: %w", err)
		}
		if len(entries) > 0 && !exists(l.data()) {
			return nil, fmt.Errorf("%s is not empty and holds no fairbench server: choose a new or empty directory for --dir", l.dir)
		}
	case err != nil:
		return nil, err
	default:
		if prev.Flavor != f {
			return nil, fmt.Errorf("%s holds a %s server, not %s: use --flavor=%s, or another --dir for a %s server", l.dir, prev.Flavor, f, prev.Flavor, f)
		}
		if pid := runningPID(l, prev); pid > 0 {
			return nil, fmt.Errorf("a %s server is already running in %s (pid %d): stop it first with fairbench server stop --dir=%s", prev.Flavor, l.dir, pid, l.dir)
		}
	}
	switch kind := dataKind(l.data()); {
	case kind == "":
	case kind == "postgres" && f != FlavorPostgres:
		return nil, fmt.Errorf("%s holds a PostgreSQL data directory, not %s: use --flavor=postgres, or another --dir", l.data(), f)
	case kind == "mysql" && f == FlavorPostgres:
		return nil, fmt.Errorf("%s holds a MariaDB or MySQL data directory, not PostgreSQL: use --flavor=mariadb or mysql, or another --dir", l.data())
	}
	return prev, nil
}

// dataKind recognises a data directory: "postgres", "mysql" (MariaDB or
// MySQL), or "" when it is missing or empty. Anything else is "unknown".
func dataKind(data string) string {
	entries, err := os.ReadDir(data)
	if err != nil || len(entries) == 0 {
		return ""
	}
	switch {
	case exists(filepath.Join(data, "PG_VERSION")):
		return "postgres"
	case exists(filepath.Join(data, "mysql")), exists(filepath.Join(data, "ibdata1")):
		return "mysql"
	}
	return "unknown"
}

// initialised reports whether the data directory holds a server's data.
func initialised(data string) (bool, error) {
	switch dataKind(data) {
	case "":
		return false, nil
	case "unknown":
		return false, fmt.Errorf("%s is neither empty nor a data directory fairbench knows: remove it, or use another --dir", data)
	}
	return true, nil
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// choosePort returns the port to use: the one asked for when it is free, or
// for 0 the previous port of the directory when still free, else a free one.
func choosePort(port int, prev *stateFile) (int, error) {
	if port != 0 {
		if !portFree(port) {
			return 0, fmt.Errorf("port %d on 127.0.0.1 is in use: choose another --port, or 0 for a free one", port)
		}
		return port, nil
	}
	if prev != nil && prev.Port > 0 && portFree(prev.Port) {
		return prev.Port, nil
	}
	return procutil.FreePort()
}

// writeConfig writes the generated configuration file.
func writeConfig(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write the server configuration: %w", err)
	}
	return os.Chmod(path, 0o644)
}

// adminConfig is the driver configuration of the administrative connection
// Start makes: the server's, in a database that exists from the start.
func (s *Server) adminConfig() driver.Config {
	cfg := s.DriverConfig()
	cfg.Database = ""
	if cfg.Kind == driver.KindPgSQL {
		cfg.Database = "postgres"
	}
	return cfg
}

// withAdmin connects to the server as its administrator and runs fn.
func (s *Server) withAdmin(ctx context.Context, fn func(driver.Conn) error) error {
	d, err := open.Driver(s.adminConfig())
	if err != nil {
		return err
	}
	defer d.Close()
	conn, err := d.Connect(ctx, 0)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
}

// createDatabase creates the benchmark database when it is missing.
func (s *Server) createDatabase(ctx context.Context) error {
	err := s.withAdmin(ctx, func(conn driver.Conn) error {
		if s.Flavor.mysqlFamily() {
			_, err := conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+Database)
			return err
		}
		rows, err := conn.QueryStrings(ctx, "SELECT 1 FROM pg_database WHERE datname = '"+Database+"'")
		if err != nil || len(rows) > 0 {
			return err
		}
		_, err = conn.Exec(ctx, "CREATE DATABASE "+Database)
		return err
	})
	if err != nil {
		return fmt.Errorf("create database %s: %w", Database, err)
	}
	return nil
}

// started completes the state and writes it.
func started(l layout, st *stateFile, pid int) error {
	st.PID, st.StartedAt, st.StoppedAt = pid, time.Now().UTC(), nil
	return writeState(l, st)
}
