package hostcounters

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/procfs"
)

// FindProcess returns the PID of the process named name (its /proc/PID/comm;
// a name longer than 15 bytes is compared on its first 15, as the kernel
// truncates comm).
//
// The rule when several processes have the name: if exactly one of them has
// a parent without the name and every other one descends from it (a server
// that forks workers under its own name, as PostgreSQL's postmaster does),
// that one is the answer. Otherwise FindProcess refuses and lists the PIDs, so
// the user picks one with --pid. Threads are not processes here: /proc lists
// only thread-group leaders.
func FindProcess(fsys fs.FS, name string) (int, error) {
	if name == "" {
		return 0, fmt.Errorf("no process name given")
	}
	want := name
	if len(want) > procfs.CommLen {
		want = want[:procfs.CommLen]
	}
	pids, err := procfs.PIDs(fsys)
	if err != nil {
		return 0, fmt.Errorf("finding process %q: %w", name, err)
	}
	parent := map[int]int{}
	var matches []int // ascending, as pids
	for _, pid := range pids {
		if procfs.Comm(fsys, pid) != want {
			continue
		}
		matches = append(matches, pid)
		if st, err := fs.ReadFile(fsys, procfs.Dir(pid)+"/status"); err == nil {
			ppid, _ := procfs.StatusField(st, "PPid")
			parent[pid], _ = strconv.Atoi(ppid)
		}
	}
	switch len(matches) {
	case 0:
		return 0, fmt.Errorf("no process is named %q (as /proc/PID/comm shows it); give its --pid", name)
	case 1:
		return matches[0], nil
	}
	isMatch := func(pid int) bool { _, ok := slices.BinarySearch(matches, pid); return ok }
	var roots []int
	for _, pid := range matches {
		if !isMatch(parent[pid]) {
			roots = append(roots, pid)
		}
	}
	if len(roots) == 1 {
		return roots[0], nil
	}
	list := make([]string, len(matches))
	for i, pid := range matches {
		list[i] = strconv.Itoa(pid)
	}
	return 0, fmt.Errorf("%d processes are named %q (PIDs %s) and they are not one server and its children: give the server's --pid",
		len(matches), name, strings.Join(list, ", "))
}
