package netconn

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
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
		t.Run(network, func(t *testing.T) {
			c, err := Dial(context.Background(), network, l.Addr().String())
			if err != nil {
				t.Fatal(err)
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
		})
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
