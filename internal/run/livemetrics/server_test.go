package livemetrics

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// closed waits until addr refuses connections, for at most a generous while
// (it fails the test then: the server was not shut down).
func closed(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still accepts connections after Stop returned", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stopped runs Stop in the background and returns a channel closed when it returns.
func stopped(s *Server, ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() { s.Stop(ctx); close(done) }()
	return done
}

func TestStartDefaultsToLinger(t *testing.T) {
	s, err := New(Labels{}).Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(canceled())
	if s.Linger != DefaultLinger || DefaultLinger <= 0 {
		t.Errorf("Linger = %v, want DefaultLinger (%v)", s.Linger, DefaultLinger)
	}
}

// TestStopLingersThenCloses: while Stop lingers the endpoint answers with the
// final figures and phase "done"; ending the context ends the linger, and the
// server is closed when Stop returns.
func TestStopLingersThenCloses(t *testing.T) {
	e := New(Labels{})
	s, err := e.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Linger = time.Hour
	e.StartRun("w", 1, nil)
	e.SetPhase(PhaseDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := stopped(s, ctx)
	for i := range 3 { // scrapes during the linger
		sc := get(t, s.Addr())
		if v, _ := sc.value("fairbench_phase", labels("phase=done")); v != 1 {
			t.Fatalf("scrape %d during the linger: phase done = %v, want 1", i, v)
		}
		select {
		case <-done:
			t.Fatal("Stop returned before its hour of linger or the end of its context")
		default:
		}
	}
	cancel() // Ctrl-C during the linger
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop still lingers after its context ended")
	}
	closed(t, s.Addr())
	s.Stop(ctx) // a second Stop returns at once
}

func TestStopSkipsTheLingerAfterAnInterrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		linger time.Duration
		ctx    context.Context
	}{
		{"context already ended", time.Hour, canceled()},
		{"no linger", 0, context.Background()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Labels{}).Start("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s.Linger = tc.linger
			select {
			case <-stopped(s, tc.ctx):
			case <-time.After(30 * time.Second):
				t.Fatal("Stop lingered")
			}
			closed(t, s.Addr())
		})
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestAnnounceSaysWhoCanRead: the line names the address bound; bound to
// every interface it adds that there is no authentication and names the
// loopback address with the same port (issue 14: :PORT was exposed without a
// word).
func TestAnnounceSaysWhoCanRead(t *testing.T) {
	cases := []struct {
		addr    string
		exposed bool
	}{
		{":0", true},
		{"0.0.0.0:0", true},
		{"[::]:0", true},
		{"127.0.0.1:0", false},
		{"[::1]:0", false},
	}
	for _, c := range cases {
		s, err := New(Labels{}).Start(c.addr)
		if err != nil {
			if strings.HasPrefix(c.addr, "[") {
				t.Logf("%s: %v (no IPv6 here)", c.addr, err)
				continue
			}
			t.Fatal(err)
		}
		s.Linger = 0
		line := s.Announce()
		s.Stop(context.Background())
		_, port, _ := net.SplitHostPort(s.Addr())
		if !strings.HasPrefix(line, "Live metrics on http://"+s.Addr()+"/metrics") {
			t.Errorf("%s: %q does not name the address bound %s", c.addr, line, s.Addr())
		}
		note := strings.Contains(line, "every interface, without authentication") && strings.Contains(line, "--metrics-addr=127.0.0.1:"+port)
		if note != c.exposed {
			t.Errorf("%s: note about every interface = %v, want %v:\n%s", c.addr, note, c.exposed, line)
		}
	}
}
