package netconn

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A Group is a set of connections whose held reads share one poll, as the
// clients of one pgbench thread (-j) share its poll: when every member waits
// for a reply, the last one to wait polls the sockets of all of them, and the
// replies that are there by then are read one after the other on that
// thread. With many connections per CPU, one wake-up then serves several
// replies: fewer context switches per query than a thread per connection,
// whose every reply wakes a thread of its own.
//
// A member counts as busy from Enter to Leave unless it waits in a read or
// sleeps in the group (Sleep): while any member is busy nobody polls, since
// that member will wait later and poll then; so a member that waits for
// anything else (a reconnect's back-off) must Leave first, or the others'
// replies wait for it. Reads of a connection whose member has not entered
// (connecting, closing) wait alone, as without a group.
type Group struct {
	mu      sync.Mutex
	busy    int       // entered members not waiting in a read
	polling bool      // a member is in the group's poll
	waiting []*Member // the members waiting in a read
	members []*Member // every member, by the index its socket is registered with
	// epfd is the group's epoll instance: each member's socket is registered
	// once (edge-triggered) when it first waits, so a poll costs one system
	// call however many members wait, where poll(2) would register and
	// unregister every socket on every call.
	epfd   int
	events []unix.EpollEvent
}

// NewGroup returns an empty group; Close releases it.
func NewGroup() (*Group, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("netconn: a poll group: %w", os.NewSyscallError("epoll_create1", err))
	}
	return &Group{epfd: epfd}, nil
}

// Close releases the group once none of its members reads any more.
func (g *Group) Close() error { return unix.Close(g.epfd) }

// A Member is one connection's place in a Group, kept across reconnects: a
// connection dialled with a context from WithMember reads through it.
type Member struct {
	g       *Group
	index   int           // in g.members
	wake    chan struct{} // a token when the member is ready or must poll
	entered bool          // Enter was called and Leave not since; the owner's
	ready   bool          // its socket became readable (or failed) in the last poll
	// pending is set when its socket became readable while it did not
	// wait: the edge is not reported again, so its next wait returns at once.
	pending bool
	reg     *conn // the connection whose socket is registered, or nil
}

// Member adds a member to g. It is not busy until it enters.
func (g *Group) Member() *Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := &Member{g: g, index: len(g.members), wake: make(chan struct{}, 1)}
	g.members = append(g.members, m)
	g.events = append(g.events, unix.EpollEvent{})
	return m
}

// Enter makes m busy: from now on its connection's reads share the group's
// poll. Called by the goroutine that reads m's connection, never while it
// reads.
func (m *Member) Enter() {
	if m == nil || m.entered {
		return
	}
	g := m.g
	g.mu.Lock()
	m.entered = true
	g.busy++
	g.mu.Unlock()
}

// Leave ends what Enter began: the member no longer keeps the group from
// polling. It reports whether m had entered (and so must Enter again when it
// comes back). Called by the goroutine that reads m's connection, never while
// it reads.
func (m *Member) Leave() bool {
	if m == nil || !m.entered {
		return false
	}
	g := m.g
	g.mu.Lock()
	m.entered = false
	g.busy--
	g.nudge()
	g.mu.Unlock()
	return true
}

// nudge wakes a waiting member to poll when nobody polls and nobody is
// busy any more. g.mu is held.
func (g *Group) nudge() {
	if g.busy == 0 && !g.polling && len(g.waiting) > 0 {
		g.waiting[0].signal()
	}
}

// signal hands m a token (a second one is not needed: m re-checks).
func (m *Member) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

type memberKey struct{}

// WithMember returns ctx carrying m: a connection dialled with it reads
// through m's group while m has entered.
func WithMember(ctx context.Context, m *Member) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, memberKey{}, m)
}

// memberOf is the member ctx carries, or nil.
func memberOf(ctx context.Context) *Member {
	m, _ := ctx.Value(memberKey{}).(*Member)
	return m
}

