package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/valuearena"
	"github.com/fairbench/fairbench/internal/workload/pgbench/expr"
)

// Value is a variable's value as pgbench keeps it: either text (from -D or
// a query's result through \gset or \aset), interpreted only when an
// expression reads it, or a typed value computed by \set.
type Value struct {
	// IsText says the value is Text; otherwise it is Typed.
	IsText bool
	Text   string
	Typed  expr.Value
}

// TextValue returns the text s as a variable's value.
func TextValue(s string) Value { return Value{IsText: true, Text: s} }

// TypedValue returns v as a variable's value.
func TypedValue(v expr.Value) Value { return Value{Typed: v} }

// ParseDefine parses pgbench's -D NAME=VALUE. The value stays text, as in
// pgbench: an expression reading it takes it for NULL, a boolean (true, yes,
// on, false, no, off and their prefixes), an integer or a double, and fails
// on anything else ("malformed variable"); as an SQL parameter it is an
// int64, a float64 or else the string itself. A value written as a quoted
// SQL literal ('abc', as pgbench's simple mode needs it) is unquoted, since a
// parameter carries the string.
func ParseDefine(arg string) (name string, v Value, err error) {
	name, text, ok := strings.Cut(arg, "=")
	if !ok {
		return "", Value{}, fmt.Errorf("invalid variable definition %q: write -D NAME=VALUE", arg)
	}
	if !validVarName(name) {
		return "", Value{}, fmt.Errorf("invalid variable name %q in -D %s: a name is letters, digits and _, not starting with a digit", name, arg)
	}
	if len(text) >= 2 && text[0] == '\'' && text[len(text)-1] == '\'' {
		text = strings.ReplaceAll(text[1:len(text)-1], "''", "'")
	}
	return name, TextValue(text), nil
}

// interpret is pgbench's makeVariableValue: the typed value of a text
// variable, or ok false when it is none ("malformed variable").
func interpret(s string) (expr.Value, bool) {
	if s == "" {
		return expr.Value{}, false
	}
	switch {
	case strings.EqualFold(s, "null"):
		return expr.NullValue(), true
	case prefixFold(s, "true") || prefixFold(s, "yes") || strings.EqualFold(s, "on"):
		return expr.BoolValue(true), true
	case prefixFold(s, "false") || prefixFold(s, "no") || strings.EqualFold(s, "off") || strings.EqualFold(s, "of"):
		return expr.BoolValue(false), true
	case looksInt(s):
		n, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\r\f\v"), 10, 64)
		if err != nil {
			return expr.Value{}, false
		}
		return expr.IntValue(n), true
	}
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	if u := strings.TrimLeft(t, "+-"); len(u) > 2 && (u[:2] == "0x" || u[:2] == "0X") && !strings.ContainsAny(u, "pP") {
		t += "p0" // C's strtod reads hexadecimal without an exponent, Go's ParseFloat needs one
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || strings.ContainsRune(s, '_') {
		return expr.Value{}, false
	}
	return expr.DoubleValue(f), true
}

// prefixFold reports whether s is a non-empty prefix of word, ignoring case.
func prefixFold(s, word string) bool {
	return len(s) <= len(word) && strings.EqualFold(s, word[:len(s)])
}

// looksInt is pgbench's is_an_int: optional leading spaces, an optional
// sign, then digits only.
func looksInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// paramOf is the SQL parameter of a typed value: int64, float64 (rounded to
// the 15 significant digits pgbench prints), "true"/"false" or nil for NULL.
func paramOf(v expr.Value, a *valuearena.Arena) any {
	switch v.Kind {
	case expr.Int:
		return a.Int(v.I)
	case expr.Double:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) || v.F == 0 {
			return a.Float(v.F)
		}
		f, err := strconv.ParseFloat(strconv.FormatFloat(v.F, 'g', 15, 64), 64)
		if err != nil {
			return a.Float(v.F)
		}
		return a.Float(f)
	case expr.Bool:
		if v.B {
			return "true"
		}
		return "false"
	}
	return nil
}

// paramOfText is the SQL parameter of a text value: int64 or float64 when it
// reads as one, nil for NULL, else the string.
func paramOfText(s string) any {
	if looksInt(s) {
		if n, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\r\f\v"), 10, 64); err == nil {
			return n
		}
		return s
	}
	if strings.EqualFold(s, "null") {
		return nil
	}
	if v, ok := interpret(s); ok && v.Kind == expr.Double {
		return v.F
	}
	return s
}

// String renders the value as pgbench's getVariable does: text as is,
// integers in decimal, doubles with 15 significant digits, booleans as
// true/false, NULL as NULL.
func (v Value) String() string {
	if v.IsText {
		return v.Text
	}
	switch v.Typed.Kind {
	case expr.Int:
		return strconv.FormatInt(v.Typed.I, 10)
	case expr.Double:
		return strconv.FormatFloat(v.Typed.F, 'g', 15, 64)
	case expr.Bool:
		return strconv.FormatBool(v.Typed.B)
	}
	return "NULL"
}
