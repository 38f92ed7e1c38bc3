package netconn

import (
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// holders is how many more connections may wait for replies without giving up
// their P (see Hold).
var holders atomic.Int64

// Hold lets the next n connections dialled wait for their replies while
// keeping the Go scheduler's P (processor) of the goroutine that reads, and
// returns a function that takes back the slots not yet used. The caller must
// have made n Ps to spare, beyond those the rest of the program needs: the
// runner gives every worker a P of its own (GOMAXPROCS = threads + CPUs
// while it connects; once every connection holds, threads: the rest of the
// program then runs when a worker yields or is preempted).
//
// A read through the runtime's system-call path releases the P for the wait;
// when the wait is longer than the scheduler monitor's 20 µs tick, the
// monitor hands the P to another thread and the reader must get one back
// when the reply comes — futex wake-ups and context switches that a C
// client does not pay, for every query that waits on a commit. A held read
// polls the socket with raw system calls instead: the thread sleeps in the
// kernel with its P, as sysbench's does. It stays preemptible: the
// runtime's preemption signal interrupts the poll (EINTR), and without those
// signals the poll times out every heldPoll, so garbage collection and the
// scheduler can always stop the goroutine.
//
// On a Unix socket the held read is a raw poll and a receive (see
// doHeldRead); on TCP it is one blocking receive (see doHeldRecv): a TCP
// socket wakes its reader once per reply, so a poll would only add a system
// call (measured: with poll, point selects over TCP cost 1.19x sysbench's CPU
// per query). Measured on oltp_update_index over MariaDB's TCP port, 4
// threads, against the runtime's blocking read: voluntary context switches
// 1.25 → 1.03 per query (sysbench's: 1.00), client CPU per query −10 %.
// Slots are process-wide, as GOMAXPROCS is: one run at a time.
func Hold(n int) (release func()) {
	if n <= 0 {
		return func() {}
	}
	holders.Add(int64(n))
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			holders.Add(-int64(n))
		}
	}
}

// Unused is how many Hold slots no connection has taken (yet).
func Unused() int { return int(max(holders.Load(), 0)) }

// takeHolder takes a Hold slot when one is left.
func takeHolder() bool {
	for {
		h := holders.Load()
		if h <= 0 {
			return false
		}
		if holders.CompareAndSwap(h, h-1) {
			return true
		}
	}
}

// releaseHolder gives back the connection's slot, if it holds one; it is
// called once, by Close (or by a failed dial).
func (c *conn) releaseHolder() {
	if c.holdP {
		holders.Add(1)
	}
}

// heldWrite sends p without telling the scheduler, as much of it as the
// socket takes at once; a write that would block (a full socket buffer, as in
// a bulk load) leaves the rest to the caller's blocking write. Held reads keep
// the worker off the runtime's system-call path; its writes must too, or
// the scheduler monitor keeps finding a P in a system call and stays at its
// shortest (20 µs) tick.
func (c *conn) heldWrite(p []byte) (int, error) {
	c.wp, c.wn = p, 0
	err := c.raw.Write(c.sendFn)
	n, werr := c.wn, c.werr
	c.wp, c.werr = nil, nil
	if err != nil {
		return n, err
	}
	if werr != nil {
		return n, os.NewSyscallError("write", werr)
	}
	return n, nil
}

// doHeldWrite is heldWrite's body, run by RawConn.Write while it holds the
// descriptor open.
func (c *conn) doHeldWrite(fd uintptr) bool {
	for c.wn < len(c.wp) {
		rest := c.wp[c.wn:]
		n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
		switch e {
		case 0:
			c.wn += int(n)
		case unix.EINTR:
		case unix.EAGAIN:
			return true // the rest goes through the blocking write
		default:
			c.werr = e
			return true
		}
	}
	return true
}

// heldPoll bounds one raw poll, so that a reader still passes a preemption
// point that often. The runtime's preemption signal interrupts the poll
// (and is sent again every 10 ms until the reader stops), so the bound only
// matters when signals are disabled (GODEBUG=asyncpreemptoff=1): then it is
// heldPollNoSignal. Otherwise every timeout is a wake-up for nothing: with
// 100 ms instead of 10 ms, a reader waiting on a long commit or lock
// costs 40 % fewer context switches (4 held readers blocked for 4 s: 2500
// → 1460; CPU 28 → 24 ms).
var heldPoll = heldPollFor(os.Getenv("GODEBUG"))

