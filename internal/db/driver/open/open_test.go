package open

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Every driver refuses codes its errors never carry (issue 14: unknown
// --*-ignore-errors codes were accepted and silently never matched).
func TestErrorCodeCheck(t *testing.T) {
	cases := []struct {
		kind, code string
		want       string // "" = accepted; else a part of the error
	}{
		{driver.KindMySQL, "1213", ""},
		{driver.KindMySQL, "65535", ""},
		{driver.KindMySQL, "0", "not a MySQL error number"},
		{driver.KindMySQL, "65536", "not a MySQL error number"},
		{driver.KindMySQL, "-1", "not a MySQL error number"},
		{driver.KindMySQL, "40P01", "not a MySQL error number"},
		{driver.KindMySQL, "ER_LOCK_DEADLOCK", "not a MySQL error number"},
		{driver.KindPgSQL, "40P01", ""},
		{driver.KindPgSQL, "23505", ""},
		{driver.KindPgSQL, "1213", "not a PostgreSQL SQLSTATE"},
		{driver.KindPgSQL, "40P011", "not a PostgreSQL SQLSTATE"},
		{driver.KindPgSQL, "DEADLOCK_DETECTED", "not a PostgreSQL SQLSTATE"},
		{driver.KindPgSQL, "40p01", "not a PostgreSQL SQLSTATE"}, // ParseErrorPolicy upper-cases first
		{driver.KindSQLite, "SQLITE_BUSY", ""},
		{driver.KindSQLite, "SQLITE_CONSTRAINT", ""},
		{driver.KindSQLite, "SQLITE_BUSY_SNAPSHOT", "give SQLITE_BUSY"},
		{driver.KindSQLite, "5", "not an SQLite result code name"},
		{driver.KindSQLite, "SQLITE_NOPE", "not an SQLite result code name"},
		{driver.KindSQLite, "1213", "not an SQLite result code name"},
	}
	for _, tc := range cases {
		err := ErrorCodeCheck(tc.kind)(tc.code)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %q refused: %v", tc.kind, tc.code, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %q: err %v, want one containing %q", tc.kind, tc.code, err, tc.want)
		}
	}
	if ErrorCodeCheck("oracle") != nil {
		t.Error("an unknown kind has a check")
	}
}
