package suggest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// UnknownFlag is the message for --name, which is none of the flags names:
// "unknown flag --thread; did you mean --threads?", or "unknown flag
// --thread" when none is near.
func UnknownFlag(name string, names []string) string {
	msg := "unknown flag --" + name
	if near := Nearest(name, names); near != "" {
		msg += "; did you mean --" + near + "?"
	}
	return msg
}

// FlagNames lists the long names of the flags of sets.
func FlagNames(sets ...*pflag.FlagSet) []string {
	var names []string
	for _, fs := range sets {
		if fs != nil {
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		}
	}
	return names
}

// FlagError rewords an error of pflag's parser so that it names the flag and
// what it takes: an unknown flag gets the nearest of the flags of sets, a
// value of the wrong form the form the flag takes (BadValue), a missing value
// an example (NeedsValue). Other errors, and unknown shorthands, come back
// as they are.
func FlagError(err error, sets ...*pflag.FlagSet) error {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	switch {
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() == "":
		return errors.New(UnknownFlag(notExist.GetSpecifiedName(), FlagNames(sets...)))
	case errors.As(err, &invalid):
		return errors.New(BadValue(invalid.GetFlag(), invalid.GetValue(), invalid.Unwrap()))
	case errors.As(err, &required) && required.GetSpecifiedShortnames() == "":
		return errors.New(NeedsValue(required.GetFlag()))
	}
	return err
}

// valueKind is what a flag of one of pflag's own types takes.
type valueKind struct {
	what    string // "a whole number"
	example string // a value of the kind: "8"
}

// kinds are pflag's value types whose errors are strconv's.
var kinds = map[string]valueKind{
	"int": {"a whole number", "8"}, "int8": {"a whole number", "8"}, "int16": {"a whole number", "8"},
	"int32": {"a whole number", "8"}, "int64": {"a whole number", "8"}, "count": {"a whole number", "8"},
	"uint": {"a whole number, 0 or more", "8"}, "uint8": {"a whole number, 0 or more", "8"},
	"uint16": {"a whole number, 0 or more", "8"}, "uint32": {"a whole number, 0 or more", "8"},
	"uint64":  {"a whole number, 0 or more", "8"},
	"float32": {"a number", "2.5"}, "float64": {"a number", "2.5"},
	"bool":     {"true or false", "true"},
	"intSlice": {"a comma list of whole numbers", "1,2"}, "int32Slice": {"a comma list of whole numbers", "1,2"},
	"int64Slice": {"a comma list of whole numbers", "1,2"}, "uintSlice": {"a comma list of whole numbers", "1,2"},
	"float32Slice": {"a comma list of numbers", "0.5,2"}, "float64Slice": {"a comma list of numbers", "0.5,2"},
	"duration": {"a duration", "90s"},
}

// BadValue is the message for value, which flag f refused with cause: for
// pflag's own number, boolean and duration types "--threads: "two" is not a
// whole number (e.g. --threads=8)"; for a flag of fairbench's own type,
// whose cause says what it takes, the cause after the flag's name.
func BadValue(f *pflag.Flag, value string, cause error) string {
	if k, ok := kinds[f.Value.Type()]; ok {
		var num *strconv.NumError
		isNum := errors.As(cause, &num)
		switch {
		case isNum && errors.Is(num.Err, strconv.ErrRange):
			return fmt.Sprintf("--%s: %q is out of range for %s (e.g. --%s=%s)", f.Name, value, k.what, f.Name, k.example)
		case isNum || f.Value.Type() == "duration":
			return fmt.Sprintf("--%s: %q is not %s (e.g. --%s=%s)", f.Name, value, k.what, f.Name, k.example)
		}
	}
	msg := "invalid value"
	if cause != nil {
		msg = cause.Error()
	}
	if strings.HasPrefix(msg, "--"+f.Name) {
		return msg
	}
	return fmt.Sprintf("--%s: %s", f.Name, msg)
}

// NeedsValue is the message for flag f given without the value it needs:
// "--threads needs a value (e.g. --threads=8)", or "--mysql-host needs a
// value: --mysql-host=STRING" for a type with no example.
func NeedsValue(f *pflag.Flag) string {
	if k, ok := kinds[f.Value.Type()]; ok {
		return fmt.Sprintf("--%s needs a value (e.g. --%s=%s)", f.Name, f.Name, k.example)
	}
	return fmt.Sprintf("--%s needs a value: --%s=%s", f.Name, f.Name, strings.ToUpper(f.Value.Type()))
}
