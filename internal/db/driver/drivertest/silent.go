package drivertest

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// SilentServer listens on 127.0.0.1 and accepts connections but never writes a
// byte: a server that is reachable and does not answer. It returns the port;
// everything is closed when the test ends. No traffic leaves the machine.
func SilentServer(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().(*net.TCPAddr).Port
}

// BlackholePort returns a port on 127.0.0.1 whose connection attempts get no
// answer at all, as from a host that is down or behind a firewall that drops
// packets: a listener with a backlog of one that never accepts, its queue
// filled by one connection, so that the kernel drops further SYNs. No traffic
// leaves the machine.
func BlackholePort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	// Fill the accept queue (a backlog of 0 holds one connection).
	for range 2 {
		c, err := net.DialTimeout("tcp", (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}).String(), 300*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
	}
	return port
}

// CountingServer listens on 127.0.0.1, closes every connection it accepts at
// once and counts them: a client that must not connect (a dry run) is held
// to none, and one that must is seen. It returns the port and the count;
// everything is closed when the test ends. No traffic leaves the machine.
func CountingServer(t testing.TB) (port int, accepted *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted = new(atomic.Int64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, accepted
}
