package pgbenchcli

import (
	"fmt"
	"strings"
)

// option is one of pgbench 15's options: its long name, its short letter
// (0 for a long-only option) and whether it takes a value.
type option struct {
	long  string
	short byte
	value bool
}

// options are pgbench 15's long options in the order of its option table,
// which is the order glibc lists the candidates of an ambiguous prefix in.
// --help and --version are not among them: pgbench reads them only as the
// first argument.
var options = []option{
	{"builtin", 'b', true},
	{"client", 'c', true},
	{"connect", 'C', false},
	{"debug", 'd', false},
	{"define", 'D', true},
	{"file", 'f', true},
	{"fillfactor", 'F', true},
	{"host", 'h', true},
	{"initialize", 'i', false},
	{"init-steps", 'I', true},
	{"jobs", 'j', true},
	{"log", 'l', false},
	{"latency-limit", 'L', true},
	{"no-vacuum", 'n', false},
	{"port", 'p', true},
	{"progress", 'P', true},
	{"protocol", 'M', true},
	{"quiet", 'q', false},
	{"report-per-command", 'r', false},
	{"rate", 'R', true},
	{"scale", 's', true},
	{"select-only", 'S', false},
	{"skip-some-updates", 'N', false},
	{"time", 'T', true},
	{"transactions", 't', true},
	{"username", 'U', true},
	{"vacuum-all", 'v', false},
	{"unlogged-tables", 0, false},
	{"tablespace", 0, true},
	{"index-tablespace", 0, true},
	{"sampling-rate", 0, true},
	{"aggregate-interval", 0, true},
	{"progress-timestamp", 0, false},
	{"log-prefix", 0, true},
	{"foreign-keys", 0, false},
	{"random-seed", 0, true},
	{"show-script", 0, true},
	{"partitions", 0, true},
	{"partition-method", 0, true},
	{"failures-detailed", 0, false},
	{"max-tries", 0, true},
	{"verbose-errors", 0, false},
}

// shortOptions maps pgbench's short letters to their options.
var shortOptions = func() map[byte]*option {
	m := map[byte]*option{}
	for i := range options {
		if o := &options[i]; o.short != 0 {
			m[o.short] = o
		}
	}
	return m
}()

// usageError is a complaint of getopt's, which pgbench follows with its hint.
func usageError(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Hint: `Try "pgbench --help" for more information.`}
}

// getopt reads args as glibc's getopt_long reads pgbench's: short options
// clustered (-Sn, -c8), a short option's value in the same word or the next,
// long options by any unambiguous prefix with their value after "=" or in
// the next word, words that are not options collected wherever they stand
// (unless POSIXLY_CORRECT is set), everything after "--" a word. It hands
// each option (by its long name) to use in command-line order, as pgbench's
// loop receives them, so that a bad value is reported before a bad option
// after it; use returns stop to end the reading there (pgbench exits). The
// words come back in order.
func getopt(args []string, posixlyCorrect bool, use func(name, value string) (stop bool, err error)) (words []string, stopped bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(words, args[i+1:]...), false, nil
		case strings.HasPrefix(a, "--"):
			o, err := longOption(a)
			if err != nil {
				return nil, false, err
			}
			_, value, hasValue := strings.Cut(a[2:], "=")
			switch {
			case !o.value && hasValue:
				return nil, false, usageError("option '--%s' doesn't allow an argument", o.long)
			case o.value && !hasValue:
				if i+1 >= len(args) {
					return nil, false, usageError("option '--%s' requires an argument", o.long)
				}
				i++
				value = args[i]
			}
			if stop, err := use(o.long, value); stop || err != nil {
				return nil, stop, err
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o := shortOptions[a[j]]
				if o == nil {
					return nil, false, usageError("invalid option -- '%c'", a[j])
				}
				value := ""
				if o.value {
					value = a[j+1:]
					if value == "" {
						if i+1 >= len(args) {
							return nil, false, usageError("option requires an argument -- '%c'", a[j])
						}
						i++
						value = args[i]
					}
					j = len(a) // the rest of the word was the value
				}
				if stop, err := use(o.long, value); stop || err != nil {
					return nil, stop, err
				}
			}
		default:
			if posixlyCorrect {
				return append(words, args[i:]...), false, nil
			}
			words = append(words, a)
		}
	}
	return words, false, nil
}

// longOption finds the option of "--name[=value]": the option of that exact
// name, else the only one whose name begins with it.
func longOption(arg string) (*option, error) {
	name, _, _ := strings.Cut(arg[2:], "=")
	var found []*option
	for i := range options {
		o := &options[i]
		if o.long == name {
			return o, nil
		}
		if strings.HasPrefix(o.long, name) {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return nil, usageError("unrecognized option '%s'", arg)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, o := range found {
		names[i] = "'--" + o.long + "'"
	}
	return nil, usageError("option '%s' is ambiguous; possibilities: %s", arg, strings.Join(names, " "))
}