const (
	heldPollSignal   = 100 * time.Millisecond
	heldPollNoSignal = 10 * time.Millisecond
)

// heldPollWait is the timeout of a held Unix read's poll: none while the
// preemption signals interrupt it, heldPoll without them. A timeout arms and
// cancels a kernel timer around every wait and copies the time left back
// (perf: ~0.4 µs per query of poll_select_finish, read_tsc, timespec and
// sigmask work that sysbench's poll(-1) does not do). A held TCP read keeps
// its receive timeout: SA_RESTART restarts a socket read without one, so no
// signal would end it.
var heldPollWait = pollTimeout(heldPoll)

// pollTimeout is the ppoll timeout for a bound of d: nil (wait until
// readable or interrupted) for heldPollSignal.
func pollTimeout(d time.Duration) *unix.Timespec {
	if d == heldPollSignal {
		return nil
	}
	ts := unix.NsecToTimespec(int64(d))
	return &ts
}

// heldPollFor is heldPoll under the GODEBUG setting godebug (its last
// asyncpreemptoff entry wins, as in the runtime).
func heldPollFor(godebug string) time.Duration {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "asyncpreemptoff="); ok {
			off = v == "1"
		}
	}
	if off {
		return heldPollNoSignal
	}
	return heldPollSignal
}

// doHeldRead is a held read (see Hold), run by RawConn.Read while it holds the
// descriptor open: a non-blocking receive, and while there is nothing to
// read, a raw poll. The first read after a write polls first: the reply to a
// request just sent is hardly ever there yet, and a receive would fail.
func (c *conn) doHeldRead(fd uintptr) bool {
	if c.wrote.Swap(false) {
		if e := rawPoll(fd, &c.pfd); e != 0 && e != unix.EINTR {
			c.n, c.err = 0, e
			return true
		}
	}
	for {
		if c.received(rawRecv(fd, c.p, unix.MSG_DONTWAIT)) {
			return true
		}
		if e := rawPoll(fd, &c.pfd); e != 0 && e != unix.EINTR {
			c.n, c.err = 0, e
			return true
		}
	}
}

// doHeldRecv is a held read of a TCP connection, run by RawConn.Read while it
// holds the descriptor open: one blocking receive, as a C client's. Unlike a
// Unix stream socket, a TCP socket does not wake a blocked reader when the
// peer consumes the request, so the thread sleeps once per reply and no poll
// is needed. The socket's receive timeout (heldPoll) makes the wait end with
// EINTR at the runtime's preemption signal and with EAGAIN at the latest after
// heldPoll, and each retry passes a preemption point.
func (c *conn) doHeldRecv(fd uintptr) bool {
	for !c.received(rawRecv(fd, c.p, 0)) {
	}
	return true
}

// received records the outcome of a receive in c.n and c.err and reports
// whether the read is over: false when nothing was there yet (EAGAIN) or a
// signal interrupted the wait (EINTR).
func (c *conn) received(n uintptr, e unix.Errno) bool {
	switch e {
	case 0:
		c.n, c.err = int(n), nil
	case unix.EAGAIN, unix.EINTR:
		return false
	default:
		c.n, c.err = 0, e
	}
	return true
}

// rawRecv is one recvfrom(2) into p with flags, without telling the
// scheduler. It is not inlined and it calls a function, so its prologue
// checks for a pending preemption at every call.
//
//go:noinline
func rawRecv(fd uintptr, p []byte, flags int) (uintptr, unix.Errno) {
	n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), uintptr(flags), 0, 0)
	return n, e
}

// rawPoll waits for fd to become readable (up to heldPollWait, when it is
// set) without telling the scheduler. It is not inlined and it calls a
// function, so its prologue checks for a pending preemption at every call.
//
//go:noinline
func rawPoll(fd uintptr, pfd *[1]unix.PollFd) unix.Errno {
	pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd[0])), 1, uintptr(unsafe.Pointer(heldPollWait)), 0, 0, 0)
	return e
}
