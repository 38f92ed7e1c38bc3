package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/record/result"
)

// TokenFlag is the flag of fairbench's client commands that names the
// environment variable holding an agent's token; the client's errors name it.
const TokenFlag = "--server-agent-token-env"

// DefaultTimeout bounds one request when Client.Timeout is 0.
const DefaultTimeout = 5 * time.Second

// maxBody bounds a response body (a snapshot of a large machine is tens of KB).
const maxBody = 8 << 20

// Client reads one agent.
type Client struct {
	// URL is the agent's base URL ("http://db1:9107"), without /v1.
	URL string
	// Token, when not empty, is sent as "Authorization: Bearer TOKEN".
	Token string
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// HTTP is the client used; nil means a plain http.Client.
	HTTP *http.Client
}

// Machine returns the agent's machine fingerprint. Source is "agent"; Agent
// is the client's URL; Role is what the agent sent ("server").
func (c *Client) Machine(ctx context.Context) (result.ServerMachine, error) {
	var m result.ServerMachine
	if err := c.get(ctx, PathMachine, &m); err != nil {
		return result.ServerMachine{}, err
	}
	m.Agent = c.URL
	return m, nil
}

// Counters returns a snapshot of the agent's counters.
func (c *Client) Counters(ctx context.Context) (hostcounters.Snapshot, error) {
	var s hostcounters.Snapshot
	if err := c.get(ctx, PathCounters, &s); err != nil {
		return hostcounters.Snapshot{}, err
	}
	if s.Version != hostcounters.SnapshotVersion {
		return hostcounters.Snapshot{}, fmt.Errorf("the fairbench agent at %s sent counters of format %d, this fairbench reads format %d: run the same fairbench version on both machines",
			c.URL, s.Version, hostcounters.SnapshotVersion)
	}
	return s, nil
}

// get fetches path and decodes its JSON into v, with errors that say what to do.
func (c *Client) get(ctx context.Context, path string, v any) error {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.URL, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("fairbench agent %s: %w", c.URL, err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return fmt.Errorf("the fairbench agent at %s did not answer within %v: is the address right and the port open to this machine?", c.URL, timeout)
		}
		return fmt.Errorf("cannot reach the fairbench agent at %s: %w (is `fairbench agent --listen ADDR` running on the database host, and its port open to this machine?)", c.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("reading from the fairbench agent at %s: %w", c.URL, err)
	}
	version := resp.Header.Get(APIHeader)
	switch {
	case version == "":
		return fmt.Errorf("%s is not a fairbench agent (HTTP %d without a %s header): check the URL and port", c.URL, resp.StatusCode, APIHeader)
	case version != APIVersion:
		return fmt.Errorf("the fairbench agent at %s speaks API version %s, this fairbench speaks %s: run the same fairbench version on both machines", c.URL, version, APIVersion)
	case resp.StatusCode == http.StatusUnauthorized && c.Token == "":
		return fmt.Errorf("the fairbench agent at %s needs a token: put it in an environment variable and name that variable with %s NAME", c.URL, TokenFlag)
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("the fairbench agent at %s refused the token: the variable named by %s must hold the token the agent was started with (its --token-env)", c.URL, TokenFlag)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the fairbench agent at %s answered %s for %s: %s", c.URL, resp.Status, path, strings.TrimSpace(string(body)))
	case len(body) > maxBody:
		return fmt.Errorf("the fairbench agent at %s sent more than %d bytes for %s", c.URL, maxBody, path)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the fairbench agent at %s sent %s that cannot be read: %w", c.URL, path, err)
	}
	return nil
}
