package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// DefaultLinger is how long a Server keeps answering after the run ends
// (Server.Stop): long enough for a scraper polling every few seconds to see
// the final counters and phase "done", short enough not to hold up a script.
// A Prometheus scraping every 15 s sees them only if a scrape falls in that
// window; raise Server.Linger (run --metrics-linger) to the scrape interval to
// be sure.
const DefaultLinger = 5 * time.Second

// Server serves an Exporter over HTTP: /metrics, and a hint at /.
type Server struct {
	// Linger is how long Stop keeps answering scrapes before it shuts the
	// server down; Start sets DefaultLinger, 0 stops at once.
	Linger time.Duration

	addr     string
	srv      *http.Server
	stopOnce sync.Once
}

// Start listens on addr (":9105", "127.0.0.1:0"…) and serves e until Stop.
// The error says what to change when the address is taken or malformed.
func (e *Exporter) Start(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("serving metrics on %q: port %s is already in use: choose another port or stop the program using it", addr, portOf(addr))
		}
		return nil, fmt.Errorf("serving metrics on %q: %w: use host:port, e.g. :9105", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "fairbench live metrics: scrape /metrics (Prometheus text format)")
	})
	s := &Server{
		Linger: DefaultLinger,
		addr:   ln.Addr().String(),
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address bound, which tells the port when Start asked for port 0.
func (s *Server) Addr() string { return s.addr }

// Announce is the line that says where the metrics are served. The endpoint
// has no authentication: bound to every interface (":9105", "0.0.0.0:9105"),
// anyone who reaches the machine reads it, so the line says so and names the
// loopback address to use instead outside Kubernetes (where a pod's port is
// reached through its own network and :PORT is the usual choice).
func (s *Server) Announce() string {
	line := fmt.Sprintf("Live metrics on http://%s/metrics", s.addr)
	host, port, err := net.SplitHostPort(s.addr)
	if ip, perr := netip.ParseAddr(host); err == nil && perr == nil && ip.IsUnspecified() {
		line += fmt.Sprintf("\nNote: the metrics listen on every interface, without authentication: anyone who can reach this machine can read them. "+
			"Outside Kubernetes, give --metrics-addr=127.0.0.1:%s to keep them on this machine.", port)
	}
	return line
}

// Stop keeps answering for Linger, then shuts the server down (scrapes under
// way may finish, for up to 2 s). It skips the wait when ctx is done or ends
// during it (Ctrl-C: the user wants out now). It returns when the server is
// closed; later calls return at once.
func (s *Server) Stop(ctx context.Context) {
	s.stopOnce.Do(func() {
		if s.Linger > 0 && ctx.Err() == nil {
			t := time.NewTimer(s.Linger)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if s.srv.Shutdown(sctx) != nil {
			_ = s.srv.Close()
		}
	})
}

// Serve is Start that stops when ctx ends, at once (no Linger), and returns
// the address bound.
func (e *Exporter) Serve(ctx context.Context, addr string) (string, error) {
	s, err := e.Start(addr)
	if err != nil {
		return "", err
	}
	s.Linger = 0
	go func() {
		<-ctx.Done()
		s.Stop(ctx)
	}()
	return s.Addr(), nil
}

// portOf returns the port part of addr, or addr itself.
func portOf(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return port
	}
	return addr
}
