package bundle

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
)

// Redacted is the placeholder of a secret.
const Redacted = "[redacted]"

// The kinds of redaction counted in Manifest.Redacted.
const (
	RedactedHost   = "host"   // distinct host names replaced
	RedactedIP     = "ip"     // distinct addresses replaced
	RedactedUser   = "user"   // distinct user names replaced
	RedactedSecret = "secret" // secret values replaced
)

// redactor replaces host names, addresses, user names and secrets in the
// members of a bundle. The same host (address, user) gets the same
// placeholder in every member ("host-1", "ip-1", "user-1"), and different
// ones get different placeholders, so machines compare as they did.
// Loopback names and addresses are kept: they say where the server was
// (analysis reads a loopback target as a server on the client's machine)
// and name no one.
type redactor struct {
	keepHosts bool
	hosts     map[string]string
	ips       map[string]string
	users     map[string]string
	secrets   int
	known     []knownName // found by key, replaced wherever they appear as a word
}

type knownName struct{ name, placeholder string }

func newRedactor(keepHosts bool) *redactor {
	return &redactor{keepHosts: keepHosts, hosts: map[string]string{}, ips: map[string]string{}, users: map[string]string{}}
}

// counts is what the redactor replaced, by kind, for the manifest.
func (r *redactor) counts() map[string]int {
	out := map[string]int{}
	for k, n := range map[string]int{RedactedHost: len(r.hosts), RedactedIP: len(r.ips), RedactedUser: len(r.users), RedactedSecret: r.secrets} {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

// The classes of a key or flag name.
const (
	classNone = iota
	classSecret
	classHost
	classUser
)

var (
	secretNames = map[string]bool{"password": true, "passwd": true, "pwd": true, "pass": true, "secret": true, "token": true,
		"dsn": true, "apikey": true, "credentials": true, "pgpassword": true, "auth": true, "authorization": true}
	hostNames = map[string]bool{"host": true, "hosts": true, "hostname": true, "node": true, "address": true, "addr": true,
		"agent": true, "server-agent": true, "endpoint": true, "nodename": true}
	userNames = map[string]bool{"user": true, "username": true, "user-name": true, "login": true, "pguser": true}
)

// classify says what a key or flag name holds: "--mysql-password",
// "PGPASSWORD", "target.host", "mysql_user".
func classify(name string) int {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		n = n[i+1:]
	}
	n = strings.ReplaceAll(n, "_", "-")
	last := n
	if i := strings.LastIndexByte(n, '-'); i >= 0 {
		last = n[i+1:]
	}
	switch {
	case last == "env" || n == "key": // an environment variable's name; a plan key's name
		return classNone
	case secretNames[n] || secretNames[last] || last == "key":
		return classSecret
	case hostNames[n] || hostNames[last]:
		return classHost
	case userNames[n] || userNames[last]:
		return classUser
	}
	return classNone
}

// protected keys hold names of things (a flavour, a role, a workload) that a
// host or user name found elsewhere must not replace, and noAddress keys
// hold versions whose dotted numbers are not addresses.
var (
	protected = map[string]bool{"role": true, "source": true, "flavor": true, "workload": true, "rand_type": true, "status": true,
		"arch": true, "vendor": true, "core": true, "transport": true, "driver": true, "ps_mode": true, "encoding": true, "unit": true,
		"schema": true, "version": true, "kernel": true, "os": true, "go": true, "go_version": true, "virtualization": true,
		"smt": true, "profile": true, "sha256": true, "hash": true, "kind": true}
	noAddress = map[string]bool{"version": true, "version_comment": true, "kernel": true, "go": true, "go_version": true, "os": true, "schema": true}
)

// walk redacts a JSON tree in place; key is the object key the value is
// under (an array's elements are under the array's key).
func (r *redactor) walk(n *node, key string) {
	switch n.kind {
	case '{':
		for i, k := range n.keys {
			if k == "histogram" { // encoded figures, no names
				continue
			}
			r.walk(n.items[i], k)
		}
	case '[':
		r.flagValues(n)
		for _, v := range n.items {
			r.walk(v, key)
		}
	case 's':
		n.text = r.value(key, n.text)
	}
}

// flagValues redacts the values given as separate arguments in a command
// line: "--mysql-password", "secret"; "--pgsql-host", "db1".
func (r *redactor) flagValues(arr *node) {
	for i := 0; i+1 < len(arr.items); i++ {
		flag, next := arr.items[i], arr.items[i+1]
		if flag.kind != 's' || next.kind != 's' || !strings.HasPrefix(flag.text, "-") || strings.Contains(flag.text, "=") {
			continue
		}
		if c := classify(flag.text); c != classNone {
			next.text = r.byClass(c, next.text)
			i++
		}
	}
}

// value redacts one string under key.
func (r *redactor) value(key, s string) string {
	if c := classify(key); c != classNone {
		return r.byClass(c, s)
	}
	return r.text(s, key)
}

func (r *redactor) byClass(c int, s string) string {
	switch c {
	case classSecret:
		return r.secret(s)
	case classHost:
		return r.hostList(s)
	case classUser:
		return r.user(s)
	}
	return s
}

// secret replaces a secret's value; an empty one, or one already redacted
// ("***"), stays.
func (r *redactor) secret(s string) string {
	if t := strings.Trim(s, `"'`); t == "" || t == "***" || t == Redacted {
		return s
	}
	r.secrets++
	return Redacted
}

// user replaces a user name by its placeholder.
func (r *redactor) user(u string) string {
	if u == "" || u == Redacted || placeholder().MatchString(u) {
		return u
	}
	p, ok := r.users[u]
	if !ok {
		p = fmt.Sprintf("user-%d", len(r.users)+1)
		r.users[u] = p
		if len(u) >= 3 && !defaultUsers[u] {
			r.known = append(r.known, knownName{u, p})
		}
	}
	return p
}

// defaultUsers are the stock accounts, replaced where a key names them but
// not as words of free text (where "postgres" or "sbtest" are other things).
var defaultUsers = map[string]bool{"root": true, "postgres": true, "mysql": true, "sbtest": true}

// hostList replaces the hosts of "db1,db2:3306", "[ROLE=]URL,…", a URL or a
// host:port.
func (r *redactor) hostList(s string) string {
	items := strings.Split(s, ",")
	for i, item := range items {
		lead := item[:len(item)-len(strings.TrimLeft(item, " "))]
		item = strings.TrimSpace(item)
		role := ""
		if k, v, ok := strings.Cut(item, "="); ok && !strings.ContainsAny(k, "/:") {
			role, item = k+"=", v
		}
		items[i] = lead + role + r.hostItem(item)
	}
	return strings.Join(items, ",")
}

func (r *redactor) hostItem(item string) string {
	if strings.Contains(item, "://") {
		item = r.userinfo(item)
		if u, err := url.Parse(item); err == nil && u.Hostname() != "" {
			return strings.Replace(item, u.Hostname(), r.host(u.Hostname()), 1)
		}
		return r.text(item, "")
	}
	if h, port, err := net.SplitHostPort(item); err == nil {
		return net.JoinHostPort(r.host(h), port)
	}
	return r.host(item)
}

var (
	hostChars   = lazyre.New(`^[A-Za-z0-9._-]+$`)
	placeholder = lazyre.New(`^(host|ip|user)-[0-9]+$`)
)

// host replaces one host name or address; loopback ones stay.
func (r *redactor) host(h string) string {
	if h == "" || r.keepHosts || isLoopback(h) || placeholder().MatchString(h) {
		return h
	}
	if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
		return r.ip(h)
	}
	if !hostChars().MatchString(h) { // a socket path, free text: not a name
		return r.text(h, "")
	}
	p, ok := r.hosts[h]
	if !ok {
		p = fmt.Sprintf("host-%d", len(r.hosts)+1)
		r.hosts[h] = p
		if len(h) >= 2 {
			r.known = append(r.known, knownName{h, p})
		}
	}
	return p
}

