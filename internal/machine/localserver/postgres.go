package localserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/base/procutil"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// pgInclude is the line that makes the data directory's postgresql.conf read
// the generated file (relative to the data directory, so the private
// directory may move). It comes last, so the generated settings win over
// initdb's; ALTER SYSTEM (postgresql.auto.conf) still wins over both.
const pgInclude = "include '../" + pgConfigName + "'"

// startPostgres starts a PostgreSQL server: it initialises the cluster when
// needed, writes the generated configuration, starts the postmaster with
// pg_ctl (which waits until it accepts connections) and creates the
// benchmark database. When fairbench runs as root, the programs run as the
// postgres OS user, which PostgreSQL requires, and the directory is handed to it.
func startPostgres(ctx context.Context, in installation, l layout, p *plan, srv *Server, st *stateFile) error {
	owner, err := postgresOwner()
	if err != nil {
		return err
	}
	if owner != nil {
		if err := reachable(l.dir, owner); err != nil {
			return err
		}
		for _, path := range []string{l.dir, l.data()} {
			if err := os.Chown(path, int(owner.Uid), int(owner.Gid)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("hand %s to the postgres user: %w", path, err)
			}
		}
	}
	run := func(program string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, program, args...)
		// The owner may not be allowed into the caller's working directory.
		cmd.Dir = l.dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		// Its own session: the postmaster that pg_ctl forks inherits it, so
		// Ctrl-C in fairbench's terminal does not reach the server.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: owner}
		return cmd
	}
	done, err := initialised(l.data())
	if err != nil {
		return err
	}
	if !done {
		if err := procutil.Run(run(in.initDB, "-D", l.data(), "-U", "postgres", "--auth=trust",
			"--encoding=UTF8", "--no-locale", "--no-sync")); err != nil {
			os.RemoveAll(l.data())
			return fmt.Errorf("initialise the PostgreSQL data directory %s: %w", l.data(), err)
		}
	}
	if got := strings.TrimSpace(readSmall(filepath.Join(l.data(), "PG_VERSION"))); in.pgMajor != "" && got != in.pgMajor {
		return fmt.Errorf("%s was created by PostgreSQL %s, but the installed server is %s (%s): use another --dir, or upgrade the data with pg_upgrade",
			l.data(), got, in.pgMajor, in.daemon)
	}
	if err := writeConfig(l.config(p.flavor), p.managed.Config); err != nil {
		return err
	}
	if err := includeGenerated(filepath.Join(l.data(), "postgresql.conf")); err != nil {
		return err
	}
	// A stale postmaster.pid of a crashed server is handled by the postmaster itself.
	logFile := l.log(p.flavor)
	wait := startTimeout
	if deadline, ok := ctx.Deadline(); ok {
		wait = time.Until(deadline)
	}
	ctlArgs := []string{"-D", l.data(), "-l", logFile, "-w", "-s", "-t", strconv.Itoa(max(int(wait.Seconds()), 1)), "start"}
	ctl := run(in.pgCtl, ctlArgs...)
	if !srv.CPUs.IsEmpty() {
		// pg_ctl forks the postmaster, which forks every backend: pinning
		// pg_ctl pins them all. The pinned helper starts as this user and
		// switches to the owner after pinning.
		pinned, err := cpuset.Command(ctx, srv.CPUs, owner, in.pgCtl, ctlArgs...)
		if err != nil {
			return err
		}
		pinned.Dir, pinned.Env = ctl.Dir, append(pinned.Env, "LC_ALL=C")
		pinned.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		ctl = pinned
	}
	startErr := procutil.Run(ctl)
	pid := readPIDFile(filepath.Join(l.data(), "postmaster.pid"))
	if !processRunning(pid, l.dir) {
		pid = 0
	}
	if startErr == nil && pid == 0 {
		startErr = errors.New("pg_ctl reported a start, but no postmaster runs")
	}
	if startErr == nil {
		srv.PID = pid
		startErr = started(l, st, pid)
	}
	if startErr == nil {
		startErr = srv.createDatabase(ctx)
	}
	if startErr != nil {
		if pid > 0 {
			killProcess(p.flavor, pid, l)
		}
		return fmt.Errorf("the postgres server in %s did not start: %w\n%s", l.dir, startErr, procutil.LogTail(logFile))
	}
	return nil
}

// includeGenerated appends the include of the generated file to the data
// directory's postgresql.conf unless it is there.
func includeGenerated(conf string) error {
	text, err := os.ReadFile(conf)
	if err != nil {
		return fmt.Errorf("read %s: %w", conf, err)
	}
	for _, line := range strings.Split(string(text), "\n") {
		if strings.TrimSpace(line) == pgInclude {
			return nil
		}
	}
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("add the generated settings to %s: %w", conf, err)
	}
	_, err = f.WriteString("\n# fairbench: the generated configuration (fairbench server start)\n" + pgInclude + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("add the generated settings to %s: %w", conf, err)
	}
	return nil
}

// postgresOwner returns the credentials of the postgres OS user when
// fairbench runs as root (PostgreSQL refuses to run as root), nil otherwise.
func postgresOwner() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL does not run as root and there is no postgres OS user: %s, which creates it (%w)", installPostgres, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("ids of the postgres OS user: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// reachable checks that the owner may enter every parent directory of dir.
func reachable(dir string, owner *syscall.Credential) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("check %s: %w", p, err)
		}
		mode := info.Mode().Perm()
		ok := mode&0o001 != 0
		if sys, isUnix := info.Sys().(*syscall.Stat_t); isUnix {
			ok = ok || sys.Uid == owner.Uid && mode&0o100 != 0 || sys.Gid == owner.Gid && mode&0o010 != 0
		}
		if !ok {
			return fmt.Errorf("PostgreSQL runs as the OS user postgres, which may not enter %s (mode %o): "+
				"choose a --dir that postgres can reach (for example under /var/tmp or /srv), or make the directory searchable (chmod o+x %s)",
				p, mode, p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
