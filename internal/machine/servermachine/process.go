package servermachine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/procfs"
	"github.com/fairbench/fairbench/internal/machine/sockdiag"
)

// Process is a process found holding a listening socket.
type Process struct {
	PID  int
	Comm string // proc/PID/comm: "mariadbd", "postgres"
}

// NotFoundError says why no process could be found; Denied is true when
// parts of /proc could not be read for want of permission (another user's
// fds, hidepid), so the process may well be there.
type NotFoundError struct {
	What   string // "/run/mysqld/mysqld.sock", "TCP port 3306"
	Denied bool
	Err    error // the first error met, if any
}

func (e *NotFoundError) Error() string {
	switch {
	case e.Denied:
		return fmt.Sprintf("the server process holding %s could not be identified: permission denied reading /proc/*/fd; run fairbench as the server's user or as root, or name it with --server-pid", e.What)
	case e.Err != nil:
		return fmt.Sprintf("the server process holding %s could not be identified: %v; name it with --server-pid", e.What, e.Err)
	}
	return fmt.Sprintf("no process of this machine holds %s (a server in another network namespace or container?); name it with --server-pid", e.What)
}

// FindUnixSocketProcess finds the process listening on the Unix socket at
// sockPath (an absolute path; symbolic links in it are followed), reading
// proc/net/unix and proc/*/fd of fsys rooted at /. PostgreSQL's socket is
// looked for first in the process its lock file names (lockFilePID), whose
// fds alone are read when it holds the socket: the search of every
// process's was a third of the client's CPU before it connected.
func FindUnixSocketProcess(fsys fs.FS, sockPath string) (Process, error) {
	nf := &NotFoundError{What: sockPath}
	names := []string{path.Clean(sockPath)}
	if real, err := realPath(fsys, sockPath); err == nil && real != names[0] {
		names = append(names, real)
	}
	b, err := fs.ReadFile(fsys, "proc/net/unix")
	if err != nil {
		nf.Err, nf.Denied = err, errors.Is(err, fs.ErrPermission)
		return Process{}, nf
	}
	inodes := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// Num RefCount Protocol Flags Type St Inode Path
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[6] == "0" {
			continue
		}
		if slices.Contains(names, f[7]) {
			inodes[f[6]] = true
			continue
		}
		// The server may have bound the socket through a symbolic link
		// (/var/run/postgresql when /var/run → /run): compare real paths.
		if path.Base(f[7]) == path.Base(names[0]) && strings.HasPrefix(f[7], "/") {
			if real, err := realPath(fsys, f[7]); err == nil && slices.Contains(names, real) {
				inodes[f[6]] = true
			}
		}
	}
	if len(inodes) == 0 {
		return Process{}, nf
	}
	if pid := lockFilePID(fsys, names[len(names)-1]); pid > 0 && holds(fsys, pid, inodes, nf) {
		return Process{PID: pid, Comm: procfs.Comm(fsys, pid)}, nil
	}
	return socketHolder(fsys, inodes, nf)
}

// lockFilePID is the process PostgreSQL's lock file of the socket at
// sockPath names (the postmaster writes its PID on the first line of
// .s.PGSQL.PORT.lock beside the socket), 0 for another socket or when the
// file cannot be read (another user's, without root): a name to check
// (holds), since the file may outlive its server.
func lockFilePID(fsys fs.FS, sockPath string) int {
	if !strings.HasPrefix(path.Base(sockPath), ".s.PGSQL.") {
		return 0
	}
	b, err := fs.ReadFile(fsys, strings.TrimPrefix(path.Clean(sockPath), "/")+".lock")
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// FindTCPListener finds the process listening on TCP port on a loopback or
// unspecified address (127.0.0.0/8, ::1, 0.0.0.0, ::), reading
// proc/net/tcp, proc/net/tcp6 and proc/*/fd of fsys rooted at /. On this
// machine's own root (os.DirFS("/")) the listening sockets come from the
// kernel's sock_diag interface (see package sockdiag: reading proc/net/tcp
// costs the client ~10 ms of CPU), and from proc/net/tcp when that fails.
func FindTCPListener(fsys fs.FS, port int) (Process, error) {
	nf := &NotFoundError{What: "TCP port " + strconv.Itoa(port)}
	inodes := liveTCPListeners(fsys, port)
	if inodes == nil {
		inodes = procTCPListeners(fsys, port, nf)
	}
	if len(inodes) == 0 {
		return Process{}, nf
	}
	nf.Err = nil
	return socketHolder(fsys, inodes, nf)
}

// liveTCPListeners returns the inodes of the sockets listening on port that
// serve the loopback address, from sock_diag, when fsys is this machine's
// own root; nil when it is not or sock_diag cannot be used.
func liveTCPListeners(fsys fs.FS, port int) map[string]bool {
	if fsys != fs.FS(os.DirFS("/")) {
		return nil
	}
	ls, err := sockdiag.TCPListeners()
	if err != nil {
		return nil
	}
	inodes := map[string]bool{}
	for _, l := range ls {
		if int(l.Addr.Port()) == port && servesLoopback(l.Addr.Addr()) {
			inodes[strconv.FormatUint(l.Inode, 10)] = true
		}
	}
	return inodes
}

// procTCPListeners is liveTCPListeners read from proc/net/tcp and
// proc/net/tcp6 of fsys; why none could be read goes into nf.
func procTCPListeners(fsys fs.FS, port int, nf *NotFoundError) map[string]bool {
	inodes := map[string]bool{}
	read := 0
	for _, table := range []string{"proc/net/tcp", "proc/net/tcp6"} {
		b, err := fs.ReadFile(fsys, table)
		if err != nil {
			if nf.Err == nil && !errors.Is(err, fs.ErrNotExist) {
				nf.Err, nf.Denied = err, errors.Is(err, fs.ErrPermission)
			}
			continue
		}
		read++
		for inode := range tcpListeners(b, port) {
			inodes[inode] = true
		}
	}
	if read == 0 && nf.Err == nil {
		nf.Err = errors.New("/proc/net/tcp cannot be read")
	}
	return inodes
}

// tcpListeners returns the inodes of the sockets of a proc/net/tcp{,6}
// table listening on port on a loopback or unspecified address.
func tcpListeners(table []byte, port int) map[string]bool {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(table))
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" || f[9] == "0" { // 0A: LISTEN
			continue
		}
		addrHex, portHex, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		p, err := strconv.ParseUint(portHex, 16, 16)
		if err != nil || int(p) != port {
			continue
		}
		addr, ok := procAddr(addrHex)
		if !ok {
			continue
		}
		if servesLoopback(addr) {
			out[f[9]] = true
		}
	}
	return out
}

