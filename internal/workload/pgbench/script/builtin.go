package script

import (
	"fmt"
	"strings"
)

// builtin is one of pgbench's built-in scripts.
type builtin struct {
	name, desc, text string
}

// builtins are pgbench 15's built-in scripts, as --show-script prints them
// (naccounts 100000, ntellers 10, nbranches 1 per unit of scale).
var builtins = []builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>",
		"\\set aid random(1, 100000 * :scale)\n" +
			"\\set bid random(1, 1 * :scale)\n" +
			"\\set tid random(1, 10 * :scale)\n" +
			"\\set delta random(-5000, 5000)\n" +
			"BEGIN;\n" +
			"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n" +
			"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n" +
			"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n" +
			"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n" +
			"END;\n"},
	{"simple-update", "<builtin: simple update>",
		"\\set aid random(1, 100000 * :scale)\n" +
			"\\set bid random(1, 1 * :scale)\n" +
			"\\set tid random(1, 10 * :scale)\n" +
			"\\set delta random(-5000, 5000)\n" +
			"BEGIN;\n" +
			"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n" +
			"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n" +
			"END;\n"},
	{"select-only", "<builtin: select only>",
		"\\set aid random(1, 100000 * :scale)\n" +
			"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"},
}

// BuiltinNames returns the names of pgbench's built-in scripts, in
// pgbench's order.
func BuiltinNames() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.name
	}
	return names
}

// Builtin returns the built-in script name, or the only one name is a
// prefix of (pgbench's -b simple), parsed, with Name its full name and Text
// what pgbench --show-script=NAME prints after its heading line.
func Builtin(name string) (*Script, error) {
	var found []builtin
	for _, b := range builtins {
		if b.name == name {
			found = []builtin{b}
			break
		}
		if strings.HasPrefix(b.name, name) {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no built-in script named %q: the built-in scripts are %s", name, strings.Join(BuiltinNames(), ", "))
	case 1:
	default:
		names := make([]string, len(found))
		for i, b := range found {
			names[i] = b.name
		}
		return nil, fmt.Errorf("ambiguous built-in script name %q: it begins %s; give more of the name", name, strings.Join(names, " and "))
	}
	s, err := Parse(found[0].name, found[0].text)
	if err != nil {
		return nil, fmt.Errorf("built-in script %s: %w", found[0].name, err)
	}
	return s, nil
}

// BuiltinDescription is how pgbench names built-in script name in its
// report ("<builtin: TPC-B (sort of)>"); "" for another name.
func BuiltinDescription(name string) string {
	for _, b := range builtins {
		if b.name == name {
			return b.desc
		}
	}
	return ""
}

// ShowScript returns what pgbench --show-script=NAME prints for the
// built-in script s: a heading line, its text and an empty line.
func ShowScript(s *Script) string {
	for _, b := range builtins {
		if b.name == s.Name {
			return "-- " + b.name + ": " + b.desc + "\n" + s.Text + "\n"
		}
	}
	return s.Text
}
