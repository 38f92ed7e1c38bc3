package report

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// findChromium is the path of a Chromium the tests can drive, "" when none
// is installed (scripts/test.sh installs Debian's chromium).
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium driven through the DevTools protocol over
// --remote-debugging-pipe (JSON messages ended by a NUL byte on file
// descriptors 3 and 4): no WebSocket and no library needed. One page, one
// caller at a time.
type browser struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  strings.Builder
	next    int
	session string
	// events are the events read and not yet waited for.
	events []cdpMessage
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// startBrowser starts Chromium with a blank page attached; ctx bounds its
// life (its end kills the browser, and every call then fails).
func startBrowser(ctx context.Context, t *testing.T, path string) *browser {
	t.Helper()
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{in: ourEnd, out: bufio.NewReader(fromChrome)}
	b.cmd = exec.CommandContext(ctx, path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--disable-background-networking", "--disable-extensions", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--remote-debugging-pipe", "about:blank")
	b.cmd.ExtraFiles = []*os.File{toChrome, chromeEnd} // fds 3 and 4
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	toChrome.Close()
	chromeEnd.Close()
	t.Cleanup(func() {
		b.in.Close()
		_ = b.cmd.Process.Kill()
		_ = b.cmd.Wait()
		fromChrome.Close()
	})
	var target struct{ TargetID string }
	b.call(t, "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call(t, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	return b
}

// read reads the next message.
func (b *browser) read() (cdpMessage, error) {
	line, err := b.out.ReadBytes(0)
	if err != nil {
		return cdpMessage{}, fmt.Errorf("reading from Chromium: %w (stderr: %s)", err, b.stderr.String())
	}
	var m cdpMessage
	if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
		return m, fmt.Errorf("a message from Chromium: %w", err)
	}
	return m, nil
}

// call sends method to the page's session (the browser's before one is
// attached) and decodes its result into result (nil: ignored).
func (b *browser) call(t *testing.T, method string, params any, result any) {
	t.Helper()
	if err := b.try(method, params, result); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) try(method string, params any, result any) error {
	b.next++
	msg := map[string]any{"id": b.next, "method": method, "params": params}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: writing to Chromium: %w", method, err)
	}
	for {
		m, err := b.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.ID == 0 {
			b.events = append(b.events, m)
			continue
		}
		if m.ID != b.next {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// wait returns the first event named method (read before or after the call).
func (b *browser) wait(t *testing.T, method string) cdpMessage {
	t.Helper()
	for i, m := range b.events {
		if m.Method == method {
			b.events = append(b.events[:i], b.events[i+1:]...)
			return m
		}
	}
	for {
		m, err := b.read()
		if err != nil {
			t.Fatalf("waiting for %s: %v", method, err)
		}
		if m.Method == method {
			return m
		}
		if m.ID == 0 {
			b.events = append(b.events, m)
		}
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value
// (DevTools' evaluation is not subject to the page's Content-Security-Policy).
func (b *browser) eval(t *testing.T, expr string, v any) {
	t.Helper()
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		t.Fatalf("the value of %s: %v", expr, err)
	}
}

// problems are the page's console errors, uncaught exceptions and
// Content-Security-Policy violations among the events read so far.
func (b *browser) problems() []string {
	var out []string
	for _, m := range b.events {
		switch m.Method {
		case "Runtime.exceptionThrown":
			out = append(out, "exception: "+string(m.Params))
		case "Runtime.consoleAPICalled":
			var p struct{ Type string }
			if json.Unmarshal(m.Params, &p) == nil && (p.Type == "error" || p.Type == "warning" || p.Type == "assert") {
				out = append(out, "console: "+string(m.Params))
			}
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Source, Text string }
			}
			if json.Unmarshal(m.Params, &p) == nil && (p.Entry.Level == "error" || p.Entry.Level == "warning") {
				out = append(out, fmt.Sprintf("log (%s): %s", p.Entry.Source, p.Entry.Text))
			}
		}
	}
	return out
}

// requests are the URLs the page asked for (Network.requestWillBeSent).
func (b *browser) requests() []string {
	var out []string
	for _, m := range b.events {
		if m.Method != "Network.requestWillBeSent" {
			continue
		}
		var p struct{ Request struct{ URL string } }
		if json.Unmarshal(m.Params, &p) == nil {
			out = append(out, p.Request.URL)
		}
	}
	return out
}

// blockedByCSP counts the requests the page's Content-Security-Policy
// blocked (Network.loadingFailed with blockedReason "csp").
func (b *browser) blockedByCSP() int {
	n := 0
	for _, m := range b.events {
		var p struct{ BlockedReason string }
		if m.Method == "Network.loadingFailed" && json.Unmarshal(m.Params, &p) == nil && p.BlockedReason == "csp" {
			n++
		}
	}
	return n
}
