package hostcounters

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// arm64Stat is a /proc/stat of a 64-CPU arm64 server (no steal column
// differences; cpu lines first, then the long intr line).
func arm64Stat(busyCPU int, extra uint64) string {
	var b strings.Builder
	var tot [8]uint64
	var lines []string
	for i := 0; i < 64; i++ {
		v := [8]uint64{1000, 0, 500, 8000, 10, 0, 5, 0}
		if i == busyCPU {
			v[0] += extra
		} else {
			v[3] += extra
		}
		for j := range v {
			tot[j] += v[j]
		}
		lines = append(lines, fmt.Sprintf("cpu%d %d %d %d %d %d %d %d %d 0 0", i, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]))
	}
	fmt.Fprintf(&b, "cpu  %d %d %d %d %d %d %d %d 0 0\n", tot[0], tot[1], tot[2], tot[3], tot[4], tot[5], tot[6], tot[7])
	b.WriteString(strings.Join(lines, "\n") + "\n")
	b.WriteString("intr 123456789" + strings.Repeat(" 0", 1000) + "\nctxt 1\nbtime 1700000000\n")
	return b.String()
}

const diskstats = `   7       0 loop0 50 0 1000 10 0 0 0 0 0 20 10 0 0 0 0
   8       0 sda 1000 10 80000 500 2000 20 160000 1500 0 1800 2000 0 0 0 0
   8       1 sda1 900 10 70000 450 1900 20 150000 1400 0 1700 1850 0 0 0 0
   8      16 sdb 0 0 0 0 0 0 0 0 0 0 0
 259       0 nvme0n1 500 0 4000 100 500 0 4000 100 0 150 200 0 0 0 0
 259       1 nvme0n1p1 400 0 3000 90 400 0 3000 90 0 140 180 0 0 0 0
 253       0 dm-0 900 0 70000 450 1900 0 150000 1400 0 1700 1850 0 0 0 0
   1       0 ram0 0 0 0 0 0 0 0 0 0 0 0
`

const netdev = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 5000000     100    0    0    0     0          0         0  5000000     100    0    0    0     0       0          0
  eth0: 1000000    1000    0    0    0     0          0         0  2000000    2000    0    0    0     0       0          0
