package postgres

import (
	"strconv"
	"strings"
)

// splitPlaceholders cuts query at each '?' placeholder, skipping question marks
// inside '…' and "…" quotes and -- or /* */ comments. A query with n
// placeholders gives n+1 parts.
func splitPlaceholders(query string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '\'', '"':
			j := strings.IndexByte(query[i+1:], c)
			if j < 0 {
				i = len(query)
			} else {
				i += j + 1
			}
		case '-':
			if i+1 < len(query) && query[i+1] == '-' {
				j := strings.IndexByte(query[i:], '\n')
				if j < 0 {
					i = len(query)
				} else {
					i += j
				}
			}
		case '/':
			if i+1 < len(query) && query[i+1] == '*' {
				j := strings.Index(query[i+2:], "*/")
				if j < 0 {
					i = len(query)
				} else {
					i += j + 3
				}
			}
		case '?':
			parts = append(parts, query[start:i])
			start = i + 1
		}
	}
	return append(parts, query[start:])
}

// rebind returns query with its '?' placeholders numbered $1…$n for PostgreSQL,
// and n.
func rebind(query string) (string, int) {
	parts := splitPlaceholders(query)
	if len(parts) == 1 {
		return query, 0
	}
	var b strings.Builder
	b.Grow(len(query) + 3*len(parts))
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString(p)
	}
	return b.String(), len(parts) - 1
}
