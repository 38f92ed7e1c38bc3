// Package chromium drives a headless Chromium through the DevTools protocol
// for tests that render pages (the HTML report, the results site): load a
// file, set the viewport, evaluate scripts, take screenshots, and read the
// console errors, Content-Security-Policy violations and requests the page
// made. Imported by tests only.
package chromium

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

// Find is the path of a Chromium the tests can drive, "" when none
// is installed (scripts/test.sh installs Debian's chromium).
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is a headless Chromium driven through the DevTools protocol over
// --remote-debugging-pipe (JSON messages ended by a NUL byte on file
// descriptors 3 and 4): no WebSocket and no library needed. One page, one
// caller at a time.
type Browser struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  strings.Builder
	next    int
	session string
	// events are the events read and not yet waited for.
	events []Message
}

// Message is one DevTools protocol message: a reply (ID) or an event (Method).
type Message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// Start starts Chromium with a blank page attached; ctx bounds its
// life (its end kills the browser, and every call then fails).
func Start(ctx context.Context, t testing.TB, path string) *Browser {
	t.Helper()
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &Browser{in: ourEnd, out: bufio.NewReader(fromChrome)}
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
	b.Call(t, "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.Call(t, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	return b
}

// read reads the next message.
func (b *Browser) read() (Message, error) {
	line, err := b.out.ReadBytes(0)
	if err != nil {
		return Message{}, fmt.Errorf("reading from Chromium: %w (stderr: %s)", err, b.stderr.String())
	}
	var m Message
	if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
		return m, fmt.Errorf("a message from Chromium: %w", err)
	}
	return m, nil
}

// Call sends method to the page's session (the browser's before one is
// attached) and decodes its result into result (nil: ignored).
func (b *Browser) Call(t testing.TB, method string, params any, result any) {
	t.Helper()
	if err := b.Try(method, params, result); err != nil {
		t.Fatal(err)
	}
}

// Try is Call returning its error.
func (b *Browser) Try(method string, params any, result any) error {
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

// Wait returns the first event named method (read before or after the call).
func (b *Browser) Wait(t testing.TB, method string) Message {
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

// Eval evaluates a JavaScript expression in the page and decodes its value
// (DevTools' evaluation is not subject to the page's Content-Security-Policy).
func (b *Browser) Eval(t testing.TB, expr string, v any) {
	t.Helper()
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	b.Call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		t.Fatalf("the value of %s: %v", expr, err)
	}
}

// Problems are the page's console errors, uncaught exceptions and
// Content-Security-Policy violations among the events read so far.
func (b *Browser) Problems() []string {
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

// Requests are the URLs the page asked for (Network.requestWillBeSent).
func (b *Browser) Requests() []string {
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

// BlockedByCSP counts the requests the page's Content-Security-Policy
// blocked (Network.loadingFailed with blockedReason "csp").
func (b *Browser) BlockedByCSP() int {
	n := 0
	for _, m := range b.events {
		var p struct{ BlockedReason string }
		if m.Method == "Network.loadingFailed" && json.Unmarshal(m.Params, &p) == nil && p.BlockedReason == "csp" {
			n++
		}
	}
	return n
}

// ClearEvents forgets the events read so far (before loading another page).
func (b *Browser) ClearEvents() { b.events = nil }

// SetViewport sets the page's size in CSS pixels (a device scale of 1, a
// mobile layout below 600 pixels wide).
func (b *Browser) SetViewport(t testing.TB, width, height int) {
	t.Helper()
	b.Call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
}

// Load navigates to url and waits for its load event.
func (b *Browser) Load(t testing.TB, url string) {
	t.Helper()
	b.Call(t, "Page.navigate", map[string]any{"url": url}, nil)
	b.Wait(t, "Page.loadEventFired")
}

// Screenshot captures the whole page (beyond the viewport) as PNG.
func (b *Browser) Screenshot(t testing.TB) []byte {
	t.Helper()
	var shot struct{ Data []byte }
	b.Call(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	return shot.Data
}