// wait returns once c's socket fd is readable, has failed or was
// interrupted, polling for the group when m is the last member to wait. It
// fails only when the socket cannot join the group's poll.
//
// A socket stays registered until the kernel closes it (a descriptor number
// used again by the member's next connection is registered anew): taking it
// out when the connection closes could lose the edge that wakes a member
// still waiting on it, and its stale edges only make a member look once more.
func (m *Member) wait(c *conn, fd uintptr) error {
	g := m.g
	g.mu.Lock()
	if m.reg != c {
		// The member's first wait on this connection: register its socket.
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(m.index)}
		err := unix.EpollCtl(g.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
		if err == unix.EEXIST {
			err = unix.EpollCtl(g.epfd, unix.EPOLL_CTL_MOD, int(fd), &ev)
		}
		if err != nil {
			g.mu.Unlock()
			return os.NewSyscallError("epoll_ctl", err)
		}
		m.reg, m.pending = c, false
	}
	if m.pending {
		m.pending = false
		g.mu.Unlock()
		return nil
	}
	g.busy--
	m.ready = false
	g.waiting = append(g.waiting, m)
	for !m.ready {
		if !g.polling && g.busy == 0 {
			g.poll(m)
			continue
		}
		g.mu.Unlock()
		<-m.wake
		g.mu.Lock()
	}
	g.mu.Unlock()
	return nil
}

// Sleep waits until t, or until ctx ends, out of the group (the
// workload.Shared of a thread with --jobs). Called by the goroutine that
// reads m's connection, never while it reads.
func (m *Member) Sleep(ctx context.Context, t time.Time) error {
	// Sleeping in the group's poll hung a unit test under load (a member
	// left runnable in poll for minutes, not understood yet): until it is,
	// a member sleeps out of the group, with a timer.
	left := m.Leave()
	err := sleepAlone(ctx, t)
	if left {
		m.Enter()
	}
	return err
}

// sleepAlone waits until t or until ctx ends.
func sleepAlone(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// poll waits until some waiting member's socket is readable and marks those
// ready (busy again), waking all but me; an edge of a member that does not
// wait is kept for its next wait. g.mu is held on entry and on return.
func (g *Group) poll(me *Member) {
	g.polling = true
	g.mu.Unlock()
	n, e := rawEpollWait(g.epfd, g.events)
	g.mu.Lock()
	g.polling = false
	if e != 0 && e != unix.EINTR {
		// The poll itself failed: let every waiter's receive find out.
		for _, w := range g.waiting {
			w.ready = true
		}
	}
	for _, ev := range g.events[:n] {
		g.members[ev.Fd].pending = true
	}
	keep := g.waiting[:0]
	for _, w := range g.waiting {
		if w.pending || w.ready {
			w.pending, w.ready = false, true
			g.busy++
			if w != me {
				w.signal()
			}
			continue
		}
		keep = append(keep, w)
	}
	clear(g.waiting[len(keep):])
	g.waiting = keep
}

// rawEpollWait waits for events of epfd (up to heldPollWait, when it is set)
// without telling the scheduler, as rawPoll does for one socket.
//
//go:noinline
func rawEpollWait(epfd int, events []unix.EpollEvent) (int, unix.Errno) {
	ms := -1
	if heldPollWait != nil {
		ms = int(heldPoll / time.Millisecond)
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(ms), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// doGroupRead is a held read of a connection whose member has entered: a
// non-blocking receive, and while nothing is there, the group's wait.
func (c *conn) doGroupRead(fd uintptr) bool {
	m := c.member
	if !m.entered {
		return c.soloRead(fd)
	}
	first := c.wrote.Swap(false)
	for {
		if !first && c.received(rawRecv(fd, c.p, unix.MSG_DONTWAIT)) {
			return true
		}
		first = false
		if err := m.wait(c, fd); err != nil {
			c.n, c.err = 0, err
			return true
		}
	}
}
