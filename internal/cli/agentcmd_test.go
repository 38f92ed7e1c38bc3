package cli

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/agent"
	"github.com/fairbench/fairbench/internal/syncbuf"
)

func TestAgentCommand(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test",
		Getenv: func(k string) string { return map[string]string{"AGENT_TOKEN": "tok"}[k] }}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- app.Execute(ctx, []string{"agent", "--listen", "127.0.0.1:0", "--token-env", "AGENT_TOKEN", "--pid", strconv.Itoa(os.Getpid())})
	}()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+) \(read-only\), process \d+`)
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		select {
		case c := <-code:
			t.Fatalf("agent ended with %d: %s %s", c, out.String(), errb.String())
		default:
		}
	}
	if url == "" {
		t.Fatalf("no address printed: %q", out.String())
	}
	m, err := (&agent.Client{URL: url, Token: "tok"}).Machine(ctx)
	if err != nil || m.PID != os.Getpid() {
		t.Errorf("machine %+v, %v", m, err)
	}
	if _, err := (&agent.Client{URL: url}).Counters(ctx); err == nil || !strings.Contains(err.Error(), "needs a token") {
		t.Errorf("without the token: %v", err)
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitOK {
			t.Errorf("exit %d after cancel, want 0; stderr %q", c, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not stop on cancel")
	}
	if errb.String() != "" {
		t.Errorf("stderr %q (no warning on loopback with a token)", errb.String())
	}
}

func TestAgentCommandBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"agent"}, "--listen ADDR is required"},
		{[]string{"agent", "--listen", "9107"}, "want HOST:PORT"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--token-env", "EMPTY"}, "EMPTY: that environment variable is empty"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--pid", "1", "--process", "x"}, "not both"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--process", "no-such-process-fb"}, "no process is named"},
		{[]string{"agent", "--listen", "127.0.0.1:0", "--pid", "1073741824"}, "process 1073741824"},
	} {
		r := runCLI(ctx, nil, tc.args...)
		if r.code == ExitOK || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestAgentCommandWarnsOffLoopback(t *testing.T) {
	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() { code <- app.Execute(ctx, []string{"agent", "--listen", "0.0.0.0:0"}) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(errb.String(), "without a token") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-code
	if !strings.Contains(errb.String(), "without a token: anyone who reaches the port") {
		t.Errorf("stderr %q: no warning for all interfaces without a token", errb.String())
	}
}
