package procfs

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"
	"testing/fstest"
)

func TestPIDsCommStatus(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/100/comm":   {Data: []byte("postgres\n")},
		"proc/100/status": {Data: []byte("Name:\tpostgres\nPPid:\t1\nCpus_allowed_list:\t0-3\n")},
		"proc/9/comm":     {Data: []byte("a name with spaces\n")},
		"proc/self":       {Data: []byte("100"), Mode: fs.ModeSymlink},
		"proc/stat":       {Data: []byte("cpu 1 2 3\n")},
		"proc/0/comm":     {Data: []byte("not a process\n")},
	}
	pids, err := PIDs(fsys)
	if err != nil || !slices.Equal(pids, []int{9, 100}) {
		t.Errorf("PIDs = %v, %v; want [9 100] (numeric order, no self, stat or 0)", pids, err)
	}
	for _, tt := range []struct {
		pid  int
		want string
	}{{100, "postgres"}, {9, "a name with spaces"}, {5, ""}} {
		if got := Comm(fsys, tt.pid); got != tt.want {
			t.Errorf("Comm(%d) = %q, want %q", tt.pid, got, tt.want)
		}
	}
	status := fsys["proc/100/status"].Data
	for _, tt := range []struct {
		key, want string
		ok        bool
	}{{"PPid", "1", true}, {"Cpus_allowed_list", "0-3", true}, {"Cpus_allowed", "", false}, {"VmRSS", "", false}} {
		if got, ok := StatusField(status, tt.key); got != tt.want || ok != tt.ok {
			t.Errorf("StatusField(%s) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
	if _, err := PIDs(fstest.MapFS{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PIDs without proc: %v, want a wrapped ErrNotExist", err)
	}
}

func TestLive(t *testing.T) {
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc")
	}
	root := os.DirFS("/")
	pids, err := PIDs(root)
	if err != nil || !slices.Contains(pids, os.Getpid()) {
		t.Fatalf("PIDs = %d processes, %v; want this one (%d) among them", len(pids), err, os.Getpid())
	}
	if Comm(root, os.Getpid()) == "" {
		t.Error("Comm of this process is empty")
	}
}
