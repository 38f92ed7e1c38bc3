package agent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
)

// start serves s on a loopback port until the test ends and returns its URL.
func start(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func newServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := NewServer(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMachineRoundTrip(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := newServer(t, Options{PID: os.Getpid(), Labels: func(context.Context) (Labels, error) {
		return Labels{InstanceType: "m6g.large", Region: "eu-west-1", Zone: "eu-west-1a"}, nil
	}})
	url := start(t, s)
	c := &Client{URL: url}
	m, err := c.Machine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	local := sysinfo.LocalMachine()
	if m.Arch != local.Arch || m.LogicalCPUs != local.LogicalCPUs || m.Hostname != local.Hostname || m.CPUModel != local.CPUModel {
		t.Errorf("fingerprint %+v differs from the local machine's %+v", m.Machine, local)
	}
	if m.PID != os.Getpid() || m.Process == "" || m.Source != result.ServerSourceAgent || m.Role != result.RoleServer || m.Agent != url {
		t.Errorf("PID %d process %q source %q role %q agent %q", m.PID, m.Process, m.Source, m.Role, m.Agent)
	}
	if m.InstanceType != "m6g.large" || m.Region != "eu-west-1" || m.Zone != "eu-west-1a" {
		t.Errorf("labels not applied: %+v", m.Machine)
	}
	if comm, _ := os.ReadFile("/proc/self/comm"); strings.TrimSpace(string(comm)) != m.Process {
		t.Errorf("process name %q, comm %q", m.Process, comm)
	}
}

func TestLabelsError(t *testing.T) {
	s := newServer(t, Options{Machine: func() result.Machine { return result.Machine{Arch: "arm64"} },
		Labels: func(context.Context) (Labels, error) { return Labels{}, errors.New("no metadata service") }})
	m, err := (&Client{URL: start(t, s)}).Machine(context.Background())
	if err != nil || m.Arch != "arm64" || !strings.Contains(m.Note, "no metadata service") {
		t.Errorf("machine %+v, %v", m, err)
	}
}

// burn spins until this process has used at least ticks more clock ticks of
// CPU than it had (measured, not timed).
func burn(t *testing.T, ticks uint64) {
	t.Helper()
	fsys := os.DirFS("/")
	first, err := hostcounters.Read(fsys, os.Getpid())
	if err != nil || first.Process == nil {
		t.Fatalf("reading own counters: %v", err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 1
			for {
				select {
				case <-stop:
					_ = x
					return
				default:
					for i := range 100000 {
						x = x*31 + i
					}
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		s, err := hostcounters.Read(fsys, os.Getpid())
		if err == nil && s.Process != nil && s.Process.UserTicks+s.Process.SystemTicks >= first.Process.UserTicks+first.Process.SystemTicks+ticks {
			return
		}
	}
	t.Fatal("the process did not use CPU for 2 minutes")
}

func TestCountersMoveUnderLoad(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	c := &Client{URL: start(t, newServer(t, Options{PID: os.Getpid()}))}
	ctx := context.Background()
	a, err := c.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	burn(t, 30)
	b, err := c.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := hostcounters.Delta(a, b, "")
	if o.Seconds <= 0 || o.CPU == nil || o.CPU.BusyPct <= 0 || o.Process == nil {
		t.Fatalf("delta %+v", o)
	}
	if o.Process.PID != os.Getpid() || o.Process.UserSeconds+o.Process.SystemSeconds < 0.3*100/float64(b.ClockTicks) || o.Process.CPUPct <= 0 {
		t.Errorf("process %+v: the burn of 30 ticks is not in it", o.Process)
	}
	if o.BusiestCPUPct <= 0 {
		t.Errorf("busiest CPU %d at %v%%", o.BusiestCPU, o.BusiestCPUPct)
	}
}

func TestToken(t *testing.T) {
	url := start(t, newServer(t, Options{Token: "s3cret", Machine: func() result.Machine { return result.Machine{} }}))
	ctx := context.Background()
	_, err := (&Client{URL: url}).Machine(ctx)
	if err == nil || !strings.Contains(err.Error(), "needs a token") || !strings.Contains(err.Error(), TokenFlag) {
		t.Errorf("no token: %v", err)
	}
	_, err = (&Client{URL: url, Token: "wrong"}).Counters(ctx)
	if err == nil || !strings.Contains(err.Error(), "refused the token") {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := (&Client{URL: url, Token: "s3cret"}).Counters(ctx); err != nil {
		t.Errorf("right token: %v", err)
	}
	for _, tc := range []struct {
		method, path, auth string
		want               int
	}{
		{"GET", PathMachine, "", 401},
		{"GET", PathMachine, "Bearer wrong", 401},
		{"GET", PathMachine, "s3cret", 401},
		{"GET", PathMachine, "Basic s3cret", 401},
		{"GET", "/other", "", 401}, // nothing is revealed without the token
		{"GET", PathMachine, "Bearer s3cret", 200},
		{"GET", "/other", "Bearer s3cret", 404},
		{"POST", PathCounters, "Bearer s3cret", 405},
	} {
		req, _ := http.NewRequest(tc.method, url+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want || resp.Header.Get(APIHeader) != APIVersion {
			t.Errorf("%s %s (%q): %d, API %q; want %d", tc.method, tc.path, tc.auth, resp.StatusCode, resp.Header.Get(APIHeader), tc.want)
		}
	}
}

func TestMethodsWithoutToken(t *testing.T) {
	url := start(t, newServer(t, Options{Machine: func() result.Machine { return result.Machine{} }}))
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", PathCounters, 200}, {"PUT", PathMachine, 405}, {"DELETE", PathCounters, 405},
		{"GET", "/", 404}, {"GET", "/v1/machine/x", 404}, {"GET", "/v2/machine", 404},
	} {
		req, _ := http.NewRequest(tc.method, url+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

// fake serves a fixed answer.
func fake(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	// A port nothing listens on.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name, url string
		want      string
	}{
		{"unreachable", closed, "cannot reach the fairbench agent"},
		{"not an agent", fake(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }), "is not a fairbench agent"},
		{"other version", fake(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(APIHeader, "2")
			w.Write([]byte("{}"))
		}), "speaks API version 2"},
		{"other snapshot format", fake(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(APIHeader, APIVersion)
			w.Write([]byte(`{"version": 9}`))
		}), "format 9"},
		{"garbage", fake(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(APIHeader, APIVersion)
			w.Write([]byte(`not json`))
		}), "cannot be read"},
		{"server error", fake(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(APIHeader, APIVersion)
			http.Error(w, "machine counters: no /proc/stat", 500)
		}), "no /proc/stat"},
		{"slow", fake(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }), "did not answer within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Client{URL: tc.url, Timeout: 300 * time.Millisecond}).Counters(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestNewServerMissingProcess(t *testing.T) {
	// PIDs beyond pid_max (at most 2^22) do not exist.
	if _, err := NewServer(context.Background(), Options{PID: 1 << 30, Machine: func() result.Machine { return result.Machine{} }}); err == nil {
		t.Error("a missing --pid was accepted")
	}
}

func TestParseAgentList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Endpoint
		err  string
	}{
		{"http://db1:9107", []Endpoint{{"server", "http://db1:9107"}}, ""},
		{"https://db1/agent/", []Endpoint{{"server", "https://db1/agent"}}, ""},
		{"tidb=http://a:1, tikv=http://b:1,tikv=http://c:1", []Endpoint{{"tidb", "http://a:1"}, {"tikv", "http://b:1"}, {"tikv", "http://c:1"}}, ""},
		{"http://[::1]:9107", []Endpoint{{"server", "http://[::1]:9107"}}, ""},
		{"", nil, "no agent URL"},
		{"db1:9107", nil, "must start with http://"},
		{"tikv=db1:9107", nil, "must start with http://"},
		{"=http://a", nil, "empty role"},
		{"TiKV=http://a", nil, "lower-case"},
		{"http://u:p@a", nil, "credentials"},
		{"http://a?x=1", nil, "query"},
		{"http://a#f", nil, "fragment"},
		{"http://", nil, "no host"},
		{"http://a:99999", nil, "out of range"},
		{"http://a,http://a/", nil, "twice"},
		{"http://a,", nil, "no URL"},
	} {
		got, err := ParseAgentList(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseAgentList(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseAgentList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseAgentList(f *testing.F) {
	for _, s := range []string{"http://db1:9107", "tidb=http://a:1,tikv=http://b:1", "https://x/p/", "db1", "=", ",", "a=b=c", "http://[::1]:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		eps, err := ParseAgentList(s)
		if err != nil {
			return
		}
		// Every endpoint has a role and a URL that parse again to the same.
		parts := make([]string, len(eps))
		for i, e := range eps {
			if e.Role == "" || !strings.HasPrefix(e.URL, "http") || strings.HasSuffix(e.URL, "/") {
				t.Fatalf("%q gave %+v", s, e)
			}
			parts[i] = e.Role + "=" + e.URL
		}
		again, err := ParseAgentList(strings.Join(parts, ","))
		if err != nil || !reflect.DeepEqual(again, eps) {
			t.Fatalf("%q → %v → %v, %v", s, eps, again, err)
		}
	})
}
