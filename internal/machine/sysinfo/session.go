package sysinfo

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// DetectSession reads back the session set-up of cfg on conn, a connection
// of cfg's driver: the isolation level and each session variable. It
// returns nil when cfg asks for neither.
func DetectSession(ctx context.Context, cfg driver.Config, conn driver.Conn) *result.Session {
	if cfg.Isolation == "" && len(cfg.SessionVars) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	s := &result.Session{}
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
