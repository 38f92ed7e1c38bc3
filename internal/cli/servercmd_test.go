package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// runServerCLI runs `fairbench server ARGS` in-process.
func runServerCLI(t *testing.T, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return runCLI(ctx, nil, append([]string{"server"}, args...)...)
}

func TestServerStartDryRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my")
	r := runServerCLI(t, "start", "--flavor=mariadb", "--profile=cpu-bound", "--data-size=2GiB", "--dir="+dir,
		"--port=4406", "--set", "innodb_io_capacity=4000", "--set=innodb-flush-neighbors=0", "--cpus=0", "--dry-run")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Dry run: the mariadb server in " + dir + " would start with this configuration (nothing was started or written)",
		"# Sized for a data set of 2 GiB.",
		"[mariadbd]",
		"datadir = " + filepath.Join(dir, "data"),
		"port = 4406",
		"innodb_buffer_pool_size = 2560M",
		"innodb_log_file_size = 640M",
		"# user settings (--set)\ninnodb_flush_neighbors = 0\ninnodb_io_capacity = 4000\n",
		"Every thread of the server would run on CPUs 0.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run created %s (%v)", dir, err)
	}

	// The default directory follows the flavor; sizes with SI units are accepted.
	r = runServerCLI(t, "start", "--flavor=postgres", "--profile=io-bound", "--data-size=500MB", "--dry-run")
	abs, _ := filepath.Abs(filepath.Join("fairbench-data", "server-postgres"))
	for _, want := range []string{"unix_socket_directories = '" + abs + "'", "shared_buffers = 240MB", "max_wal_size = 1GB", "# port: a free port is picked at start"} {
		if r.code != ExitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("postgres dry run (exit %d) lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
}

func TestServerBadInput(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flavor", []string{"start", "--dry-run"}, ExitUsage, "--flavor: no server flavor given: use mariadb, mysql or postgres"},
		{"bad flavor", []string{"start", "--flavor=oracle", "--dry-run"}, ExitUsage, `--flavor: unknown server flavor "oracle"`},
		{"bad profile", []string{"start", "--flavor=mariadb", "--profile=turbo", "--dry-run"}, ExitUsage, `--profile: unknown server profile "turbo": use cpu-bound, io-bound or custom`},
		{"bad size", []string{"start", "--flavor=mariadb", "--data-size=lots", "--dry-run"}, ExitUsage, `--data-size: invalid size "lots": give a number with a unit, for example 2GiB, 500MB or 64M`},
		{"zero size", []string{"start", "--flavor=mariadb", "--data-size=0", "--dry-run"}, ExitUsage, `--data-size "0": give the size of the data set`},
		{"set without value", []string{"start", "--flavor=mariadb", "--set=innodb_io_capacity", "--dry-run"}, ExitUsage, `--set "innodb_io_capacity": give key=value`},
		{"set a private setting", []string{"start", "--flavor=postgres", "--set=port=5432", "--dry-run"}, ExitUsage, "setting port is fairbench's to set (the server must stay private): use --port instead"},
		{"cpu-bound too large", []string{"start", "--flavor=mariadb", "--data-size=100TiB", "--dry-run"}, ExitUsage, "lower the data set to at most"},
		{"bad port", []string{"start", "--flavor=mariadb", "--port=70000", "--dry-run"}, ExitUsage, "--port 70000: give a port from 1 to 65535"},
		{"garbage cpus", []string{"start", "--flavor=mariadb", "--cpus=0-x", "--dry-run"}, ExitUsage, `--cpus: CPU list "0-x": "0-x" is not a CPU id or a range`},
		{"backwards cpus", []string{"start", "--flavor=mariadb", "--cpus=3-1", "--dry-run"}, ExitUsage, `range "3-1" runs backwards`},
		{"empty cpus", []string{"start", "--flavor=mariadb", "--cpus=,", "--dry-run"}, ExitUsage, `--cpus: CPU list ",": empty entry`},
		{"cpus not online", []string{"start", "--flavor=mariadb", "--cpus=65535", "--dry-run"}, ExitUsage, "--cpus 65535: CPU 65535 not usable here: this process may use CPUs "},
		{"unknown flag", []string{"start", "--flavour=mariadb"}, ExitUsage, "unknown flag --flavour; did you mean --flavor?"},
		{"unknown subcommand", []string{"restart"}, ExitUsage, `unknown command "restart"`},
		{"status of no server", []string{"status", "--dir=" + empty}, ExitUsage, "no fairbench server in " + empty},
		{"stop of no server", []string{"stop", "--dir=" + empty}, ExitUsage, "start one with fairbench server start --dir=" + empty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runServerCLI(t, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", r.code, tc.code, tc.want, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout on error:\n%s", r.stdout)
			}
		})
	}
}

func TestServerStartRefusesMissingMySQL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mysql")
	r := runServerCLI(t, "start", "--flavor=mysql", "--dir="+dir, "--data-size=64MiB")
	if r.code == ExitOK {
		localserver.Stop(context.Background(), dir)
		t.Skip("MySQL is installed here: nothing to refuse")
	}
	if r.code != ExitTarget || !strings.Contains(r.stderr, "MySQL's server is not installed") || !strings.Contains(r.stderr, "install MySQL Community Server") {
		t.Errorf("exit %d, want %d and an install hint; stderr:\n%s", r.code, ExitTarget, r.stderr)
	}
}

func TestServerStartStatusStop(t *testing.T) {
	testdb.SkipShort(t, "a private MariaDB")
	dir := filepath.Join(t.TempDir(), "mariadb")
	r := runServerCLI(t, "start", "--flavor=mariadb", "--dir="+dir, "--data-size=64MiB", "--set=innodb_io_capacity=3000", "--cpus=0")
	t.Cleanup(func() { localserver.Stop(context.Background(), dir) })
	if r.code != ExitOK {
		t.Fatalf("start: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Configuration (" + filepath.Join(dir, "my.cnf") + "):",
		"innodb_buffer_pool_size = 128M",
		"Connect fairbench with:\n  --mysql-socket=" + filepath.Join(dir, "mysqld.sock") + " --mysql-user=root --mysql-db=sbtest\n",
		"or over TCP:\n  --mysql-host=127.0.0.1 --mysql-port=",
		"Stop it with: fairbench server stop --dir=" + dir,
		"profile cpu-bound, pinned to CPUs 0):",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("start output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runServerCLI(t, "status", "--dir="+dir)
	for _, want := range []string{"The mariadb server in " + dir + " is running (pid ", "profile   cpu-bound, sized for 64 MiB of data",
		"settings  innodb_buffer_pool_size = 128M", "innodb_io_capacity = 3000", "--mysql-socket=", "cpus      0 (every thread pinned)"} {
		if r.code != ExitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("status (exit %d) lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if r = runServerCLI(t, "stop", "--dir="+dir); r.code != ExitOK || !strings.Contains(r.stdout, "Stopped the mariadb server in "+dir) {
		t.Errorf("stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runServerCLI(t, "status", "--dir="+dir); r.code != ExitOK || !strings.Contains(r.stdout, "is stopped since") || strings.Contains(r.stdout, "--mysql-socket") {
		t.Errorf("status after stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runServerCLI(t, "stop", "--dir="+dir); r.code != ExitOK || !strings.Contains(r.stdout, "is not running: nothing to stop") {
		t.Errorf("second stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
