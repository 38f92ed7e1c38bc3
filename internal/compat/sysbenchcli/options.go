package sysbenchcli

import (
	"fmt"
	"sort"
	"strings"
)

// aliases maps an older sysbench option name (0.5 era; sysbench 1.0 still
// takes the first four, old scripts carry the others) to its modern name.
var aliases = map[string]string{
	"num-threads":            "threads",
	"max-time":               "time",
	"max-requests":           "events",
	"tx-rate":                "rate",
	"oltp-table-size":        "table-size",
	"oltp-tables-count":      "tables",
	"oltp-range-size":        "range-size",
	"oltp-point-selects":     "point-selects",
	"oltp-simple-ranges":     "simple-ranges",
	"oltp-sum-ranges":        "sum-ranges",
	"oltp-order-ranges":      "order-ranges",
	"oltp-distinct-ranges":   "distinct-ranges",
	"oltp-index-updates":     "index-updates",
	"oltp-non-index-updates": "non-index-updates",
	"oltp-skip-trx":          "skip-trx",
	"oltp-auto-inc":          "auto-inc",
	"oltp-secondary":         "secondary",
	"mysql-table-engine":     "mysql-storage-engine",
}

// noEffect are sysbench options that change neither the statements sent nor
// how they are timed in fairbench: accepted and named in a note with why.
var noEffect = map[string]string{
	"thread-stack-size": "fairbench's threads are goroutines, whose stacks grow as needed",
	"debug":             "fairbench prints what it does without it",
	"mysql-debug":       "fairbench does not use libmysqlclient, whose calls it would trace",
	"validate":          "sysbench's OLTP scripts do not read it",
}

// switches are the sysbench options that take on|off and may be given alone
// ("--histogram" is "--histogram=on").
var switches = map[string]bool{
	"histogram": true, "db-debug": true, "mysql-ssl": true, "mysql-compression": true,
	"mysql-dry-run": true, "debug": true, "validate": true, "mysql-debug": true,
	"range-selects": true, "auto-inc": true, "skip-trx": true, "secondary": true,
	"create-secondary": true, "help": true, "version": true,
}

// refused are sysbench options fairbench does not take, with why and what to
// do instead; a switch among them given as off is accepted (it is off).
var refused = map[string]string{
	"pgsql-variant": "fairbench has no Redshift variant (sysbench's writes IDENTITY columns, no secondary index and no DELETE/INSERT pair); --pgsql-variant=pgsql, the default, is accepted",
}

// defaultValues are values of refused options that are sysbench's default,
// accepted with no effect.
var defaultValues = map[string]string{"pgsql-variant": "pgsql"}

// onOff maps sysbench's and Lua's spellings of a boolean to true/false.
var onOff = map[string]string{
	"on": "true", "off": "false", "yes": "true", "no": "false",
	"true": "true", "false": "false", "1": "true", "0": "false",
}

// Canonical returns the modern dashed name of a sysbench option name (without
// "--"): underscores become dashes (sysbench's scripts declare table_size and
// accept --table-size, and scripts write both), and an older name becomes its
// modern one; alias reports the latter.
func Canonical(name string) (canonical string, alias bool) {
	name = strings.ReplaceAll(name, "_", "-")
	if modern, ok := aliases[name]; ok {
		return modern, true
	}
	return name, false
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// aliasNote is the one note line naming the older names given and their
// modern ones, in the order given.
func aliasNote(given [][2]string) string {
	parts := make([]string, len(given))
	for i, g := range given {
		parts[i] = fmt.Sprintf("--%s is now --%s", g[0], g[1])
	}
	return strings.Join(parts, ", ") + " (sysbench 0.5's names, still in old scripts)"
}
