package netconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// echoServer accepts connections on l and echoes what they send.
func echoServer(t *testing.T, l net.Listener) {
	t.Helper()
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
}

func listeners(t *testing.T) map[string]net.Listener {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unix, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, tcp)
	echoServer(t, unix)
	return map[string]net.Listener{"tcp": tcp, "unix": unix}
}

func TestEchoAndCloseWakesBlockedRead(t *testing.T) {
	for network, l := range listeners(t) {
		for _, held := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/held=%v", network, held), func(t *testing.T) {
				testEcho(t, network, l.Addr().String(), held)
			})
		}
	}
}

// testEcho dials addr (with a Hold slot when held), checks an echo and that
// Close wakes a blocked read and gives the slot back.
func testEcho(t *testing.T, network, addr string, held bool) {
	if held {
		release := Hold(1)
		defer release()
	}
	c, err := Dial(context.Background(), network, addr)
	if err != nil {
		t.Fatal(err)
	}
	takes := held
	if got := c.(*conn).holdP; got != takes {
		t.Fatalf("holdP = %v, want %v", got, takes)
	}
	if held && Unused() != map[bool]int{true: 0, false: 1}[takes] {
		t.Fatalf("%d Hold slots left after the dial", Unused())
	}
	msg := []byte("select 1")
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != string(msg) {
		t.Fatalf("echo = %q, %v", buf, err)
	}
	if c.RemoteAddr().Network() != network || c.LocalAddr() == nil {
		t.Fatalf("addresses: %v %v", c.LocalAddr(), c.RemoteAddr())
	}
	// A read that waits for a reply which never comes returns once Close runs.
	done := make(chan error, 1)
	go func() { _, err := c.Read(buf); done <- err }()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read after Close returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not wake the blocked read")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if held && holders.Load() != 1 {
		t.Fatalf("%d Hold slots after Close, want the connection's back (1)", holders.Load())
	}
}

// A read that keeps its P while it waits must not stop the world from
// stopping: garbage collection (which stops every goroutine) completes while
// such reads wait for replies that never come, as many as there are Ps.
// On TCP the read blocks in recvfrom(2): without the socket's receive timeout
// the kernel would restart it after the preemption signal, and the collector
// would wait for ever (the whole process stops: go test's timeout ends it).
func TestHeldReadsLetGarbageCollectionRun(t *testing.T) {
	for network, l := range listeners(t) {
		t.Run(network, func(t *testing.T) {
			n := runtime.GOMAXPROCS(0)
			defer Hold(n)()
			var conns []net.Conn
			for range n {
				c, err := Dial(context.Background(), network, l.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				conns = append(conns, c)
				go c.Read(make([]byte, 1))
			}
			time.Sleep(50 * time.Millisecond) // let the reads block
			gc := make(chan struct{})
			go func() { runtime.GC(); close(gc) }()
			select {
			case <-gc:
			case <-time.After(10 * time.Second):
				t.Fatal("garbage collection did not complete while held reads waited")
			}
			for _, c := range conns {
				if !c.(*conn).holdP {
					t.Fatal("a connection dialled within Hold's slots does not hold its P")
				}
			}
		})
	}
}

func TestHoldSlots(t *testing.T) {
	release := Hold(2)
	if !takeHolder() || !takeHolder() || takeHolder() {
		t.Fatal("Hold(2) did not give exactly two slots")
	}
	holders.Add(2) // the two taken are given back, as Close does
	release()
	release() // a second call takes nothing more
	if h := holders.Load(); h != 0 {
		t.Fatalf("%d slots left after release, want 0", h)
	}
	Hold(0)()
	if h := holders.Load(); h != 0 {
		t.Fatalf("Hold(0) left %d slots", h)
	}
}

func TestPastDeadlineAbortsBlockedRead(t *testing.T) {
	l := listeners(t)["tcp"]
	c, err := Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 1)); done <- err }()
	time.Sleep(50 * time.Millisecond)
	c.SetReadDeadline(time.Now().Add(-time.Second))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a deadline in the past did not wake the blocked read")
	}
}

func TestDialErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	cases := []struct {
		network, addr string
	}{
		{"tcp", addr},
		{"unix", filepath.Join(t.TempDir(), "none.sock")},
		{"tcp", "127.0.0.1"},
		{"tcp", "127.0.0.1:99999"},
		{"udp", "127.0.0.1:53"},
	}
	for _, tc := range cases {
		if c, err := Dial(context.Background(), tc.network, tc.addr); err == nil {
			c.Close()
			t.Errorf("Dial(%s, %s) succeeded", tc.network, tc.addr)
		}
	}
	var op *net.OpError
	if _, err := Dial(context.Background(), "tcp", addr); !errors.As(err, &op) {
		t.Errorf("refused dial error %v is not a *net.OpError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Dial(ctx, "tcp", addr); !errors.Is(err, context.Canceled) {
		t.Errorf("dial with a cancelled context: %v", err)
	}
}

