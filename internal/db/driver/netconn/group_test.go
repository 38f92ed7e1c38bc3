package netconn

import (
	"context"
	"io"
	"net"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// dialGroup dials n connections to l within Hold's slots, each a member of
// one new group.
func dialGroup(t *testing.T, l net.Listener, n int) ([]net.Conn, []*Member) {
	t.Helper()
	t.Cleanup(Hold(n))
	g, err := NewGroup()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	conns := make([]net.Conn, n)
	members := make([]*Member, n)
	for i := range conns {
		members[i] = g.Member()
		c, err := Dial(WithMember(context.Background(), members[i]), l.Addr().Network(), l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if c.(*conn).member != members[i] {
			t.Fatal("a connection dialled with a member and a Hold slot does not read through the group")
		}
		conns[i] = c
	}
	return conns, members
}

// sparePs gives the test's echo server Ps of its own: it stands for a server
// in another process, yet it runs in this one, on Go's network poller, and
// members polling in raw system calls hold their Ps (as a run's workers do,
// GOMAXPROCS = jobs): without spare Ps the echoes could wait for them.
func sparePs(t *testing.T) {
	prev := runtime.GOMAXPROCS(runtime.NumCPU() + 8)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// roundTrip writes msg to c and reads its echo.
func roundTrip(c net.Conn, msg []byte) error {
	if _, err := c.Write(msg); err != nil {
		return err
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != string(msg) {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// The members of a group get every reply while they share one poll, on
// either transport; a member that left (a sleep) does not hold the others
// up, while one that is busy does: nobody polls until it waits too.
func TestGroupMembersShareOnePoll(t *testing.T) {
	sparePs(t)
	for network, l := range listeners(t) {
		t.Run(network, func(t *testing.T) {
			conns, members := dialGroup(t, l, 4)
			const trips = 300
			var wg sync.WaitGroup
			errs := make(chan error, len(conns))
			for i := 1; i < len(conns); i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					members[i].Enter()
					defer members[i].Leave()
					for range trips {
						if err := roundTrip(conns[i], []byte("select 1")); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			// Member 0 is busy: the others' first replies wait for it.
			members[0].Enter()
			time.Sleep(200 * time.Millisecond)
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
				t.Fatal("the others got their replies while a member was busy: nobody should have polled")
			default:
			}
			// Member 0 leaves (as before a sleep): the others finish without it.
			if !members[0].Leave() {
				t.Fatal("Leave after Enter reported the member had not entered")
			}
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the members did not finish their round trips once the busy one left")
			}
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			// Member 0 reads alone while it has not entered, and through the group after.
			if err := roundTrip(conns[0], []byte("alone")); err != nil {
				t.Fatal(err)
			}
			members[0].Enter()
			defer members[0].Leave()
			if err := roundTrip(conns[0], []byte("grouped")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Close wakes a member waiting in the group's poll, and a member waiting for
// the poller wakes when the poller's own reply comes.
func TestGroupCloseWakesWaitingMembers(t *testing.T) {
	for network, l := range listeners(t) {
		t.Run(network, func(t *testing.T) {
			conns, members := dialGroup(t, l, 2)
			done := make(chan error, 2)
			for i := range conns {
				go func() {
					members[i].Enter()
					defer members[i].Leave()
					_, err := conns[i].Read(make([]byte, 1)) // no reply ever comes
					done <- err
				}()
			}
			time.Sleep(50 * time.Millisecond)
			for _, c := range conns {
				c.Close()
			}
			for range conns {
				select {
				case err := <-done:
					if err == nil {
						t.Fatal("a read of a closed connection returned no error")
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Close did not wake a member waiting in the group")
				}
			}
		})
	}
}

// Garbage collection completes while every member of groups that fill every
// P waits in a poll for replies that never come.
func TestGroupPollLetsGarbageCollectionRun(t *testing.T) {
	for network, l := range listeners(t) {
		t.Run(network, func(t *testing.T) {
			n := runtime.GOMAXPROCS(0)
			for range n {
				conns, members := dialGroup(t, l, 2)
				for i, c := range conns {
					go func() {
						members[i].Enter()
						defer members[i].Leave() // the other member may still wait
						c.Read(make([]byte, 1))
					}()
				}
			}
			time.Sleep(50 * time.Millisecond)
			gc := make(chan struct{})
			go func() { runtime.GC(); close(gc) }()
			select {
			case <-gc:
			case <-time.After(10 * time.Second):
				t.Fatal("garbage collection did not complete while groups polled")
			}
		})
	}
}

// A member sleeps in its group: the member that polls wakes it when its time
// comes, to well under a millisecond (the group's poll times out to the
// microsecond, where Go's timers wake an idle process in whole
// milliseconds), while the others get their replies meanwhile; a sleep whose
// context ends returns at once, whether it was parked or polling itself.
func TestGroupMembersSleepInTheGroup(t *testing.T) {
	sparePs(t)
	l := listeners(t)["unix"]
	conns, members := dialGroup(t, l, 2)
	for _, m := range members {
		m.Enter()
	}
	// Member 0 sleeps 200 µs at a time while member 1 waits for its replies.
	stop := make(chan struct{})
	echoes := make(chan int, 1)
	go func() {
		n := 0
		defer func() { echoes <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := roundTrip(conns[1], []byte("select 1")); err != nil {
				return
			}
			n++
		}
	}()
	took := make([]time.Duration, 21)
	for i := range took {
		start := time.Now()
		if err := members[0].Sleep(context.Background(), start.Add(200*time.Microsecond)); err != nil {
			t.Fatal(err)
		}
		took[i] = time.Since(start)
	}
	// Busy, member 0 would keep member 1's replies waiting: it leaves first.
	members[0].Leave()
	close(stop)
	if n := <-echoes; n == 0 {
		t.Error("the other member got no reply while one slept")
	}
	members[1].Leave()
	slices.Sort(took)
	if m := took[len(took)/2]; m < 200*time.Microsecond {
		t.Errorf("a 200 µs sleep in the group took %v (median of 21)", m)
	}
	// Alone in its poll (member 1 left), a long sleep ends with its context.
	members[0].Enter()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := members[0].Sleep(ctx, start.Add(time.Hour)); err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("a sleep whose context ended returned %v after %v", err, time.Since(start))
	}
	members[0].Leave()
}

// A member that stays busy does not keep a sleeping member past its time by
// more than the backstop: nobody polls while a member is busy, and the
// sleeper's own timer ends its sleep.
func TestGroupSleepEndsWhileAnotherIsBusy(t *testing.T) {
	_, members := dialGroup(t, listeners(t)["unix"], 2)
	members[0].Enter()
	members[1].Enter() // busy: it neither reads nor sleeps in the group
	defer members[1].Leave()
	defer members[0].Leave()
	start := time.Now()
	if err := members[0].Sleep(context.Background(), start.Add(5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 5*time.Millisecond || took > 150*time.Millisecond {
		t.Errorf("a 5 ms sleep beside a busy member took %v", took)
	}
}