func (r *redactor) ip(a string) string {
	p, ok := r.ips[a]
	if !ok {
		p = fmt.Sprintf("ip-%d", len(r.ips)+1)
		r.ips[a] = p
		r.known = append(r.known, knownName{a, p})
	}
	return p
}

// isLoopback says h names this machine: localhost, 127.0.0.0/8, ::1.
func isLoopback(h string) bool {
	l := strings.ToLower(strings.TrimSuffix(h, "."))
	if l == "localhost" || strings.HasSuffix(l, ".localhost") || l == "localhost.localdomain" || l == "ip6-localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(l, "[]"))
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

var (
	urlUserinfo = lazyre.New(`([A-Za-z][A-Za-z0-9+.-]*://)([^/@\s:]*)(?::([^/@\s]*))?@`)
	dsnUserinfo = lazyre.New(`(^|[^A-Za-z0-9._%/-])([A-Za-z0-9._%-]+):([^@\s/:]+)@`)
	assignment  = lazyre.New(`(^|[^A-Za-z0-9_.-])(-{0,2}[A-Za-z][A-Za-z0-9_.-]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"'(){}]+)`)
	homePath    = lazyre.New(`(/home/|/Users/|\\Users\\)([^/\\\s"']+)`)
	ipv4        = lazyre.New(`(^|[^0-9.])((?:[0-9]{1,3}\.){3}[0-9]{1,3})($|[^0-9.])`)
	ipv6        = lazyre.New(`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:%[A-Za-z0-9]+)?`)
)

// userinfo replaces the user and password of URLs ("mysql://bob:pw@db1/").
func (r *redactor) userinfo(s string) string {
	return urlUserinfo().ReplaceAllStringFunc(s, func(m string) string {
		g := urlUserinfo().FindStringSubmatch(m)
		out := g[1] + r.user(g[2])
		if strings.Contains(m[len(g[1]):], ":") {
			out += ":" + r.secret(g[3])
		}
		return out + "@"
	})
}

// text redacts free text under key: URL and DSN credentials, NAME=VALUE and
// NAME: VALUE of secret, host and user names, home directories, addresses,
// and the host and user names found under keys elsewhere.
func (r *redactor) text(s, key string) string {
	s = r.userinfo(s)
	s = replaceGroups(dsnUserinfo(), s, func(g []string) string { return g[1] + r.user(g[2]) + ":" + r.secret(g[3]) + "@" })
	s = replaceGroups(assignment(), s, func(g []string) string {
		c := classify(g[2])
		if c == classNone {
			return g[0]
		}
		v := g[4]
		if q := v[0]; (q == '"' || q == '\'') && len(v) >= 2 {
			return g[1] + g[2] + g[3] + string(q) + r.byClass(c, v[1:len(v)-1]) + string(q)
		}
		return g[1] + g[2] + g[3] + r.byClass(c, v)
	})
	s = replaceGroups(homePath(), s, func(g []string) string { return g[1] + r.user(g[2]) })
	if !r.keepHosts && !noAddress[key] {
		s = r.addresses(s)
	}
	if !protected[key] {
		s = r.knownWords(s)
	}
	return s
}

// addresses replaces IPv4 and IPv6 addresses that are not loopback.
func (r *redactor) addresses(s string) string {
	v4 := func(g []string) string {
		if ip := net.ParseIP(g[2]); ip == nil || isLoopback(g[2]) {
			return g[0]
		}
		return g[1] + r.ip(g[2]) + g[3]
	}
	// Twice: a match takes the character after it, which the next one
	// needs before it ("10.0.0.1,10.0.0.2").
	s = replaceGroups(ipv4(), replaceGroups(ipv4(), s, v4), v4)
	return ipv6().ReplaceAllStringFunc(s, func(m string) string {
		a, _, _ := strings.Cut(m, "%")
		if strings.Count(a, ":") < 2 || net.ParseIP(a) == nil || isLoopback(a) {
			return m
		}
		return r.ip(a)
	})
}

// knownWords replaces the host and user names found under keys where they
// appear as whole words, the longest first.
func (r *redactor) knownWords(s string) string {
	if len(r.known) == 0 {
		return s
	}
	known := append([]knownName(nil), r.known...)
	sort.SliceStable(known, func(i, j int) bool { return len(known[i].name) > len(known[j].name) })
	for _, k := range known {
		if r.keepHosts && !strings.HasPrefix(k.placeholder, "user-") {
			continue
		}
		s = replaceWord(s, k.name, k.placeholder)
	}
	return s
}

// replaceWord replaces word in s where it is not part of a longer name.
func replaceWord(s, word, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, word)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(word)
		before := i == 0 || !nameByte(s[i-1]) && s[i-1] != '.'
		after := end == len(s) || !nameByte(s[end]) && !(s[end] == '.' && end+1 < len(s) && nameByte(s[end+1]))
		b.WriteString(s[:i])
		if before && after {
			b.WriteString(with)
		} else {
			b.WriteString(word)
		}
		s = s[end:]
	}
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// replaceGroups replaces every match of re in s by repl of its groups.
func replaceGroups(re *regexp.Regexp, s string, repl func(g []string) string) string {
	return re.ReplaceAllStringFunc(s, func(m string) string {
		return repl(re.FindStringSubmatch(m))
	})
}
