package runner

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// tcpProxy forwards 127.0.0.1:port to a real server, and can cut every
// connection (drop), stop answering (cut: connections refused) and answer
// again (restore): an outage of the server as its clients see it, without
// touching the shared server.
type tcpProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	frozen chan struct{} // while not nil, nothing is forwarded; thaw closes it
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{t: t, addr: ln.Addr().String(), target: target, conns: map[net.Conn]bool{}}
	p.serve(ln)
	t.Cleanup(func() { p.thaw(); p.cut() })
	return p
}

// port is the proxy's port.
func (p *tcpProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[s] = true, true
			p.mu.Unlock()
			go func() { p.forward(s, c); s.Close(); c.Close() }()
			go func() { p.forward(c, s); s.Close(); c.Close() }()
		}
	}()
}

// forward copies from src to dst, holding what it read while the proxy is
// frozen.
func (p *tcpProxy) forward(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			gate := p.frozen
			p.mu.Unlock()
			if gate != nil {
				<-gate
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// freeze stops forwarding: connections stay open and nothing is answered, as
// from a stopped (SIGSTOP) or hung server.
func (p *tcpProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen == nil {
		p.frozen = make(chan struct{})
	}
}

// thaw forwards again what was held and what comes.
func (p *tcpProxy) thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
	}
}

// drop closes every forwarded connection; new ones are still accepted.
func (p *tcpProxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// cut drops every connection and stops listening: connections are refused.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	if p.ln != nil {
		p.ln.Close()
	}
	p.mu.Unlock()
	p.drop()
}

// restore listens again on the same address.
func (p *tcpProxy) restore() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Errorf("proxy: listen again on %s: %v", p.addr, err)
		return
	}
	p.serve(ln)
}

// proxied returns a driver for a fresh database on the shared MariaDB,
// reached through a proxy of its own.
func proxied(t *testing.T) (driver.Driver, *tcpProxy) {
	t.Helper()
	cfg := testdb.MySQL(t)
	host, port := cfg.Endpoint(0)
	p := newTCPProxy(t, net.JoinHostPort(host, strconv.Itoa(port)))
	cfg.Socket, cfg.Hosts, cfg.Ports = "", []string{"127.0.0.1"}, []int{p.port()}
	return openDriver(t, cfg), p
}

// runWithOutage runs threads threads of SELECT 1 for d through the proxy and
// calls outage once the measured phase has run for at. It returns the
// outcome and its result as Fill writes it.
func runWithOutage(t *testing.T, threads int, d, at time.Duration, outage func(*tcpProxy)) (*Outcome, *result.Result) {
	t.Helper()
	drv, p := proxied(t)
	cfg := Config{Threads: threads, Duration: d, Percentiles: []float64{95}, ReconnectTimeout: time.Minute}
	wl := &queryWorkload{longQuery: "SELECT 1"}
	var timer *time.Timer
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: wl, Rand: newRand(t),
		OnMeasure: func() { timer = time.AfterFunc(at, func() { outage(p) }) }})
	if timer != nil {
		timer.Stop()
	}
	res := &result.Result{}
	out.Fill(res, cfg, wl)
	return out, res
}

// TestOutageUntilTheEndFails: a server that goes away and is not back when
// --time ends fails the run (it used to be complete), keeps what it measured,
// and records the outage with every thread unrecovered.
func TestOutageUntilTheEndFails(t *testing.T) {
	const threads = 4
	out, res := runWithOutage(t, threads, 1500*time.Millisecond, 500*time.Millisecond, (*tcpProxy).cut)
	if out.Status != result.StatusFailed || out.Err == nil {
		t.Fatalf("status %s, err %v; want failed", out.Status, out.Err)
	}
	if !strings.Contains(out.Err.Error(), "4 of 4 threads had no connection when the measured phase ended") {
		t.Errorf("error %q does not say the threads had no connection at the end", out.Err)
	}
	if out.Totals.Counts.Events == 0 {
		t.Errorf("no events kept: what ran before the outage must stay in the result")
	}
	if len(res.Outages) != 1 {
		t.Fatalf("outages %+v, want one", res.Outages)
	}
	o := res.Outages[0]
	if o.Threads != threads || o.Unrecovered != threads {
		t.Errorf("outage %+v: want %d threads affected and unrecovered", o, threads)
	}
	if d := o.End().Sub(res.End); d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("outage ends at %v, want the end of the measured phase %v", o.End(), res.End)
	}
	if o.Start.Before(res.Start) || !o.Start.Before(res.End) {
		t.Errorf("outage starts at %v, outside the measured phase %v..%v", o.Start, res.Start, res.End)
	}
	if res.Status != result.StatusFailed || !strings.Contains(res.Error, "no connection") {
		t.Errorf("result status %s, error %q", res.Status, res.Error)
	}
	if !hasWarning(res, "the server went away") {
		t.Errorf("warnings %q: want the outage described", res.Warnings)
	}
}