// servesLoopback reports whether a socket listening on addr accepts
// connections to the loopback address: it is bound to a loopback or an
// unspecified address.
func servesLoopback(addr netip.Addr) bool {
	addr = addr.Unmap()
	return addr.IsLoopback() || addr.IsUnspecified()
}

// procAddr decodes an address of proc/net/tcp: the bytes of the address
// printed as 32-bit words in the machine's byte order.
func procAddr(h string) (netip.Addr, bool) {
	raw, err := hex.DecodeString(h)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, false
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, ok := netip.AddrFromSlice(b)
	return addr, ok
}

// socketHolder finds the process with an fd linking to "socket:[INODE]" for
// one of inodes.
func socketHolder(fsys fs.FS, inodes map[string]bool, nf *NotFoundError) (Process, error) {
	pids, err := procfs.PIDs(fsys)
	if err != nil {
		nf.Err, nf.Denied = err, errors.Is(err, fs.ErrPermission)
		return Process{}, nf
	}
	// Database servers' processes first: reading every process's fds costs a
	// readlink per descriptor (a tenth of a run's start-up CPU with a message
	// broker beside the server), and a socket a supervisor passed down
	// (systemd's socket activation) is the supervisor's too, which is not
	// the server.
	var servers, others []int
	for _, pid := range pids {
		if slices.Contains(serverComms, procfs.Comm(fsys, pid)) {
			servers = append(servers, pid)
		} else {
			others = append(others, pid)
		}
	}
	for _, pid := range slices.Concat(servers, others) {
		if holds(fsys, pid, inodes, nf) {
			return Process{PID: pid, Comm: procfs.Comm(fsys, pid)}, nil
		}
	}
	return Process{}, nf
}

// holds reports whether process pid has an fd linking to "socket:[INODE]"
// for one of inodes; fds it may not read set nf.Denied.
func holds(fsys fs.FS, pid int, inodes map[string]bool, nf *NotFoundError) bool {
	fdDir := procfs.Dir(pid) + "/fd"
	fds, err := fs.ReadDir(fsys, fdDir)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			nf.Denied = true
		}
		return false // gone, or not ours to read
	}
	for _, fd := range fds {
		target, err := fs.ReadLink(fsys, fdDir+"/"+fd.Name())
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				nf.Denied = true
			}
			continue
		}
		inode, ok := strings.CutPrefix(target, "socket:[")
		if ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true
		}
	}
	return false
}

// serverComms are the command names (proc/PID/comm) of the database servers'
// processes, which socketHolder searches first.
var serverComms = []string{"mariadbd", "mysqld", "postgres", "postmaster", "tidb-server"}

// realPath resolves the symbolic links of an absolute path in fsys, as the
// kernel records a socket under the path it was bound to (/run/… where a
// client may name /var/run/…).
func realPath(fsys fs.FS, p string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(path.Clean("/"+p), "/"), "/")
	resolved := ""
	for hops := 0; len(parts) > 0; {
		name := parts[0]
		parts = parts[1:]
		next := path.Join(resolved, name)
		if next == "." || next == ".." || strings.HasPrefix(next, "../") {
			resolved = "" // above the root is the root
			continue
		}
		fi, err := fs.Lstat(fsys, next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if hops++; hops > 40 {
			return "", errors.New("too many symbolic links")
		}
		target, err := fs.ReadLink(fsys, next)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(target, "/") {
			resolved = ""
		}
		parts = append(strings.Split(strings.Trim(path.Clean(target), "/"), "/"), parts...)
	}
	return "/" + resolved, nil
}
