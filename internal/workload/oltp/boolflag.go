package oltp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// onOff is a boolean flag value that accepts sysbench's spellings (on/off) as
// well as Go's (true/false, 1/0) and yes/no, so "--skip-trx=on" works as in sysbench.
type onOff struct{ p *bool }

// boolFlag registers p as a boolean flag named name; the flag alone means true.
func boolFlag(fs *pflag.FlagSet, p *bool, name, usage string) {
	f := fs.VarPF(onOff{p}, name, "", usage)
	f.NoOptDefVal = "true"
	f.DefValue = onOff{p}.String()
}

// String returns "on" or "off".
func (v onOff) String() string {
	if v.p != nil && *v.p {
		return "on"
	}
	return "off"
}

// Set parses on/off, true/false, yes/no and 1/0 (any case).
func (v onOff) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "yes":
		*v.p = true
		return nil
	case "off", "no":
		*v.p = false
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not a boolean: use on or off", s)
	}
	*v.p = b
	return nil
}

// Type is "bool", so help output and shells treat the flag as a switch.
func (v onOff) Type() string { return "bool" }
