// Package sockdiag lists the listening TCP sockets of this machine's network
// namespace through the kernel's sock_diag netlink interface, as ss(8) does.
//
// Reading /proc/net/tcp and /proc/net/tcp6 instead makes the kernel walk every
// bucket of its connection hash tables, listening or not: about 5 ms of CPU
// each on the 2-core machines fairbench is measured on, paid by every run
// that looks for its server's process — a cost the client takes from the
// server it measures. A sock_diag dump asked for listening sockets only walks
// the listening table: about 0.2 ms for both families.
package sockdiag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Listener is one listening TCP socket.
type Listener struct {
	Addr  netip.AddrPort // the local address and port (IPv4-mapped addresses unmapped)
	Inode uint64         // the socket's inode, as in /proc/PID/fd's "socket:[N]"
}

// sockID is struct inet_diag_sockid (linux/inet_diag.h): ports and
// addresses in network byte order.
type sockID struct {
	Sport, Dport [2]byte
	Src, Dst     [16]byte
	If           uint32
	Cookie       [2]uint32
}

// request is a netlink header followed by struct inet_diag_req_v2.
type request struct {
	Header                     unix.NlMsghdr
	Family, Protocol, Ext, Pad uint8
	States                     uint32
	ID                         sockID
}

// message is struct inet_diag_msg, the body of each answer.
type message struct {
	Family, State, Timer, Retrans       uint8
	ID                                  sockID
	Expires, Rqueue, Wqueue, UID, Inode uint32
}

// tcpListen is TCP_LISTEN of the kernel's TCP states.
const tcpListen = 10

// TCPListeners returns the listening TCP sockets of both address families.
// An error means the interface could not be used (a kernel without
// sock_diag, a sandbox that refuses netlink sockets): the caller falls back
// to /proc/net/tcp.
func TCPListeners() ([]Listener, error) {
	var out []Listener
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		ls, err := dump(family)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// dump asks for the listening TCP sockets of one family and reads the answers
// until the kernel says it is done.
func dump(family uint8) ([]Listener, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, os.NewSyscallError("socket(AF_NETLINK, NETLINK_SOCK_DIAG)", err)
	}
	defer unix.Close(fd)
	req := request{Family: family, Protocol: unix.IPPROTO_TCP, States: 1 << tcpListen}
	req.Header = unix.NlMsghdr{Len: uint32(unsafe.Sizeof(req)), Type: unix.SOCK_DIAG_BY_FAMILY,
		Flags: unix.NLM_F_REQUEST | unix.NLM_F_DUMP, Seq: 1}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&req)), unsafe.Sizeof(req))
	if err := unix.Sendto(fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, os.NewSyscallError("sendto(sock_diag)", err)
	}
	var out []Listener
	buf := make([]byte, 64<<10)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, os.NewSyscallError("recvfrom(sock_diag)", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, fmt.Errorf("sock_diag answer: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				return nil, answerError(m.Data)
			}
			l, ok := parse(m.Data)
			if ok {
				out = append(out, l)
			}
		}
	}
}

// parse reads one inet_diag_msg; ok is false for a message too short or of
// a family not asked for.
func parse(data []byte) (Listener, bool) {
	var m message
	if len(data) < int(unsafe.Sizeof(m)) {
		return Listener{}, false
	}
	m = *(*message)(unsafe.Pointer(&data[0]))
	port := binary.BigEndian.Uint16(m.ID.Sport[:])
	var addr netip.Addr
	switch m.Family {
	case unix.AF_INET:
		addr = netip.AddrFrom4([4]byte(m.ID.Src[:4]))
	case unix.AF_INET6:
		addr = netip.AddrFrom16(m.ID.Src).Unmap()
	default:
		return Listener{}, false
	}
	return Listener{Addr: netip.AddrPortFrom(addr, port), Inode: uint64(m.Inode)}, true
}

// answerError is the error of an NLMSG_ERROR answer (a negative errno first).
func answerError(data []byte) error {
	if len(data) < 4 {
		return errors.New("sock_diag: error answer")
	}
	errno := -int32(binary.NativeEndian.Uint32(data))
	return os.NewSyscallError("sock_diag", syscall.Errno(errno))
}
