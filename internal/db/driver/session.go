package driver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The transaction isolation levels a connection may be set to
// (Config.Isolation), as fairbench's --isolation-level spells them. The
// empty level leaves the server's default.
const (
	ReadUncommitted = "read-uncommitted"
	ReadCommitted   = "read-committed"
	RepeatableRead  = "repeatable-read"
	Serializable    = "serializable"
)

// IsolationLevels lists the levels in order of strength.
func IsolationLevels() []string {
	return []string{ReadUncommitted, ReadCommitted, RepeatableRead, Serializable}
}

// ParseIsolation reads an isolation level written as fairbench, SQL or the
// servers' variables write it ("read-committed", "READ COMMITTED",
// "READ-COMMITTED", "read_committed"); "" and "default" are the server's
// default ("").
func ParseIsolation(s string) (string, error) {
	norm := strings.ToLower(strings.TrimSpace(s))
	norm = strings.NewReplacer(" ", "-", "_", "-").Replace(norm)
	switch norm {
	case "", "default":
		return "", nil
	case ReadUncommitted, ReadCommitted, RepeatableRead, Serializable:
		return norm, nil
	}
	return "", fmt.Errorf("unknown isolation level %q: use %s (or leave it out for the server's default)", s, strings.Join(IsolationLevels(), ", "))
}

// IsolationSQL is level as SQL writes it after ISOLATION LEVEL ("READ COMMITTED").
func IsolationSQL(level string) string {
	return strings.ToUpper(strings.ReplaceAll(level, "-", " "))
}

// SessionVar is one session variable every connection sets before it is
// used (--session-var NAME=VALUE): a MySQL system variable, a PostgreSQL
// run-time parameter or a SQLite pragma.
type SessionVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// String is NAME=VALUE.
func (v SessionVar) String() string { return v.Name + "=" + v.Value }

// ParseSessionVar reads NAME=VALUE. NAME is letters, digits, '_' and '.'
// (PostgreSQL's custom parameters are prefix.name), so that it can be written
// into a statement unquoted; VALUE is any text.
func ParseSessionVar(s string) (SessionVar, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return SessionVar{}, fmt.Errorf("session variable %q: write NAME=VALUE, e.g. sql_mode=STRICT_TRANS_TABLES", s)
	}
	if err := checkVarName(name); err != nil {
		return SessionVar{}, err
	}
	return SessionVar{Name: name, Value: strings.TrimSpace(value)}, nil
}

func checkVarName(name string) error {
	for i, r := range name {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9' && i > 0) || (r == '.' && i > 0 && i < len(name)-1)
		if !ok {
			return fmt.Errorf("session variable name %q: use letters, digits, '_' and '.' only", name)
		}
	}
	return nil
}

// LiteralValue writes a session variable's value for a SET statement: a
// number as it is, anything else as a quoted string
// ('STRICT_TRANS_TABLES,NO_ZERO_DATE'); a value written in quotes ('…') is
// that string. escapeBackslash doubles backslashes too (MySQL's strings).
func LiteralValue(v string, escapeBackslash bool) string {
	if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXpPnNiI_") {
		return v
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		v = v[1 : len(v)-1]
	}
	if escapeBackslash {
		v = strings.ReplaceAll(v, `\`, `\\`)
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// SetupError says that the server refused the session set-up of a new
// connection (an isolation level or a session variable): the run cannot
// start as asked. Its message carries the server's.
type SetupError struct {
	// Setting is what was being set, as the user wrote it:
	// "--isolation-level=serializable", "--session-var=sql_mode=…".
	Setting string
	Err     error
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("the database refused %s: %v (fix or leave out the option)", e.Setting, e.Err)
}

func (e *SetupError) Unwrap() error { return e.Err }

// IsSetupError reports whether err is (or wraps) a *SetupError.
func IsSetupError(err error) bool {
	var se *SetupError
	return errors.As(err, &se)
}

// NameList renders names — server variables or counters, fixed in the code,
// never user input — as the list of an SQL IN clause: ('a', 'b'). Probes ask
// the server for the rows they keep rather than read every row: SHOW GLOBAL
// STATUS has ~600.
func NameList(names []string) string { return "('" + strings.Join(names, "', '") + "')" }
