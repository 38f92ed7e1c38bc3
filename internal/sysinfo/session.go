package sysinfo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Session is what the server reports of a connection's session after the
// set-up every connection gets (schema 1.5): the transaction isolation level
// in the server's own words, and the value of each session variable set
// (--isolation-level, --session-var), read back from the session.
type Session struct {
	// Isolation is the session's isolation level as the server names it
	// ("READ-COMMITTED" on MySQL, "read committed" on PostgreSQL).
	Isolation string `json:"isolation,omitempty"`
	// Variables are the session variables set, by name, with the value the
	// server reports (which may be normalised: "ON" for 1, a full sql_mode).
	Variables map[string]string `json:"variables,omitempty"`
	// Notes say what could not be read back, and why.
	Notes []string `json:"notes,omitempty"`
}

// DetectSession reads back the session set-up of cfg on conn, a connection
// of cfg's driver: the isolation level and each session variable. It
// returns nil when cfg asks for neither.
func DetectSession(ctx context.Context, cfg driver.Config, conn driver.Conn) *Session {
	if cfg.Isolation == "" && len(cfg.SessionVars) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	s := &Session{}
	one := func(query string, args ...any) (string, error) {
		rows, err := conn.QueryStrings(ctx, query, args...)
		switch {
		case err != nil:
			return "", err
		case len(rows) == 0 || len(rows[0]) == 0:
			return "", fmt.Errorf("%s: no row", query)
		}
		return rows[0][len(rows[0])-1], nil
	}
	var isolation func() (string, error)
	var variable func(name string) (string, error)
	switch cfg.Kind {
	case driver.KindMySQL:
		isolation = func() (string, error) {
			v, err := one("SELECT @@SESSION.transaction_isolation")
			if err != nil { // MariaDB before 11.1 and MySQL before 5.7.20 name it tx_isolation
				v, err = one("SELECT @@SESSION.tx_isolation")
			}
			return v, err
		}
		variable = func(name string) (string, error) { return one("SELECT @@SESSION." + name) }
	case driver.KindPgSQL:
		isolation = func() (string, error) { return one("SELECT current_setting('transaction_isolation')") }
		variable = func(name string) (string, error) { return one("SELECT current_setting(?)", name) }
	case driver.KindSQLite:
		isolation = func() (string, error) { return driver.Serializable, nil }
		variable = func(name string) (string, error) { return one("PRAGMA " + name) }
	default:
		return nil
	}
	var err error
	if s.Isolation, err = isolation(); err != nil {
		s.Notes = append(s.Notes, "isolation level: "+err.Error())
	}
	for _, v := range cfg.SessionVars {
		got, err := variable(v.Name)
		if err != nil {
			s.Notes = append(s.Notes, v.Name+": "+err.Error())
			continue
		}
		if s.Variables == nil {
			s.Variables = map[string]string{}
		}
		s.Variables[v.Name] = got
	}
	return s
}

// String is the session for a run's header: "isolation READ-COMMITTED;
// sql_mode=…".
func (s *Session) String() string {
	if s == nil {
		return ""
	}
	var parts []string
	if s.Isolation != "" {
		parts = append(parts, "isolation "+s.Isolation)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Variables)) {
		parts = append(parts, name+"="+s.Variables[name])
	}
	return strings.Join(parts, "; ")
}
