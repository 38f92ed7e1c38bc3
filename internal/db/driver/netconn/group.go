package netconn

import (
	"context"
	"sync"
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
// A member counts as busy from Enter to Leave unless it waits in a read:
// while any member is busy nobody polls, since that member will wait later
// and poll then; so a member must Leave before it sleeps or waits for
// anything but its connection (a --rate schedule, a back-off), or the
// others' replies wait for it. Reads of a connection whose member has not
// entered (connecting, closing) wait alone, as without a group.
type Group struct {
	mu      sync.Mutex
	busy    int       // entered members not waiting in a read
	polling bool      // a member is in the group's poll
	waiting []*Member // the members waiting in a read, in the order they began
	pfds    []unix.PollFd
}

// NewGroup returns an empty group.
func NewGroup() *Group { return &Group{} }

// A Member is one connection's place in a Group, kept across reconnects: a
// connection dialled with a context from WithMember reads through it.
type Member struct {
	g       *Group
	wake    chan struct{} // a token when the member is ready or must poll
	entered bool          // Enter was called and Leave not since; the owner's
	ready   bool          // its socket was readable (or failed) at the last poll
	fd      int32         // the socket waited for
}

// Member adds a member to g. It is not busy until it enters.
func (g *Group) Member() *Member { return &Member{g: g, wake: make(chan struct{}, 1)} }

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

// wait returns once fd is readable, has failed or was interrupted, polling
// for the group when m is the last member to wait.
func (m *Member) wait(fd uintptr) {
	g := m.g
	g.mu.Lock()
	g.busy--
	m.ready, m.fd = false, int32(fd)
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
}

// poll waits until some waiting member's socket is readable and marks those
// ready (busy again), waking all but me. g.mu is held on entry and on return.
func (g *Group) poll(me *Member) {
	g.polling = true
	n := len(g.waiting)
	pfds := g.pfds[:0]
	for _, w := range g.waiting {
		pfds = append(pfds, unix.PollFd{Fd: w.fd, Events: unix.POLLIN})
	}
	g.pfds = pfds
	g.mu.Unlock()
	e := rawPollN(pfds)
	g.mu.Lock()
	g.polling = false
	if e == unix.EINTR {
		return // a preemption: the caller polls again if it still must
	}
	keep := g.waiting[:0]
	for i, w := range g.waiting {
		// Members that began to wait during the poll (i >= n) were not in it.
		if i < n && (e != 0 || pfds[i].Revents != 0) {
			w.ready = true
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

// rawPollN waits for any of pfds to become readable (up to heldPollWait, when
// it is set) without telling the scheduler, as rawPoll does for one.
//
//go:noinline
func rawPollN(pfds []unix.PollFd) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfds[0])), uintptr(len(pfds)), uintptr(unsafe.Pointer(heldPollWait)), 0, 0, 0)
	return e
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
		m.wait(fd)
	}
}
