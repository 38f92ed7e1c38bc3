// Package expr parses and evaluates pgbench's \set expression language
// (PostgreSQL 15): integer, double, boolean and NULL values, variables,
// arithmetic, comparison, boolean and bitwise operators, CASE and pgbench's
// built-in functions, with pgbench's typing, overflow and NULL rules.
package expr

import (
	"math"
	"strconv"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of value pgbench expressions produce.
const (
	Null Kind = iota
	Bool
	Int
	Double
)

// String names the kind as pgbench's error messages do.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "int"
	case Double:
		return "double"
	}
	return "unknown"
}

// Value is one pgbench value: NULL, a boolean, a 64-bit integer or a double.
type Value struct {
	Kind Kind
	B    bool
	I    int64
	F    float64
}

// NullValue returns NULL.
func NullValue() Value { return Value{} }

// BoolValue returns the boolean b.
func BoolValue(b bool) Value { return Value{Kind: Bool, B: b} }

// IntValue returns the integer i.
func IntValue(i int64) Value { return Value{Kind: Int, I: i} }

// DoubleValue returns the double f.
func DoubleValue(f float64) Value { return Value{Kind: Double, F: f} }

// String renders the value as pgbench's debug() does ("int 42", "double 1.5",
// "boolean true", "null"), except that doubles use Go's shortest form.
func (v Value) String() string {
	switch v.Kind {
	case Bool:
		return "boolean " + strconv.FormatBool(v.B)
	case Int:
		return "int " + strconv.FormatInt(v.I, 10)
	case Double:
		switch {
		case math.IsInf(v.F, 1):
			return "double Infinity"
		case math.IsInf(v.F, -1):
			return "double -Infinity"
		case math.IsNaN(v.F):
			return "double NaN"
		}
		return "double " + strconv.FormatFloat(v.F, 'g', -1, 64)
	}
	return "null"
}
