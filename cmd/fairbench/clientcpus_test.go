package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/localserver"
)

// TestClientCPUs runs the fairbench binary with --client-cpus against a
// private MariaDB pinned to another CPU: every thread of both processes on
// its own CPU while the run runs, the client's list recorded, Ctrl-C and
// SIGTERM reaching the pinned run (exit 130, result interrupted), its exit
// code passed through, and the lists that must be refused refused before
// anything connects.
func TestClientCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private MariaDB")
	}
	usable, err := cpuset.Usable(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if usable.Len() < 2 {
		t.Skipf("this process may use CPUs %s only: client and server cannot be apart", usable)
	}
	serverCPU, clientCPU := cpuset.Of(usable.CPUs()[0]), cpuset.Of(usable.CPUs()[1])
	bin := buildBinary(t)
	srv := startPinnedMariaDB(t, serverCPU)
	socket, _ := srv.ConnectFlags()
	target := append(socket, "--table-size=1000")
	dir := t.TempDir()

	// fairbench runs bin with args; out collects what it prints.
	fairbench := func(args ...string) (*exec.Cmd, func() string) {
		logPath := filepath.Join(dir, "out-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".log")
		logFile, err := os.Create(logPath)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { logFile.Close() })
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = logFile, logFile
		return cmd, func() string { b, _ := os.ReadFile(logPath); return string(b) }
	}
	exitCode := func(err error) int {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	prep, prepOut := fairbench(append([]string{"prepare", "oltp_point_select"}, target...)...)
	if err := prep.Run(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, prepOut())
	}
	connections := serverCounter(t, srv, "Connections")

	t.Run("refused", func(t *testing.T) {
		online, err := cpuset.Online(os.DirFS("/"))
		if err != nil {
			t.Fatal(err)
		}
		outside := cpuset.Of(online.CPUs()[online.Len()-1] + 4)
		for _, tt := range []struct {
			name, list, want string
		}{
			{"the server's CPU", serverCPU.String(), "--client-cpus " + serverCPU.String() + ": CPU " + serverCPU.String() + " is also the database server's (mariadbd (pid " + strconv.Itoa(srv.PID) + ") may use CPUs " + serverCPU.String() + ")"},
			{"overlapping the server's", usable.String(), ": CPU " + serverCPU.String() + " is also the database server's"},
			{"outside the online CPUs", outside.String(), "--client-cpus " + outside.String() + ": CPU " + outside.String() + " not usable here: this process may use CPUs " + usable.String()},
		} {
			t.Run(tt.name, func(t *testing.T) {
				before := connections()
				out := filepath.Join(dir, "refused.json")
				cmd, output := fairbench(append([]string{"run", "oltp_point_select", "--time=1", "--client-cpus", tt.list, "-o", out}, target...)...)
				if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(output(), tt.want) {
					t.Fatalf("exit %d, want 2 with %q:\n%s", code, tt.want, output())
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("a refused run left a result file (%v)", err)
				}
				if after := connections(); after != before || strings.Contains(output(), "Threads started") {
					t.Errorf("a refused run reached the server: Connections %d -> %d\n%s", before, after, output())
				}
			})
		}
	})

	// A pinned run stopped by sig once it measures.
	pinnedRun := func(t *testing.T, sig syscall.Signal) {
		out := filepath.Join(dir, "pinned-"+sig.String()+".json")
		cmd, output := fairbench(append([]string{"run", "oltp_point_select", "--threads=2", "--time=300", "--report-interval=1",
			"--client-cpus", clientCPU.String(), "-o", out}, target...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(output(), "[ 1s ]") {
			if time.Now().After(deadline) {
				t.Fatalf("no interval line within a minute:\n%s", output())
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, p := range []struct {
			what string
			pid  int
			want cpuset.Set
		}{{"client", cmd.Process.Pid, clientCPU}, {"server", srv.PID, serverCPU}} {
			tasks := taskCPUs(t, p.pid)
			if len(tasks) < 2 {
				t.Errorf("the %s (pid %d) has %d threads: the check would prove little", p.what, p.pid, len(tasks))
			}
			for task, list := range tasks {
				if list != p.want.String() {
					t.Errorf("%s thread %s: Cpus_allowed_list %q, want %s", p.what, task, list, p.want)
				}
			}
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(cmd.Wait()); code != 130 {
			t.Fatalf("exit %d after %s, want 130:\n%s", code, sig, output())
		}
		res := readResult(t, out)
		if res.Status != "interrupted" || res.Totals.Counts.Events == 0 {
			t.Errorf("result after %s: status %q, %d events; want interrupted with what it measured", sig, res.Status, res.Totals.Counts.Events)
		}
		if res.Machine.CPUList != clientCPU.String() || res.Options["client-cpus"] != clientCPU.String() || res.Options["allow-cpu-overlap"] != "false" {
			t.Errorf("recorded machine.cpu_list %q, options client-cpus %q allow-cpu-overlap %q; want %s, %s, false",
				res.Machine.CPUList, res.Options["client-cpus"], res.Options["allow-cpu-overlap"], clientCPU, clientCPU)
		}
		if len(res.ServerMachines) != 1 || res.ServerMachines[0].CPUList != serverCPU.String() {
			t.Errorf("server_machines %+v, want the server on CPUs %s", res.ServerMachines, serverCPU)
		}
		for _, w := range append(res.Warnings, res.Notes...) {
			if strings.Contains(w, "shared the server's CPUs") {
				t.Errorf("a client apart from the server said it shared them: %s", w)
			}
		}
	}
	t.Run("pinned, Ctrl-C", func(t *testing.T) { pinnedRun(t, syscall.SIGINT) })
	t.Run("pinned, SIGTERM", func(t *testing.T) { pinnedRun(t, syscall.SIGTERM) })

	t.Run("exit code of the pinned run", func(t *testing.T) {
		args := append([]string{"run", "oltp_point_select", "--time=1", "--client-cpus", clientCPU.String()}, target...)
		cmd, output := fairbench(append(args, "--mysql-db=no_such_db")...)
		if code := exitCode(cmd.Run()); code != 3 || strings.Count(output(), "Unknown database") != 1 {
			t.Fatalf("exit %d, want 3 (the target's) said once:\n%s", code, output())
		}
	})

	t.Run("unpinned client noted", func(t *testing.T) {
		out := filepath.Join(dir, "unpinned.json")
		cmd, output := fairbench(append([]string{"run", "oltp_point_select", "--time=1", "-o", out}, target...)...)
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s", err, output())
		}
		res := readResult(t, out)
		var note string
		for _, n := range res.Notes {
			if strings.HasPrefix(n, "the client shared the server's CPUs and used ") {
				note = n
			}
		}
		if !strings.HasSuffix(note, "% of the machine: pin them apart with --client-cpus and server --cpus") || !strings.Contains(output(), "Note: "+note) {
			t.Errorf("notes %q, warnings %q (output:\n%s)", res.Notes, res.Warnings, output())
		}
		if res.Machine.CPUList != "" {
			t.Errorf("an unpinned client recorded machine.cpu_list %q", res.Machine.CPUList)
		}
	})
}

// startPinnedMariaDB starts a private MariaDB with every thread on cpus and
// stops it when the test ends.
func startPinnedMariaDB(t *testing.T, cpus cpuset.Set) *localserver.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := localserver.Start(ctx, localserver.Options{Flavor: localserver.FlavorMariaDB, Profile: localserver.ProfileCPUBound,
		Dir: filepath.Join(t.TempDir(), "srv"), DataBytes: 64 << 20, CPUs: cpus})
	if err != nil {
		t.Fatalf("start a private MariaDB on CPUs %s: %v", cpus, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := localserver.Stop(ctx, srv.Dir); err != nil {
			t.Errorf("stop the private MariaDB: %v", err)
		}
	})
	return srv
}

// serverCounter returns a reader of a global status counter of srv, over
// one connection kept open (so that reading it adds no connection).
func serverCounter(t *testing.T, srv *localserver.Server, name string) func() int64 {
	t.Helper()
	drv, err := open.Driver(srv.DriverConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drv.Close() })
	conn, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return func() int64 {
		rows, err := conn.QueryStrings(context.Background(), "SHOW GLOBAL STATUS LIKE '"+name+"'")
		if err != nil || len(rows) != 1 || len(rows[0]) != 2 {
			t.Fatalf("SHOW GLOBAL STATUS LIKE '%s': %v %v", name, rows, err)
		}
		n, err := strconv.ParseInt(rows[0][1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// taskCPUs returns the Cpus_allowed_list of every thread of process pid.
func taskCPUs(t *testing.T, pid int) map[string]string {
	t.Helper()
	statuses, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range statuses {
		data, err := os.ReadFile(s)
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				out[filepath.Base(filepath.Dir(s))] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

// clientResult is what TestClientCPUs reads of a result file.
type clientResult struct {
	Status  string            `json:"status"`
	Options map[string]string `json:"options"`
	Machine struct {
		CPUList string `json:"cpu_list"`
	} `json:"machine"`
	ServerMachines []struct {
		CPUList string `json:"cpu_list"`
	} `json:"server_machines"`
	Warnings []string `json:"warnings"`
	Notes    []string `json:"notes"`
	Totals   struct {
		Counts struct {
			Events int64 `json:"events"`
		} `json:"counts"`
	} `json:"totals"`
}

func readResult(t *testing.T, path string) clientResult {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no result: %v", err)
	}
	var r clientResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
