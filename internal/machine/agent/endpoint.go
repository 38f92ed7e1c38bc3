package agent

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// Endpoint is one agent to read: the part of the database its machine runs
// and the agent's base URL.
type Endpoint struct {
	Role string
	URL  string
}

// ParseAgentList parses the value of --server-agent: "[ROLE=]URL[,[ROLE=]URL…]".
// ROLE (lower-case letters, digits, '-', '_') defaults to "server" and may
// repeat (several TiKV nodes are all "tikv"); the same URL may not. A URL is
// http:// or https:// with a host, and may have a path prefix (behind a proxy)
// but no user, query or fragment: the token is given through an environment
// variable, never in the URL. A trailing "/" is dropped.
func ParseAgentList(s string) ([]Endpoint, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no agent URL given: want [ROLE=]URL[,[ROLE=]URL…], e.g. http://db1:9107")
	}
	var eps []Endpoint
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		role, raw := result.RoleServer, item
		if r, rest, ok := strings.Cut(item, "="); ok && !strings.Contains(r, "/") && !strings.Contains(r, ":") {
			role, raw = r, rest
			if err := checkRole(role); err != nil {
				return nil, fmt.Errorf("agent %q: %w", item, err)
			}
		}
		u, err := checkURL(raw)
		if err != nil {
			return nil, fmt.Errorf("agent %q: %w", item, err)
		}
		if seen[u] {
			return nil, fmt.Errorf("agent %s is given twice", u)
		}
		seen[u] = true
		eps = append(eps, Endpoint{Role: role, URL: u})
	}
	return eps, nil
}

// checkRole accepts a role name.
func checkRole(role string) error {
	if role == "" {
		return fmt.Errorf("empty role before '='")
	}
	if len(role) > 64 {
		return fmt.Errorf("role longer than 64 characters")
	}
	for _, r := range role {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("role %q: use lower-case letters, digits, '-' and '_'", role)
		}
	}
	return nil
}

// checkURL validates an agent URL and returns it without a trailing "/".
func checkURL(raw string) (string, error) {
	if raw == "" {
		return "", fmt.Errorf("no URL")
	}
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		return "", fmt.Errorf("the URL must start with http:// or https:// (e.g. http://%s)", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	switch {
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("the URL has no host")
	case u.User != nil:
		return "", fmt.Errorf("the URL holds credentials: give the token through %s instead", TokenFlag)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#"):
		return "", fmt.Errorf("the URL may not have a query or fragment")
	}
	if p := u.Port(); p != "" {
		if n := atoi(p); n < 1 || n > 65535 {
			return "", fmt.Errorf("port %s is out of range", p)
		}
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// atoi parses a short decimal number; -1 when it is not one.
func atoi(s string) int {
	if len(s) == 0 || len(s) > 5 {
		return -1
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