// A held write larger than the socket buffer, to a server that reads late,
// sends part at once and the rest through the blocking path: all of it
// arrives.
func TestHeldWriteLargerThanTheSocketBuffer(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			addr := filepath.Join(t.TempDir(), "sink.sock")
			if network == "tcp" {
				addr = "127.0.0.1:0"
			}
			l, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			got := make(chan int64, 1)
			go func() {
				c, err := l.Accept()
				if err != nil {
					got <- -1
					return
				}
				defer c.Close()
				time.Sleep(50 * time.Millisecond) // let the client's buffer fill
				n, _ := io.Copy(io.Discard, c)
				got <- n
			}()
			defer Hold(1)()
			c, err := Dial(context.Background(), network, l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			if !c.(*conn).holdP {
				t.Fatal("the connection does not hold its P")
			}
			msg := make([]byte, 8<<20)
			n, err := c.Write(msg)
			if err != nil || n != len(msg) {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
			}
			c.Close()
			if n := <-got; n != int64(len(msg)) {
				t.Fatalf("the server received %d bytes, want %d", n, len(msg))
			}
		})
	}
}

// A held poll wakes up for nothing at each timeout, so it is long unless the
// runtime's preemption signals are off (then it is the only preemption point).
func TestHeldPollIsShortOnlyWithoutPreemptionSignals(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		want    time.Duration
	}{
		{"", heldPollSignal},
		{"gctrace=1", heldPollSignal},
		{"asyncpreemptoff=1", heldPollNoSignal},
		{"gctrace=1, asyncpreemptoff=1", heldPollNoSignal},
		{"asyncpreemptoff=1,asyncpreemptoff=0", heldPollSignal},
		{"asyncpreemptoff=0", heldPollSignal},
	} {
		if got := heldPollFor(tc.godebug); got != tc.want {
			t.Errorf("heldPollFor(%q) = %v, want %v", tc.godebug, got, tc.want)
		}
	}
	if heldPollNoSignal >= heldPollSignal {
		t.Errorf("heldPollNoSignal %v >= heldPollSignal %v", heldPollNoSignal, heldPollSignal)
	}
	if ts := pollTimeout(heldPollSignal); ts != nil {
		t.Errorf("with preemption signals the held poll has a timeout (%v); want none", *ts)
	}
	if ts := pollTimeout(heldPollNoSignal); ts == nil || ts.Nano() != int64(heldPollNoSignal) {
		t.Errorf("without preemption signals the held poll's timeout is %v, want %v", ts, heldPollNoSignal)
	}
}

// TestSmallReadTakesWhatIsThere checks the read-ahead: a read smaller than
// readAhead receives everything the socket holds at once (one system call, as
// a C client's read), and the next reads return the rest in order.
func TestSmallReadTakesWhatIsThere(t *testing.T) {
	const size = 20000
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i * 7)
	}
	for _, network := range []string{"tcp", "unix"} {
		for _, held := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/held=%v", network, held), func(t *testing.T) {
				addr := "127.0.0.1:0"
				if network == "unix" {
					addr = filepath.Join(t.TempDir(), "s.sock")
				}
				l, err := net.Listen(network, addr)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				go func() {
					c, err := l.Accept()
					if err != nil {
						return
					}
					defer c.Close()
					c.Write(want)
					io.Copy(io.Discard, c) // until the client closes
				}()
				if held {
					defer Hold(1)()
				}
				nc, err := Dial(context.Background(), network, l.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				c := nc.(*conn)
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
					if n, err := unix.IoctlGetInt(c.fd, unix.SIOCINQ); err == nil && n == size {
						break
					} else if time.Now().After(deadline) {
						t.Fatalf("the peer's %d bytes never all arrived (%d, %v)", size, n, err)
					}
				}
				got := make([]byte, 0, size)
				p := make([]byte, 100)
				n, err := c.Read(p)
				if err != nil || n != len(p) {
					t.Fatalf("first Read = %d, %v", n, err)
				}
				got = append(got, p[:n]...)
				if left, _ := unix.IoctlGetInt(c.fd, unix.SIOCINQ); left != 0 || c.rend-c.rpos != size-n {
					t.Fatalf("after a %d-byte read the socket holds %d bytes and the buffer %d: want 0 and %d", n, left, c.rend-c.rpos, size-n)
				}
				for k := 1; len(got) < size; k++ {
					n, err := c.Read(p[:k%len(p)+1])
					if err != nil {
						t.Fatalf("Read after %d bytes: %v", len(got), err)
					}
					got = append(got, p[:n]...)
				}
				if string(got) != string(want) {
					t.Fatal("the bytes read are not the bytes sent, in order")
				}
			})
		}
	}
}
