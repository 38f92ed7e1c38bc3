package hostcounters

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// commLen is the longest name /proc/PID/comm holds (TASK_COMM_LEN − 1).
const commLen = 15

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
	if len(want) > commLen {
		want = want[:commLen]
	}
	entries, err := fs.ReadDir(fsys, "proc")
	if err != nil {
		return 0, fmt.Errorf("finding process %q: %w", name, err)
	}
	parent := map[int]int{}
	var matches []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		b, err := fs.ReadFile(fsys, "proc/"+e.Name()+"/comm")
		if err != nil || strings.TrimSuffix(string(b), "\n") != want {
			continue
		}
		matches = append(matches, pid)
		if st, err := fs.ReadFile(fsys, "proc/"+e.Name()+"/status"); err == nil {
			parent[pid], _ = strconv.Atoi(statusValue(st, "PPid"))
		}
	}
	slices.Sort(matches)
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
