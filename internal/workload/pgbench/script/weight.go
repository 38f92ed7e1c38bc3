package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseWeighted splits pgbench's FILE@W or NAME@W (-f, -b) at its last @:
// a file path may hold @ only when a weight follows. The weight is 1 when
// absent, else a decimal integer from 0 to 2147483647 (leading spaces and a
// sign allowed, as pgbench's strtol allows them). A weight of 0, which
// pgbench accepts (the script is never chosen), is accepted too; Check
// refuses a total weight of 0.
func ParseWeighted(arg string) (name string, weight int, err error) {
	at := strings.LastIndexByte(arg, '@')
	if at < 0 {
		return arg, 1, nil
	}
	name, spec := arg[:at], arg[at+1:]
	num := strings.TrimLeft(spec, " \t\n\r\f\v")
	digits := num
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return "", 0, fmt.Errorf("invalid weight specification @%s in %q: write NAME@W with W a whole number (a path holding @ needs an explicit weight: %s@1)", spec, arg, arg)
	}
	w, err := strconv.ParseInt(num, 10, 64)
	if err != nil { // out of int64's range
		return "", 0, fmt.Errorf("weight specification out of range (0 .. %d) in %q", math.MaxInt32, arg)
	}
	if w < 0 || w > math.MaxInt32 {
		return "", 0, fmt.Errorf("weight specification out of range (0 .. %d): %d in %q", math.MaxInt32, w, arg)
	}
	return name, int(w), nil
}
