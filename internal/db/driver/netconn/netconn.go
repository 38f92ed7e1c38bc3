// Package netconn provides a net.Conn that does blocking system calls on its
// socket instead of going through Go's network poller.
//
// A benchmark worker owns one connection and waits for every reply. Through the
// poller each reply costs a failed read, a park, an epoll wake-up and a hand-off
// between OS threads; on a small machine where the client shares its CPUs with
// the server it measures, that overhead lowers the throughput the client can
// drive. A blocking read lets the kernel wake the waiting thread directly, as a C
// client such as sysbench does. The socket is created here and never registered
// with the poller (a socket dialled by package net stays registered as long as any
// duplicate of it is open, and keeps waking the poller).
//
// On a Unix socket a read first waits in poll(2) for the socket to become
// readable and then reads, as sysbench's C client does. A read(2) blocked on a
// Unix stream socket is also woken when the server consumes the request (the
// kernel signals write space on the same wait queue), so it would sleep twice
// per query; poll's wait is filtered by event and wakes once, on the reply.
// A connection dialled within Hold's slots (a benchmark worker's) also keeps
// its goroutine's P while it waits, on either transport (see Hold).
//
// Deadlines: the zero time clears nothing and a time in the past shuts the
// connection down (drivers use that to abort a call); other deadlines are not
// supported. Close shuts the socket down first, which wakes a blocked Read, so a
// driver's context cancellation still ends a call promptly.
package netconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// DefaultConnectTimeout bounds a connect when the context has no deadline:
// the drivers' one connect timeout.
const DefaultConnectTimeout = driver.ConnectTimeout

// Dial connects to addr on network "tcp", "tcp4", "tcp6" or "unix" with a
// blocking socket. Host names are resolved with net.DefaultResolver and each
// address is tried in turn.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "unix":
		c, err := dialSockaddr(ctx, syscall.AF_UNIX, &syscall.SockaddrUnix{Name: addr}, &net.UnixAddr{Name: addr, Net: "unix"})
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.UnixAddr{Name: addr, Net: "unix"}, Err: err}
		}
		return c, nil
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("netconn: unsupported network %q", network)
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netconn: address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 1 || port > 65535 {
		return nil, fmt.Errorf("netconn: address %q: bad port", addr)
	}
	ips, err := resolve(ctx, network, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	var errs []error
	for _, ip := range ips {
		remote := &net.TCPAddr{IP: ip.AsSlice(), Port: port}
		family, sa := syscall.AF_INET6, syscall.Sockaddr(nil)
		if ip.Is4() {
			family, sa = syscall.AF_INET, &syscall.SockaddrInet4{Port: port, Addr: ip.As4()}
		} else {
			sa = &syscall.SockaddrInet6{Port: port, Addr: ip.As16()}
		}
		c, err := dialSockaddr(ctx, family, sa, remote)
		if err == nil {
			return c, nil
		}
		errs = append(errs, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: err})
	}
	return nil, errors.Join(errs...)
}

// resolve returns the addresses of host for network.
func resolve(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		if (network == "tcp4" && !a.Is4()) || (network == "tcp6" && a.Is4()) {
			continue
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s address for %s", network, host)
	}
	return out, nil
}

// dialSockaddr creates a blocking socket and connects it within the context's
// deadline (or DefaultConnectTimeout).
func dialSockaddr(ctx context.Context, family int, sa syscall.Sockaddr, remote net.Addr) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	timeout := DefaultConnectTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
		if timeout <= 0 {
			syscall.Close(fd)
			return nil, context.DeadlineExceeded
		}
	}
	// A blocking connect honours SO_SNDTIMEO and fails with EINPROGRESS when it expires.
	tv := syscall.NsecToTimeval(timeout.Nanoseconds())
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	for {
		err = syscall.Connect(fd, sa)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		if err == syscall.EINPROGRESS || err == syscall.EAGAIN {
			return nil, fmt.Errorf("connect timed out after %v: %w", timeout.Round(time.Millisecond), os.ErrDeadlineExceeded)
		}
		return nil, os.NewSyscallError("connect", err)
	}
	var zero syscall.Timeval
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &zero)
	if family != syscall.AF_UNIX {
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE, 1)
	}
	local := remote
	if lsa, err := syscall.Getsockname(fd); err == nil {
		local = sockaddrToAddr(lsa, remote)
	}
	// os.File gives reference-counted, EINTR-safe reads and writes; the descriptor
	// is blocking, so the file is not registered with the poller.
	f := os.NewFile(uintptr(fd), "socket")
	c := &conn{f: f, fd: fd, local: local, remote: remote}
	c.holdP = takeHolder()
	if family == syscall.AF_UNIX || c.holdP {
		raw, err := f.SyscallConn()
		if err != nil {
			c.releaseHolder()
			f.Close()
			return nil, fmt.Errorf("netconn: %w", err)
		}
		c.raw = raw
		// Bound once: a method value per Read or Write would allocate.
		c.pollRead = c.doPollRead
		if c.holdP {
			c.pollRead = c.doHeldRead
			c.sendFn = c.doHeldWrite
		}
		if c.holdP && family != syscall.AF_UNIX {
			// A held TCP read blocks in recvfrom(2); the receive timeout makes
			// the runtime's preemption signal end it (EINTR), see heldPoll.
			tv := syscall.NsecToTimeval(heldPoll.Nanoseconds())
			if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
				c.releaseHolder()
				f.Close()
				return nil, os.NewSyscallError("setsockopt SO_RCVTIMEO", err)
			}
			c.pollRead = c.doHeldRecv
		}
		if m := memberOf(ctx); m != nil && c.holdP {
			c.member, c.soloRead = m, c.pollRead
			c.pollRead = c.doGroupRead
		}
	}
	return c, nil
}

