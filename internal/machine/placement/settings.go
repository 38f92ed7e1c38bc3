package placement

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/fairbench/fairbench/internal/base/lazyre"
)

// maxSelector bounds a label selector: a handful of labels, never kilobytes.
const maxSelector = 1024

// serviceName is the syntax of a Service's DNS name: dot-separated DNS
// labels ("fairbench-agent", "fairbench-agent.bench.svc.cluster.local").
var serviceName = lazyre.New(`^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*\.?$`)

// namespaceName is the syntax of a namespace's name: one DNS label.
var namespaceName = lazyre.New(`^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$`)

// ParseService reads the agents' headless Service as NAME[:PORT]: a DNS
// name ("fairbench-agent", "fairbench-agent.bench.svc.cluster.local") and
// the agents' port (DefaultAgentPort when left out).
func ParseService(s string) (name string, port int, err error) {
	name, portText, hasPort := strings.Cut(strings.TrimSpace(s), ":")
	port = DefaultAgentPort
	if hasPort {
		n, err := strconv.Atoi(portText)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("port %q of %q: give a port number from 1 to 65535 (NAME[:PORT], e.g. fairbench-agent:%d)", portText, s, DefaultAgentPort)
		}
		port = n
	}
	if name == "" {
		return "", 0, fmt.Errorf("no Service name in %q: give the agents' headless Service, NAME[:PORT] (e.g. fairbench-agent)", s)
	}
	if len(name) > 253 || !serviceName().MatchString(name) || net.ParseIP(name) != nil {
		return "", 0, fmt.Errorf("%q is not a Service's DNS name (lower-case letters, digits, '-' and '.'; e.g. fairbench-agent or fairbench-agent.bench.svc.cluster.local)", name)
	}
	return name, port, nil
}

// CheckSelector refuses a label selector that cannot be one
// ("app.kubernetes.io/name=mariadb", "app=db,tier!=cache"): empty, too
// long, or with spaces at its ends or control characters. The API server
// checks the rest of its syntax when the pods are listed.
func CheckSelector(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("empty label selector: give the database pods' labels, e.g. app.kubernetes.io/name=mariadb")
	case len(s) > maxSelector:
		return fmt.Errorf("label selector of %d bytes: at most %d", len(s), maxSelector)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("label selector %q starts or ends with a space", s)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("label selector %q holds a control character or invalid UTF-8", s)
		}
	}
	return nil
}

// CheckNamespace refuses a name that is not a namespace's (one DNS label).
func CheckNamespace(ns string) error {
	if !namespaceName().MatchString(ns) {
		return fmt.Errorf("%q is not a namespace's name (at most 63 lower-case letters, digits and '-')", ns)
	}
	return nil
}

// podNamespace is the namespace of the pod this process runs in, from its
// service account's namespace file in dir.
func podNamespace(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "namespace"))
	if err != nil {
		return "", fmt.Errorf("reading the pod's namespace: %w", err)
	}
	ns := strings.TrimSpace(string(b))
	if err := CheckNamespace(ns); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(dir, "namespace"), err)
	}
	return ns, nil
}
