package hostcounters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// ProcessStats is one process's counters.
type ProcessStats struct {
	PID  int    `json:"pid"`
	Name string `json:"name"` // comm: the first 15 bytes of the executable's name
	// StartTicks is the process's start time in clock ticks since boot: a
	// different value at the same PID is another process.
	StartTicks uint64 `json:"start_ticks"`
	// UserTicks and SystemTicks are utime and stime of /proc/PID/stat (all
	// its threads) in clock ticks.
	UserTicks   uint64 `json:"user_ticks"`
	SystemTicks uint64 `json:"system_ticks"`
	// WorkerTicks is the CPU time of the process's workers in clock ticks:
	// its descendants of the same name (PostgreSQL's backends and background
	// processes under the postmaster), utime + stime + cutime + cstime of
	// each one alive at the reading, plus the process's own cutime + cstime
	// (its children that exited and were waited for). It grows as UserTicks
	// does: a worker's time moves into its parent's cutime when it exits.
	// Zero for a server of one process (MariaDB, MySQL) and for agents
	// older than the field.
	WorkerTicks uint64 `json:"worker_ticks,omitempty"`
	// Workers counts the workers alive at the reading.
	Workers int `json:"workers,omitempty"`
	// RSSBytes is the resident set (VmRSS): resident pages of /proc/PID/statm
	// × the page size.
	RSSBytes int64 `json:"rss_bytes,omitempty"`
	// ReadBytes and WriteBytes are read_bytes and write_bytes of
	// /proc/PID/io: storage IO the process caused. Nil when io could not be
	// read (it needs the same user as the process, or root); IOError says why.
	ReadBytes  *uint64 `json:"read_bytes,omitempty"`
	WriteBytes *uint64 `json:"write_bytes,omitempty"`
	IOError    string  `json:"io_error,omitempty"`

	// childTicks is cutime + cstime: the children that exited and were
	// waited for (part of WorkerTicks).
	childTicks uint64
}

// readProcess reads /proc/PID/stat, statm and io (statm rather than status:
// the kernel writes it at a fraction of the cost).
func readProcess(fsys fs.FS, pid int, pageSize int64) (ProcessStats, error) {
	dir := "proc/" + strconv.Itoa(pid)
	b, err := fs.ReadFile(fsys, dir+"/stat")
	if err != nil {
		return ProcessStats{}, fmt.Errorf("process %d: %w", pid, err)
	}
	p, err := parsePIDStat(b)
	if err != nil {
		return ProcessStats{}, fmt.Errorf("process %d: %w", pid, err)
	}
	p.PID = pid
	p.WorkerTicks, p.Workers = workerTicks(fsys, pid, p.Name, p.childTicks)
	if b, err := fs.ReadFile(fsys, dir+"/statm"); err == nil {
		_, rest := nextField(b)
		f, _ := nextField(rest)
		if pages, err := strconv.ParseInt(string(bytes.TrimSpace(f)), 10, 64); err == nil {
			p.RSSBytes = pages * pageSize
		}
	}
	b, err = fs.ReadFile(fsys, dir+"/io")
	if err != nil {
		p.IOError = fmt.Sprintf("process %d: its IO counters cannot be read (run the agent as the server's user or root): %v", pid, err)
		return p, nil
	}
	var rb, wb uint64
	var haveR, haveW bool
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		k, v, _ := bytes.Cut(line, []byte{':'})
		f, _ := nextField(v)
		n, err := strconv.ParseUint(string(f), 10, 64)
		switch {
		case err != nil:
		case string(k) == "read_bytes":
			rb, haveR = n, true
		case string(k) == "write_bytes":
			wb, haveW = n, true
		}
	}
	if haveR && haveW {
		p.ReadBytes, p.WriteBytes = &rb, &wb
	} else {
		p.IOError = fmt.Sprintf("process %d: /proc/%d/io has no read_bytes and write_bytes", pid, pid)
	}
	return p, nil
}

