package servermachine

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/netip"
	"strings"
	"testing/fstest"
)

// procHex writes an address as proc/net/tcp does: 32-bit words in this
// machine's byte order.
func procHex(addr string) string {
	b := netip.MustParseAddr(addr).AsSlice()
	out := make([]byte, len(b))
	for i := 0; i < len(b); i += 4 {
		binary.BigEndian.PutUint32(out[i:], binary.NativeEndian.Uint32(b[i:]))
	}
	return strings.ToUpper(hex.EncodeToString(out))
}

// tcpLine is one line of proc/net/tcp{,6}.
func tcpLine(n int, addr string, port int, state string, inode int) string {
	return fmt.Sprintf("   %d: %s:%04X %s:0000 %s 00000000:00000000 00:00000000 00000000   106        0 %d 1 0000000000000000 100 0 0 10 0\n",
		n, procHex(addr), port, strings.Repeat("0", len(procHex(addr))), state, inode)
}

// fixture is a machine with MariaDB (pid 100, socket /run/mysqld/mysqld.sock
// and 127.0.0.1:3306, pinned by its cgroup to CPUs 2-3), PostgreSQL (pid
// 200, 0.0.0.0:5432 and [::1]:5432, every CPU), a client (pid 300)
// connected to 3306, otherd (pid 500) with a socket it bound through
// /var/run/otherd, and /var/run → /run.
func fixture() fstest.MapFS {
	link := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: fs.ModeSymlink | 0o777} }
	text := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"var/run":                       link("../run"),
		"run/mysqld/mysqld.sock":        text(""),
		"sys/devices/system/cpu/online": text("0-3\n"),
		"proc/net/unix": text("Num       RefCount Protocol Flags    Type St Inode Path\n" +
			"0000000000000000: 00000002 00000000 00010000 0001 01 1001 /run/mysqld/mysqld.sock\n" +
			"0000000000000000: 00000002 00000000 00010000 0001 01 1002 /run/postgresql/.s.PGSQL.5432\n" +
			"0000000000000000: 00000003 00000000 00000000 0001 03 1003\n" +
			"0000000000000000: 00000002 00000000 00010000 0001 01 1004 /var/run/otherd/otherd.sock\n"),
		"run/otherd/otherd.sock": text(""),
		"proc/net/tcp": text("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
			tcpLine(0, "127.0.0.1", 3306, "0A", 2001) +
			tcpLine(1, "0.0.0.0", 5432, "0A", 2002) +
			tcpLine(2, "10.0.0.5", 6000, "0A", 2004) +
			tcpLine(3, "127.0.0.1", 3306, "01", 2005) +
			tcpLine(4, "0.0.0.0", 13306, "0A", 2006)), // an established connection, not a listener
		"proc/net/tcp6": text("  sl  local_address remote_address st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
			tcpLine(0, "::1", 5432, "0A", 2003)),

		// systemd passed MariaDB its listening sockets (socket activation):
		// it holds them too, but it is not the server.
		"proc/1/comm":  text("systemd\n"),
		"proc/1/fd/40": link("socket:[1001]"),
		"proc/1/fd/41": link("socket:[2001]"),

		"proc/100/comm":   text("mariadbd\n"),
		"proc/100/status": text("Name:\tmariadbd\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n"),
		"proc/100/cgroup": text("0::/system.slice/mariadb.service\n"),
		"sys/fs/cgroup/system.slice/mariadb.service/cpuset.cpus.effective": text("2-3\n"),
		"proc/100/fd/0":  link("/dev/null"),
		"proc/100/fd/11": link("socket:[1001]"),
		"proc/100/fd/12": link("socket:[2001]"),

		"proc/200/comm":   text("postgres\n"),
		"proc/200/status": text("Name:\tpostgres\nCpus_allowed_list:\t0-3\n"),
		"proc/200/cgroup": text("0::/\n"),
		"proc/200/fd/5":   link("socket:[2002]"),
		"proc/200/fd/6":   link("socket:[2003]"),
		"proc/200/fd/7":   link("socket:[1002]"),

		"proc/400/comm":   text("docker-proxy\n"),
		"proc/400/status": text("Cpus_allowed_list:\t0-3\n"),
		"proc/400/fd/3":   link("socket:[2006]"),

		"proc/500/comm":   text("otherd\n"),
		"proc/500/status": text("Name:\totherd\nCpus_allowed_list:\t0-3\n"),
		"proc/500/fd/3":   link("socket:[1004]"),

		"proc/300/comm":   text("fairbench\n"),
		"proc/300/status": text("Name:\tfairbench\nCpus_allowed_list:\t0-1\n"),
		"proc/300/fd/3":   link("socket:[2005]"),
	}
}

// deniedFS is a file system whose proc/PID/fd directories, for the PIDs
// given, cannot be read (another user's process).
type deniedFS struct {
	fstest.MapFS
	pids []string
}

func (d deniedFS) denied(name string) bool {
	for _, p := range d.pids {
		if strings.HasPrefix(name, "proc/"+p+"/fd") {
			return true
		}
	}
	return false
}

func (d deniedFS) Open(name string) (fs.File, error) {
	if d.denied(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.Open(name)
}

func (d deniedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if d.denied(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.ReadDir(name)
}

func (d deniedFS) ReadLink(name string) (string, error) {
	if d.denied(name) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.ReadLink(name)
}