func sockaddrToAddr(sa syscall.Sockaddr, fallback net.Addr) net.Addr {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *syscall.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *syscall.SockaddrUnix:
		return &net.UnixAddr{Name: a.Name, Net: "unix"}
	}
	return fallback
}

type conn struct {
	f             *os.File
	fd            int
	local, remote net.Addr
	// mu orders Close against a shutting deadline, so that a descriptor number
	// reused after Close is never shut down.
	mu     sync.Mutex
	closed bool

	// Unix sockets and held connections (see the package comment and Hold):
	// raw runs pollRead with the descriptor held open; the read's buffer and
	// outcome pass through p, n and err, as one goroutine reads a connection
	// at a time.
	raw      syscall.RawConn
	holdP    bool                  // a reader that keeps its P (see Hold); set by the dial only
	member   *Member               // the group a held read shares its poll with (see Group), or nil
	soloRead func(fd uintptr) bool // a held read without the group
	wrote    atomic.Bool           // a Write came after the last held read (see doHeldRead)
	pollRead func(fd uintptr) bool
	pfd      [1]unix.PollFd
	p        []byte
	n        int
	err      error
	// Received bytes not read yet: rbuf[rpos:rend] (see readAhead).
	rbuf       []byte
	rpos, rend int
	// The same for held writes (a reader and a writer may overlap).
	sendFn func(fd uintptr) bool
	wp     []byte
	wn     int
	werr   error
}

// readAhead is the size of a connection's receive buffer. go-sql-driver reads
// at most 4 KB at a time: the 100 rows of one of sysbench's range selects
// (13 KB) took four receives, each a system call, where sysbench's C client
// takes what is there in one. With the buffer, a read smaller than it receives
// up to readAhead bytes and later reads are served from them.
const readAhead = 32 << 10

func (c *conn) Read(p []byte) (int, error) {
	if c.rpos < c.rend {
		n := copy(p, c.rbuf[c.rpos:c.rend])
		c.rpos += n
		return n, nil
	}
	if len(p) == 0 || len(p) >= readAhead {
		return c.read(p)
	}
	if c.rbuf == nil {
		c.rbuf = make([]byte, readAhead)
	}
	n, err := c.read(c.rbuf)
	if n <= 0 {
		return 0, err
	}
	c.rpos, c.rend = copy(p, c.rbuf[:n]), n
	return c.rpos, nil // an error with data comes back at the next receive
}

// read is one receive into p, as the kind of connection does it.
func (c *conn) read(p []byte) (int, error) {
	var n int
	var err error
	if c.raw != nil {
		n, err = c.readRaw(p)
	} else {
		n, err = c.f.Read(p)
	}
	if err != nil && err != io.EOF {
		return n, c.wrap("read", err)
	}
	return n, err
}

// readRaw runs pollRead on the descriptor: on a Unix socket it waits in
// poll(2) until the socket is readable, then reads; a held read (see Hold)
// does it without telling the scheduler.
func (c *conn) readRaw(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.p = p
	if err := c.raw.Read(c.pollRead); err != nil {
		c.p = nil
		return 0, err
	}
	n, err := c.n, c.err
	c.p, c.err = nil, nil
	switch {
	case err != nil:
		return n, os.NewSyscallError("read", err)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// doPollRead is readRaw's body for a Unix socket that does not hold its P,
// run by RawConn.Read while it holds the descriptor open.
func (c *conn) doPollRead(fd uintptr) bool {
	c.pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	for {
		_, err := unix.Poll(c.pfd[:], -1)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			c.n, c.err = 0, err
			return true
		}
	}
	for {
		n, err := syscall.Read(int(fd), c.p)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		c.n, c.err = n, err
		return true
	}
}

func (c *conn) Write(p []byte) (int, error) {
	done := 0
	if c.holdP {
		c.wrote.Store(true)
		var err error
		if done, err = c.heldWrite(p); err != nil || done == len(p) {
			if err != nil {
				return done, c.wrap("write", err)
			}
			return done, nil
		}
	}
	n, err := c.f.Write(p[done:])
	n += done
	if err != nil {
		return n, c.wrap("write", err)
	}
	return n, nil
}

// wrap reports errors as *net.OpError so that drivers classify them as network errors.
func (c *conn) wrap(op string, err error) error {
	if errors.Is(err, os.ErrClosed) {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// Close shuts the socket down (waking a blocked Read) and releases it once no
// Read or Write uses it any more.
func (c *conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.releaseHolder()
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return c.f.Close()
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline with a time in the past shuts the connection down; the zero time
// and future times are accepted and ignored.
func (c *conn) SetDeadline(t time.Time) error { return c.deadline(t) }

// SetReadDeadline behaves as SetDeadline.
func (c *conn) SetReadDeadline(t time.Time) error { return c.deadline(t) }

// SetWriteDeadline behaves as SetDeadline.
func (c *conn) SetWriteDeadline(t time.Time) error { return c.deadline(t) }

func (c *conn) deadline(t time.Time) error {
	if t.IsZero() || t.After(time.Now()) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
	return nil
}
