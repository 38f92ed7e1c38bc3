package sockdiag

import (
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A listener this test opens is found with its port, address and the inode
// that /proc/self/fd names; a port closed again is not.
func TestTCPListenersFindsOwnListener(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skipf("cannot listen on %s: %v", addr, err)
			}
			defer l.Close()
			want := l.Addr().(*net.TCPAddr).AddrPort()
			want = netip.AddrPortFrom(want.Addr().Unmap(), want.Port())
			f, err := l.(*net.TCPListener).File()
			if err != nil {
				t.Fatal(err)
			}
			link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
			if err != nil {
				t.Fatal(err)
			}
			f.Close() // a duplicate of the socket: it would keep it listening
			inode, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
			if err != nil {
				t.Fatalf("fd link %q: %v", link, err)
			}
			ls, err := TCPListeners()
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, x := range ls {
				if x.Addr == want {
					found = true
					if x.Inode != inode {
						t.Errorf("inode of %v = %d, want %d", want, x.Inode, inode)
					}
				}
			}
			if !found {
				t.Fatalf("listener %v not among the %d listed", want, len(ls))
			}
			l.Close()
			ls, err = TCPListeners()
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range ls {
				if x.Addr == want {
					t.Fatalf("closed listener %v still listed", want)
				}
			}
		})
	}
}

// Connected sockets are not listed: only listeners are asked for.
func TestTCPListenersLeavesOutConnections(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local := c.LocalAddr().(*net.TCPAddr).AddrPort()
	ls, err := TCPListeners()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ls {
		if x.Addr.Port() == local.Port() {
			t.Fatalf("the connection's port %d is listed as a listener", local.Port())
		}
	}
}

func TestParseRefusesShortAndOtherFamilies(t *testing.T) {
	if _, ok := parse(make([]byte, 10)); ok {
		t.Error("a short message parsed")
	}
	b := make([]byte, 72)
	b[0] = 1 // AF_UNIX
	if _, ok := parse(b); ok {
		t.Error("an AF_UNIX message parsed")
	}
}