// TestOutageAtTheEndFails: a server that goes away shortly before --time
// ends, for less than 5 % of the measured phase, still fails the run: its
// threads had no connection when the phase ended.
func TestOutageAtTheEndFails(t *testing.T) {
	const threads = 2
	out, res := runWithOutage(t, threads, 10*time.Second, 9600*time.Millisecond, (*tcpProxy).cut)
	if len(res.Outages) != 1 {
		t.Fatalf("outages %+v, want one (the cut came %v into a %v phase)", res.Outages, 9600*time.Millisecond, 10*time.Second)
	}
	share := result.OutageSeconds(res.Start, res.End, res.Outages) / res.End.Sub(res.Start).Seconds()
	t.Logf("the server was away for %.1f %% of the phase", 100*share)
	if out.Status != result.StatusFailed || out.Err == nil || !strings.Contains(out.Err.Error(), "2 of 2 threads had no connection when the measured phase ended") {
		t.Fatalf("status %s, err %v; want failed for threads without a connection at the end", out.Status, out.Err)
	}
	if share > result.OutageLimit {
		t.Logf("the cut came late on this machine: the outage exceeded 5 %% too, so the rule is not tested alone")
	}
}

// TestLongOutageFails: a server away for more than 5 % of the measured phase
// fails the run even though every thread reconnected.
func TestLongOutageFails(t *testing.T) {
	const threads = 3
	// Refused for 0.6 s of 4 (15 %); the threads' back-off retries by 1.3 s
	// after the cut, leaving them seconds to reconnect on a loaded machine.
	out, res := runWithOutage(t, threads, 4*time.Second, 400*time.Millisecond, func(p *tcpProxy) {
		p.cut()
		time.AfterFunc(600*time.Millisecond, p.restore)
	})
	if out.Status != result.StatusFailed || out.Err == nil || !strings.Contains(out.Err.Error(), "more than 5 %") {
		t.Fatalf("status %s, err %v; want failed for an outage over 5 %% of the phase", out.Status, out.Err)
	}
	if got := out.Totals.Counts.Reconnects; got != threads {
		t.Errorf("reconnects %d, want %d (each thread once)", got, threads)
	}
	if len(res.Outages) != 1 || res.Outages[0].Unrecovered != 0 || res.Outages[0].Threads != threads {
		t.Fatalf("outages %+v, want one that %d threads survived", res.Outages, threads)
	}
	if s := res.Outages[0].Seconds; s < 0.6 {
		t.Errorf("outage of %.3fs, want at least the 0.6s the proxy refused connections", s)
	}
}

// TestShortOutageWarns: connections dropped and re-opened at once (a server
// restarted quickly) leave the run complete, with the reconnects counted and
// the outage recorded and warned about.
func TestShortOutageWarns(t *testing.T) {
	const threads = 3
	// The outage lasts the reconnects' backoff (10, 20, 40… ms) and whatever
	// a loaded machine adds (0.31 s seen under the race detector beside the
	// other test streams): 15 s keeps it well under the 5 % that fails a run.
	out, res := runWithOutage(t, threads, 15*time.Second, time.Second, (*tcpProxy).drop)
	if out.Status != result.StatusComplete || out.Err != nil {
		t.Fatalf("status %s, err %v; want complete", out.Status, out.Err)
	}
	if got := out.Totals.Counts.Reconnects; got != threads {
		t.Errorf("reconnects %d, want %d", got, threads)
	}
	if len(res.Outages) != 1 || res.Outages[0].Threads != threads || res.Outages[0].Unrecovered != 0 {
		t.Fatalf("outages %+v, want one that every thread survived", res.Outages)
	}
	if !hasWarning(res, "every thread reconnected and the run counts as complete") {
		t.Errorf("warnings %q: want the short outage warned about", res.Warnings)
	}
}

// TestNoOutageNoRecord: a run without a lost connection records no outage.
func TestNoOutageNoRecord(t *testing.T) {
	out, res := runWithOutage(t, 2, 300*time.Millisecond, time.Hour, func(*tcpProxy) {})
	if out.Status != result.StatusComplete || len(res.Outages) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("status %s, outages %+v, warnings %q; want complete without either", out.Status, res.Outages, res.Warnings)
	}
}

func hasWarning(res *result.Result, part string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
