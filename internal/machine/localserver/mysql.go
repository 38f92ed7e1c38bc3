package localserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/fairbench/fairbench/internal/base/procutil"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// startMySQL starts a MariaDB or MySQL server: it writes my.cnf, initialises
// the data directory when needed, launches the daemon in its own session
// (so that it outlives fairbench), waits until it accepts connections and
// creates the benchmark database.
func startMySQL(ctx context.Context, in installation, l layout, p *plan, srv *Server, st *stateFile) error {
	cnf := l.config(p.flavor)
	if err := writeConfig(cnf, p.managed.Config); err != nil {
		return err
	}
	done, err := initialised(l.data())
	if err != nil {
		return err
	}
	if !done {
		if err := initMySQL(ctx, in, l, cnf); err != nil {
			return err
		}
	}
	// Stale files of a crashed server would make the new one fail or confuse Status.
	os.Remove(l.pidFile())
	os.Remove(srv.Socket)

	outLog := filepath.Join(l.dir, mysqlOutputLog)
	out, err := os.OpenFile(outLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open the server's output log: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(in.daemon, mysqlDaemonArgs(cnf)...)
	if !srv.CPUs.IsEmpty() {
		// The daemon runs on after fairbench: no context.
		if cmd, err = cpuset.Command(context.Background(), srv.CPUs, nil, in.daemon, mysqlDaemonArgs(cnf)...); err != nil {
			return err
		}
	}
	cmd.Dir = l.dir
	cmd.Stdout, cmd.Stderr = out, out
	// Its own session: Ctrl-C in fairbench's terminal does not reach it, and
	// it runs on after fairbench exits.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", in.daemon, err)
	}
	// Reap the process when it exits while this process lives, so that Stop
	// and Status do not see a zombie.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	pid := cmd.Process.Pid
	srv.PID = pid
	if err := started(l, st, pid); err != nil {
		killProcess(p.flavor, pid, l)
		return err
	}
	gone := func() error {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("%s exited during start-up (%v)", filepath.Base(in.daemon), err)
		default:
			return nil
		}
	}
	err = procutil.Poll(ctx, pollInterval, srv.createDatabase, gone)
	if err != nil {
		killProcess(p.flavor, pid, l)
		return fmt.Errorf("the %s server in %s did not start: %w\n%s", p.flavor, l.dir, err, procutil.LogTail(l.log(p.flavor), outLog))
	}
	return nil
}

// mysqlDaemonArgs returns the daemon's arguments: the generated file only
// (--defaults-file must come first), and --user=root when running as root,
// which the daemon otherwise refuses.
func mysqlDaemonArgs(cnf string) []string {
	args := []string{"--defaults-file=" + cnf}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	return args
}

// initMySQL creates the system tables in an empty data directory. The
// bootstrap reads the same my.cnf, so the InnoDB files get the sizes the
// server expects. root gets no password and may log in from localhost and
// 127.0.0.1 (the server is private and listens on 127.0.0.1 only).
func initMySQL(ctx context.Context, in installation, l layout, cnf string) error {
	if err := os.MkdirAll(l.data(), 0o750); err != nil {
		return fmt.Errorf("create the data directory: %w", err)
	}
	var cmd *exec.Cmd
	if in.flavor == FlavorMariaDB {
		// --force skips the DNS check of the host name (skip_name_resolve is on).
		args := append(mysqlDaemonArgs(cnf), "--auth-root-authentication-method=normal", "--skip-test-db", "--force")
		cmd = exec.CommandContext(ctx, in.initDB, args...)
	} else {
		cmd = exec.CommandContext(ctx, in.daemon, append(mysqlDaemonArgs(cnf), "--initialize-insecure")...)
	}
	cmd.Dir = l.dir
	if err := procutil.Run(cmd); err != nil {
		// The directory was empty: leave it so, and the next start tries again.
		os.RemoveAll(l.data())
		return fmt.Errorf("initialise the %s data directory %s: %w\n%s", in.flavor, l.data(), err, procutil.LogTail(l.log(in.flavor)))
	}
	return nil
}
