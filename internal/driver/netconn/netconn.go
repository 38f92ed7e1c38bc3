// Package netconn provides a net.Conn that does blocking system calls on its
// socket instead of going through Go's network poller.
//
// A benchmark worker owns one connection and waits for every reply. Through the
// poller each reply costs a failed read, a park, an epoll wake-up and a hand-off
// between OS threads; on a small machine where the client shares CPUs with the
// server it measures, that overhead lowers the throughput the client can drive.
// A blocking read lets the kernel wake the waiting thread directly, as a C client
// such as sysbench does. Deadlines are not supported (the drivers do not set them
// on the measured path); Close shuts the socket down, which also wakes a blocked
// read, so context cancellation in the drivers still ends a call promptly.
package netconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Dial connects like net.Dialer.DialContext and returns a blocking connection
// for TCP and Unix sockets.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return Blocking(c)
}

// fileConn is a connection that can hand out a duplicate of its descriptor.
type fileConn interface {
	net.Conn
	File() (*os.File, error)
}

// Blocking converts a TCP or Unix connection into a blocking one; the original is
// closed. Other connections are returned unchanged.
func Blocking(c net.Conn) (net.Conn, error) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		_ = tc.SetKeepAlive(true)
	}
	fc, ok := c.(fileConn)
	if !ok {
		return c, nil
	}
	f, err := fc.File()
	if err != nil {
		return c, nil // not fatal: keep the poller-based connection
	}
	local, remote := c.LocalAddr(), c.RemoteAddr()
	c.Close() // the duplicate keeps the socket open
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, fmt.Errorf("netconn: make socket blocking: %w", err)
	}
	return &conn{f: f, fd: fd, local: local, remote: remote}, nil
}

type conn struct {
	f             *os.File
	fd            int
	local, remote net.Addr
	closeOnce     sync.Once
}

func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, c.wrap("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *conn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, c.wrap("write", err)
		}
		written += n
	}
	return written, nil
}

// wrap reports errors as *net.OpError so that drivers classify them as network errors.
func (c *conn) wrap(op string, err error) error {
	if errors.Is(err, syscall.EBADF) {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// Close shuts the socket down (waking a blocked Read) and releases it.
func (c *conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
		err = c.f.Close()
	})
	return err
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline and its kin accept only the zero time (no deadline), or a time in
// the past, which drivers use to abort a call: the connection is shut down.
func (c *conn) SetDeadline(t time.Time) error      { return c.deadline(t) }
func (c *conn) SetReadDeadline(t time.Time) error  { return c.deadline(t) }
func (c *conn) SetWriteDeadline(t time.Time) error { return c.deadline(t) }

func (c *conn) deadline(t time.Time) error {
	if !t.IsZero() && !t.After(time.Now()) {
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
	return nil
}