docker0:  700000     700    0    0    0     0          0         0   700000     700    0    0    0     0       0          0
`

func auxv(hz uint64) []byte {
	b := make([]byte, 0, 64)
	for _, kv := range [][2]uint64{{6, 4096}, {17, hz}, {0, 0}} {
		b = binary.NativeEndian.AppendUint64(b, kv[0])
		b = binary.NativeEndian.AppendUint64(b, kv[1])
	}
	return b
}

func fixture(stat string) fstest.MapFS {
	return fstest.MapFS{
		"proc/stat":                       {Data: []byte(stat)},
		"proc/diskstats":                  {Data: []byte(diskstats)},
		"proc/net/dev":                    {Data: []byte(netdev)},
		"proc/meminfo":                    {Data: []byte("MemTotal:       16384000 kB\nMemFree:  100 kB\nMemAvailable:    8192000 kB\n")},
		"proc/self/auxv":                  {Data: auxv(250)},
		"proc/42/stat":                    {Data: []byte("42 (my (odd) server) S 1 42 42 0 -1 4194560 100 0 0 0 300 200 0 0 20 0 30 0 5555 1000000 500 18446744073709551615")},
		"proc/42/status":                  {Data: []byte("Name:\tmy (odd) server\nPPid:\t1\nVmRSS:\t  2048 kB\nCpus_allowed_list:\t0-7\n")},
		"proc/42/statm":                   {Data: []byte("10000 512 100 10 0 300 0\n")},
		"proc/42/io":                      {Data: []byte("rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 8192\n")},
		"sys/devices/virtual/net/lo":      {Mode: os.ModeDir},
		"sys/devices/virtual/net/docker0": {Mode: os.ModeDir},
	}
}

func TestReadFixture(t *testing.T) {
	s, err := Read(fixture(arm64Stat(5, 0)), 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) != 64 || s.CPUs[63].ID != 63 || s.CPU.ID != -1 || s.CPU.User != 64000 {
		t.Errorf("CPUs: %d lines, last id %d, aggregate %+v", len(s.CPUs), s.CPUs[len(s.CPUs)-1].ID, s.CPU)
	}
	if s.ClockTicks != 250 {
		t.Errorf("ClockTicks = %d, want 250 (from auxv)", s.ClockTicks)
	}
	var disks []string
	for _, d := range s.Disks {
		disks = append(disks, d.Name)
	}
	if want := []string{"sda", "nvme0n1"}; !reflect.DeepEqual(disks, want) {
		t.Errorf("disks = %v, want %v (no partitions, loop, dm, ram or unused disks)", disks, want)
	}
	if d := s.Disks[0]; d != (DiskStats{Name: "sda", Reads: 1000, SectorsRead: 80000, MsReading: 500, Writes: 2000, SectorsWritten: 160000, MsWriting: 1500, MsDoingIO: 1800}) {
		t.Errorf("sda = %+v", d)
	}
	if len(s.Net) != 3 || s.Net[1] != (NetStats{Name: "eth0", RxBytes: 1000000, RxPackets: 1000, TxBytes: 2000000, TxPackets: 2000}) || !s.Net[0].Virtual || !s.Net[2].Virtual {
		t.Errorf("net = %+v", s.Net)
	}
	if s.MemTotalBytes != 16384000*1024 || s.MemAvailableBytes != 8192000*1024 {
		t.Errorf("memory = %d, %d", s.MemTotalBytes, s.MemAvailableBytes)
	}
	p := s.Process
	if p == nil || p.Name != "my (odd) server" || p.UserTicks != 300 || p.SystemTicks != 200 || p.StartTicks != 5555 || p.RSSBytes != 512*4096 ||
		p.ReadBytes == nil || *p.ReadBytes != 4096 || *p.WriteBytes != 8192 {
		t.Errorf("process = %+v", p)
	}
	if len(s.Notes) != 0 {
		t.Errorf("notes = %q, want none", s.Notes)
	}
	// The snapshot is the wire format: it survives JSON.
	b, _ := json.Marshal(s)
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("JSON round trip changed the snapshot: %v", err)
	}
}

func TestReadMissingParts(t *testing.T) {
	fsys := fstest.MapFS{"proc/stat": {Data: []byte("cpu 1 2 3 4\ncpu0 1 2 3 4\n")},
		"proc/7/stat": {Data: []byte("7 (x) S 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0")}}
	s, err := Read(fsys, 7)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(s.Notes, "\n")
	for _, want := range []string{"USER_HZ", "disk counters", "network counters", "memory", "IO counters cannot be read"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes %q lack %q", joined, want)
		}
	}
	if s.ClockTicks != 100 || s.Process == nil || s.Process.ReadBytes != nil {
		t.Errorf("ClockTicks %d, process %+v", s.ClockTicks, s.Process)
	}
	if _, err := Read(fstest.MapFS{}, 0); err == nil {
		t.Error("Read without /proc/stat did not fail")
	}
	s, _ = Read(fsys, 8)
	if s.Process != nil || !strings.Contains(strings.Join(s.Notes, ""), "process 8") {
		t.Errorf("a missing process: %+v, notes %q", s.Process, s.Notes)
	}
}

func TestPartitionNames(t *testing.T) {
	for name, want := range map[string]bool{"sda": false, "sda1": true, "vdb12": true, "xvda": false, "nvme0n1": false,
		"nvme0n1p3": true, "mmcblk0": false, "mmcblk0p1": true, "nvme10n2": false} {
		if got := isPartitionName(name); got != want {
			t.Errorf("isPartitionName(%q) = %v", name, got)
		}
	}
	// With /sys/block the kernel's list decides.
	disks := parseDiskstats([]byte(diskstats), map[string]bool{"sda": true, "sda1": true})
	if len(disks) != 2 {
		t.Errorf("with sys/block listing sda and sda1: %+v", disks)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestDelta(t *testing.T) {
	a, err := Read(fixture(arm64Stat(5, 0)), 42)
	if err != nil {
		t.Fatal(err)
	}
	fb := fixture(arm64Stat(5, 200)) // CPU 5 busy 200 ticks, every other CPU idle 200
	fb["proc/diskstats"] = &fstest.MapFile{Data: []byte(strings.Replace(diskstats,
		"sda 1000 10 80000 500 2000 20 160000 1500 0 1800", "sda 1100 10 84000 600 2100 20 164000 1700 0 2300", 1))}
	fb["proc/net/dev"] = &fstest.MapFile{Data: []byte(strings.Replace(strings.Replace(netdev,
		"eth0: 1000000    1000", "eth0: 3000000    3000", 1), "lo: 5000000", "lo: 9000000", 1))}
	fb["proc/42/stat"] = &fstest.MapFile{Data: []byte("42 (my (odd) server) S 1 42 42 0 -1 4194560 100 0 0 0 550 200 0 0 20 0 30 0 5555 1000000 500 0")}
	fb["proc/42/io"] = &fstest.MapFile{Data: []byte("read_bytes: 2004096\nwrite_bytes: 8192\n")}
	b, err := Read(fb, 42)
	if err != nil {
		t.Fatal(err)
	}
	a.MonotonicNs, b.MonotonicNs = 1e9, 3e9 // two seconds

	o := Delta(a, b, "")
	if o.Seconds != 2 || o.Note != "" {
		t.Fatalf("seconds %v, note %q", o.Seconds, o.Note)
	}
	if o.CPU == nil || o.CPU.CPUs != 64 || !near(o.CPU.BusyPct, 100.0/64) || o.BusiestCPU != 5 || o.BusiestCPUPct != 100 {
		t.Errorf("cpu %+v, busiest %d at %v%%", o.CPU, o.BusiestCPU, o.BusiestCPUPct)
	}
	d := o.Disk
	if d == nil || !reflect.DeepEqual(d.Devices, []string{"sda", "nvme0n1"}) || d.ReadIOPS != 50 || d.WriteIOPS != 50 ||
		!near(d.ReadMBPerSec, 4000*512/1e6/2) || d.AwaitMs != 1.5 || d.UtilPct != 25 {
		t.Errorf("disk %+v", d)
	}
	n := o.Net
	if n == nil || !reflect.DeepEqual(n.Interfaces, []string{"eth0"}) || n.RxMBPerSec != 1 || n.RxPacketsPerS != 1000 || n.TxMBPerSec != 0 {
		t.Errorf("net %+v (lo and the docker0 bridge left out)", n)
	}
	p := o.Process
	if p == nil || p.UserSeconds != 1 || p.SystemSeconds != 0 || p.CPUPct != 50 || p.ReadMBPerSec == nil || *p.ReadMBPerSec != 1 || *p.WriteMBPerSec != 0 {
		t.Errorf("process %+v (250 ticks a second)", p)
	}

	// Restricted to CPUs 4-7: CPU 5 busy, three idle.
	o = Delta(a, b, "4-7")
	if o.CPU == nil || o.CPU.CPUs != 4 || o.CPU.BusyPct != 25 || o.BusiestCPU != 5 {
		t.Errorf("on 4-7: cpu %+v busiest %d", o.CPU, o.BusiestCPU)
	}
	o = Delta(a, b, "60-70")
	if o.CPU == nil || o.CPU.CPUs != 4 || !strings.Contains(o.Note, "4 of the 11 CPUs") {
		t.Errorf("on 60-70: cpu %+v note %q", o.CPU, o.Note)
	}
	o = Delta(a, b, "x")
	if o.CPU == nil || o.CPU.CPUs != 64 || !strings.Contains(o.Note, "cover all CPUs") {
		t.Errorf("bad list: cpu %+v note %q", o.CPU, o.Note)
	}

	// A restarted process and a clock going backwards.
	b2 := b
	bp := *b.Process
	bp.StartTicks++
	b2.Process = &bp
	if o := Delta(a, b2, ""); o.Process != nil || !strings.Contains(o.Note, "replaced") {
		t.Errorf("restarted process: %+v, note %q", o.Process, o.Note)
	}
	if o := Delta(b, a, ""); o.CPU != nil || !strings.Contains(o.Note, "not later") {
		t.Errorf("backwards: %+v", o)
	}
	if o := Delta(a, a2(a), ""); o.CPU != nil || !strings.Contains(o.Note, "no clock tick") {
		t.Errorf("no tick: %+v", o)
	}
}

// a2 is a taken a second later with no counter moved.
func a2(a Snapshot) Snapshot {
	a.MonotonicNs += 1e9
	return a
}

func TestFindProcess(t *testing.T) {
	proc := func(pid, ppid int, name string) (string, *fstest.MapFile, string, *fstest.MapFile) {
		d := "proc/" + strconv.Itoa(pid)
		return d + "/comm", &fstest.MapFile{Data: []byte(name + "\n")},
			d + "/status", &fstest.MapFile{Data: []byte(fmt.Sprintf("Name:\t%s\nPPid:\t%d\n", name, ppid))}
	}
	build := func(ps ...[3]any) fstest.MapFS {
		m := fstest.MapFS{}
		for _, p := range ps {
			k1, v1, k2, v2 := proc(p[0].(int), p[1].(int), p[2].(string))
			m[k1], m[k2] = v1, v2
		}
		return m
	}
	pg := build([3]any{100, 1, "postgres"}, [3]any{101, 100, "postgres"}, [3]any{102, 100, "postgres"}, [3]any{103, 101, "postgres"}, [3]any{5, 1, "bash"})
	if pid, err := FindProcess(pg, "postgres"); err != nil || pid != 100 {
		t.Errorf("postmaster and children: %d, %v; want 100", pid, err)
	}
	two := build([3]any{200, 1, "mariadbd"}, [3]any{300, 1, "mariadbd"})
	if _, err := FindProcess(two, "mariadbd"); err == nil || !strings.Contains(err.Error(), "PIDs 200, 300") || !strings.Contains(err.Error(), "--pid") {
		t.Errorf("two servers: %v", err)
	}
	if _, err := FindProcess(two, "nothere"); err == nil || !strings.Contains(err.Error(), "no process") {
		t.Errorf("none: %v", err)
	}
	long := build([3]any{7, 1, "a-very-long-nam"})
	if pid, err := FindProcess(long, "a-very-long-name-indeed"); err != nil || pid != 7 {
		t.Errorf("a long name compares on 15 bytes: %d, %v", pid, err)
	}
}

func TestReadLive(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc")
	}
	s, err := Read(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.ClockTicks <= 0 || len(s.CPUs) == 0 || s.Process == nil || s.Process.PID != os.Getpid() || s.MonotonicNs <= 0 {
		t.Errorf("live snapshot: %+v", s)
	}
}

// pidStat is a /proc/PID/stat line with the given utime, stime, cutime and
// cstime (fields 14 to 17).
func pidStat(pid int, comm string, utime, stime, cutime, cstime uint64) []byte {
	return fmt.Appendf(nil, "%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 %d %d %d %d 20 0 1 0 5000 1000000 200 18446744073709551615\n",
		pid, comm, pid, pid, utime, stime, cutime, cstime)
}

// TestWorkers: a process's workers are its descendants of the same name,
// through the children files, with the children that exited (cutime and
// cstime); a child of another name and a process's other children are not.
func TestWorkers(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/100/stat":              {Data: pidStat(100, "postgres", 10, 5, 30, 7)},
		"proc/100/task/100/children": {Data: []byte("101 102 104 ")},
		"proc/101/stat":              {Data: pidStat(101, "postgres", 200, 50, 0, 0)},
		"proc/101/task/101/children": {Data: []byte("103")},
		"proc/102/stat":              {Data: pidStat(102, "sh", 999, 999, 0, 0)},
		"proc/102/task/102/children": {Data: []byte("105")},
		"proc/103/stat":              {Data: pidStat(103, "postgres", 40, 10, 2, 1)},
		"proc/105/stat":              {Data: pidStat(105, "postgres", 777, 0, 0, 0)}, // under sh: not a worker
		"proc/200/stat":              {Data: pidStat(200, "mariadbd", 500, 100, 0, 0)},
		"proc/200/task/200/children": {Data: []byte("\n")},
		"proc/300/stat":              {Data: pidStat(300, "postgres", 1, 1, 0, 0)},
		"proc/300/task/300/children": {Data: []byte("300 301")}, // itself, and a worker gone since
	}
	for _, tc := range []struct {
		pid            int
		ticks, workers int
	}{
		// own cutime+cstime 37; 101: 250; 103: 50+3; 104 is gone, 102 is sh.
		{100, 37 + 250 + 53, 2},
		{200, 0, 0},
		{300, 0, 0},
	} {
		p, err := readProcess(fsys, tc.pid, 4096)
		if err != nil {
			t.Fatalf("process %d: %v", tc.pid, err)
		}
		if p.WorkerTicks != uint64(tc.ticks) || p.Workers != tc.workers {
			t.Errorf("process %d: worker ticks %d, workers %d; want %d, %d", tc.pid, p.WorkerTicks, p.Workers, tc.ticks, tc.workers)
		}
	}

	// The workers' ticks count in the process's CPU share.
	a := Snapshot{MonotonicNs: 1e9, ClockTicks: 100, Process: &ProcessStats{PID: 100, StartTicks: 5, UserTicks: 10, WorkerTicks: 100}}
	b := Snapshot{MonotonicNs: 3e9, ClockTicks: 100, Process: &ProcessStats{PID: 100, StartTicks: 5, UserTicks: 30, WorkerTicks: 280, Workers: 3}}
	o := processDelta(a, b, 2, func(string, ...any) {})
	if o == nil || o.UserSeconds != 0.2 || o.WorkerSeconds != 1.8 || o.Workers != 3 || o.CPUPct != 100 {
		t.Errorf("process %+v, want 0.2 s its own, 1.8 s its workers', 100%% of a CPU", o)
	}
}

// TestWorkersOfPostgres: the shared PostgreSQL's postmaster has workers
// (its background processes at least), read from this machine's /proc.
func TestWorkersOfPostgres(t *testing.T) {
	pid, err := FindProcess(os.DirFS("/"), "postgres")
	if err != nil {
		t.Skipf("no PostgreSQL server process on this machine: %v", err)
	}
	p, err := readProcess(os.DirFS("/"), pid, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if p.Workers < 2 {
		t.Errorf("postmaster %d has %d workers, want its checkpointer, background writer … (2 or more)", pid, p.Workers)
	}
}
