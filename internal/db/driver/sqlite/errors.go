package sqlite

import (
	"errors"
	"fmt"
	"strings"

	modsqlite "modernc.org/sqlite"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// primaryNames names SQLite's primary result codes (the low byte of a result
// code; extended codes such as SQLITE_BUSY_SNAPSHOT map to their primary).
var primaryNames = [...]string{
	1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
	5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
	9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
	13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
	17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
	21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
	25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
}

// codeName returns the name of the primary result code of code.
func codeName(code int) string {
	p := code & 0xff
	if p > 0 && p < len(primaryNames) && primaryNames[p] != "" {
		return primaryNames[p]
	}
	return ""
}

// Describe classifies an error of this driver: the SQLite primary result code
// name ("SQLITE_BUSY", "SQLITE_CONSTRAINT" …) as Code. An embedded database
// never loses its connection, so ConnectionLost is always false.
func (d *Driver) Describe(err error) driver.ErrorInfo {
	var se *modsqlite.Error
	if errors.As(err, &se) {
		code := codeName(se.Code())
		return driver.ErrorInfo{Code: code, Retryable: code == "SQLITE_BUSY"}
	}
	return driver.ErrorInfo{}
}

// CheckErrorCode refuses what Describe never returns as a Code: anything but
// the name of a primary result code ("SQLITE_BUSY"). An extended code
// (SQLITE_BUSY_SNAPSHOT) is counted under its primary one, and so named.
func CheckErrorCode(code string) error {
	for _, name := range primaryNames {
		if name != "" && code == name {
			return nil
		}
	}
	hint := ""
	for _, name := range primaryNames {
		if name != "" && strings.HasPrefix(code, name+"_") {
			hint = fmt.Sprintf(" (extended codes are counted under their primary code: give %s)", name)
		}
	}
	return fmt.Errorf("%q is not an SQLite result code name%s: give names such as SQLITE_BUSY or SQLITE_LOCKED", code, hint)
}