// parsePIDStat parses /proc/PID/stat: "pid (comm) state ppid …", where comm
// may hold spaces and parentheses, so the fields are counted from the last ')'.
func parsePIDStat(b []byte) (ProcessStats, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return ProcessStats{}, fmt.Errorf("/proc/PID/stat: no (comm) in %.40q", b)
	}
	p := ProcessStats{Name: string(b[open+1 : end])}
	rest := b[end+1:]
	// After comm: 3 state, 4 ppid, … 14 utime, 15 stime, 16 cutime, 17
	// cstime, … 22 starttime.
	for field := 3; field <= 22; field++ {
		var f []byte
		if f, rest = nextField(rest); f == nil {
			return ProcessStats{}, fmt.Errorf("/proc/PID/stat has too few fields")
		}
		var dst *uint64
		switch field {
		case 14:
			dst = &p.UserTicks
		case 15:
			dst = &p.SystemTicks
		case 16, 17: // signed in the kernel's format
			if n, err := strconv.ParseInt(string(f), 10, 64); err == nil && n > 0 {
				p.childTicks += uint64(n)
			}
			continue
		case 22:
			dst = &p.StartTicks
		default:
			continue
		}
		n, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return ProcessStats{}, fmt.Errorf("/proc/PID/stat field %d is %q, not a number", field, f)
		}
		*dst = n
	}
	return p, nil
}

// The auxiliary vector entries holding the page size and USER_HZ.
const (
	atPageSz = 6
	atClkTck = 17
)

// auxvValues reads USER_HZ (AT_CLKTCK) and the page size (AT_PAGESZ; else
// os.Getpagesize()) from proc/self/auxv (pairs
// of native-endian words: this program's word size first, then the other).
// USER_HZ is the kernel's, the same for every process. Go cannot call
// sysconf(_SC_CLK_TCK) without cgo; this is where the C library reads it.
func auxvValues(fsys fs.FS) (ticks int, pageSize int64, ok bool) {
	pageSize = int64(os.Getpagesize())
	b, err := fs.ReadFile(fsys, "proc/self/auxv")
	if err != nil {
		return 0, pageSize, false
	}
	for _, word := range []int{strconv.IntSize / 8, 12 - strconv.IntSize/8} { // native first
		if len(b)%(2*word) != 0 {
			continue
		}
		for i := 0; i+2*word <= len(b); i += 2 * word {
			var k, v uint64
			if word == 8 {
				k, v = binary.NativeEndian.Uint64(b[i:]), binary.NativeEndian.Uint64(b[i+8:])
			} else {
				k, v = uint64(binary.NativeEndian.Uint32(b[i:])), uint64(binary.NativeEndian.Uint32(b[i+4:]))
			}
			switch {
			case k == atClkTck && v > 0 && v < 1e6:
				ticks, ok = int(v), true
			case k == atPageSz && v > 0 && v < 1<<30:
				pageSize = int64(v)
			}
			if k == 0 {
				break
			}
		}
		if ok {
			break
		}
	}
	return ticks, pageSize, ok
}

// maxWorkers bounds the workers counted for one process (a PostgreSQL with
// max_connections in the thousands has that many backends).
const maxWorkers = 100000

// workerTicks sums the CPU time of the workers of process pid, named name:
// own (its cutime + cstime), then every descendant of the same name, found
// through proc/PID/task/PID/children (the children the main thread forked:
// a server that forks workers, as PostgreSQL's postmaster does, is single-
// threaded where it forks). A kernel without that file (CONFIG_PROC_CHILDREN
// off) counts no live workers.
func workerTicks(fsys fs.FS, pid int, name string, own uint64) (ticks uint64, workers int) {
	ticks = own
	queue := children(fsys, pid)
	seen := map[int]bool{pid: true}
	for len(queue) > 0 && workers < maxWorkers {
		child := queue[0]
		queue = queue[1:]
		if seen[child] {
			continue
		}
		seen[child] = true
		b, err := fs.ReadFile(fsys, "proc/"+strconv.Itoa(child)+"/stat")
		if err != nil {
			continue // it exited since: its time is in its parent's cutime now
		}
		c, err := parsePIDStat(b)
		if err != nil || c.Name != name {
			continue
		}
		ticks += c.UserTicks + c.SystemTicks + c.childTicks
		workers++
		queue = append(queue, children(fsys, child)...)
	}
	return ticks, workers
}

// children lists the PIDs in proc/PID/task/PID/children.
func children(fsys fs.FS, pid int) []int {
	p := strconv.Itoa(pid)
	b, err := fs.ReadFile(fsys, "proc/"+p+"/task/"+p+"/children")
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range bytes.Fields(b) {
		if n, err := strconv.Atoi(string(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}
