package localserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// TestPinnedServer starts each flavor pinned to one CPU and checks the
// affinity of every thread of the server: MariaDB's threads, and the
// postmaster's and every backend's for PostgreSQL.
func TestPinnedServer(t *testing.T) {
	usable, err := cpuset.Usable(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if usable.Len() < 2 {
		t.Skipf("this process may use CPUs %s only: a pinned server would look like an unpinned one", usable)
	}
	pin := cpuset.Of(usable.CPUs()[0])
	for _, flavor := range []Flavor{FlavorMariaDB, FlavorPostgres} {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			dir := serverDir(t)
			srv := startServer(t, Options{Flavor: flavor, Profile: ProfileCPUBound, Dir: dir, DataBytes: testData, CPUs: pin})
			if srv.Managed.CPUList != pin.String() || !srv.CPUs.Equal(pin) {
				t.Errorf("started server records CPUs %q / %q, want %s", srv.Managed.CPUList, srv.CPUs, pin)
			}
			// Backends of PostgreSQL start on connection: make one.
			queryOne(t, connect(t, srv), "SELECT 1")
			tasks := serverTasks(t, srv.PID)
			if flavor == FlavorMariaDB && len(tasks) < 2 || flavor == FlavorPostgres && len(tasks) < 3 {
				t.Fatalf("only %d server threads found: the check would prove little", len(tasks))
			}
			for task, list := range tasks {
				if list != pin.String() {
					t.Errorf("%s Cpus_allowed_list = %q, want %s", task, list, pin)
				}
			}
			st, err := Status(context.Background(), dir)
			if err != nil || !st.CPUs.Equal(pin) || st.Managed.CPUList != pin.String() {
				t.Errorf("Status: CPUs %q (%q), %v; want %s", st.CPUs, st.Managed.CPUList, err, pin)
			}
		})
	}
}

// serverTasks returns the Cpus_allowed_list of every thread of pid and of
// its child processes, by /proc/PID/task/TID.
func serverTasks(t *testing.T, pid int) map[string]string {
	t.Helper()
	pids := []int{pid}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range procs {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue // gone
		}
		// pid (comm) state ppid …; comm may hold spaces.
		i := bytes.LastIndexByte(data, ')')
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
			pids = append(pids, child)
		}
	}
	out := map[string]string{}
	for _, p := range pids {
		statuses, _ := filepath.Glob("/proc/" + strconv.Itoa(p) + "/task/*/status")
		for _, s := range statuses {
			data, err := os.ReadFile(s)
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
					out[filepath.Dir(s)] = strings.TrimSpace(v)
				}
			}
		}
	}
	return out
}

// TestPinnedStartRefused: CPUs this process may not use are refused before
// anything is created.
func TestPinnedStartRefused(t *testing.T) {
	online, err := cpuset.Online(os.DirFS("/"))
	if err != nil {
		t.Fatal(err)
	}
	cpus := online.CPUs()
	outside := cpuset.Of(cpus[len(cpus)-1] + 4)
	dir := serverDir(t)
	_, err = Start(context.Background(), Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, Dir: dir, DataBytes: testData, CPUs: outside})
	if err == nil || !strings.Contains(err.Error(), "server CPUs "+outside.String()+": CPU "+outside.String()+" not usable here") {
		t.Fatalf("Start on CPUs %s = %v, want a refusal naming them", outside, err)
	}
	if exists(dir) {
		t.Errorf("the refused start created %s", dir)
	}
}
