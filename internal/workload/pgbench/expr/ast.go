package expr

import (
	"strings"
)

// Expr is a parsed pgbench expression: a *Const, *Var, *Call or *Case.
type Expr interface {
	// Column is the 1-based column of the expression's first character.
	Column() int
	// String renders the expression fully parenthesised, for tests and messages.
	String() string
}

// Const is a literal: an integer, a double, TRUE, FALSE or NULL.
type Const struct {
	Val Value
	Col int
}

// Var is a :name variable reference.
type Var struct {
	Name string
	Col  int
}

// Call is an operator or function applied to its arguments.
type Call struct {
	Func Func
	Args []Expr
	Col  int
}

// When is one WHEN cond THEN result arm of a CASE.
type When struct {
	Cond, Then Expr
}

// Case is CASE WHEN … THEN … [ELSE …] END; a nil Else yields NULL.
type Case struct {
	Whens []When
	Else  Expr
	Col   int
}

// Column implements Expr.
func (c *Const) Column() int { return c.Col }

// Column implements Expr.
func (v *Var) Column() int { return v.Col }

// Column implements Expr.
func (c *Call) Column() int { return c.Col }

// Column implements Expr.
func (c *Case) Column() int { return c.Col }

// String implements Expr.
func (c *Const) String() string {
	switch c.Val.Kind {
	case Null:
		return "NULL"
	case Bool:
		if c.Val.B {
			return "TRUE"
		}
		return "FALSE"
	}
	s := c.Val.String()
	return s[strings.IndexByte(s, ' ')+1:]
}

// String implements Expr.
func (v *Var) String() string { return ":" + v.Name }

// String implements Expr.
func (c *Call) String() string {
	info := funcs[c.Func]
	if info.op != "" {
		if len(c.Args) == 1 {
			return "(" + info.op + " " + c.Args[0].String() + ")"
		}
		return "(" + c.Args[0].String() + " " + info.op + " " + c.Args[1].String() + ")"
	}
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	return info.name + "(" + strings.Join(parts, ", ") + ")"
}

// String implements Expr.
func (c *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range c.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	if c.Else != nil {
		b.WriteString(" ELSE " + c.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

// Func identifies an operator or a built-in function.
type Func uint8

// The operators and functions of pgbench's expression language.
const (
	FuncAdd Func = iota
	FuncSub
	FuncMul
	FuncDiv
	FuncMod // % and mod()
	FuncEq
	FuncNe
	FuncLt
	FuncLe
	FuncAnd
	FuncOr
	FuncNot
	FuncIs
	FuncBitAnd
	FuncBitOr
	FuncBitXor
	FuncLShift
	FuncRShift
	FuncAbs
	FuncDebug
	FuncDouble
	FuncExp
	FuncGreatest
	FuncHashFNV1a
	FuncHashMurmur2
	FuncInt
	FuncLeast
	FuncLn
	FuncPermute
	FuncPi
	FuncPow
	FuncRandom
	FuncRandomExponential
	FuncRandomGaussian
	FuncRandomZipfian
	FuncSqrt
	numFuncs
)

type funcInfo struct {
	name    string // function name as written (functions only)
	op      string // operator spelling (operators only)
	minArgs int
	maxArgs int // -1: any number
}

var funcs = [numFuncs]funcInfo{
	FuncAdd:               {op: "+", minArgs: 2, maxArgs: 2},
	FuncSub:               {op: "-", minArgs: 2, maxArgs: 2},
	FuncMul:               {op: "*", minArgs: 2, maxArgs: 2},
	FuncDiv:               {op: "/", minArgs: 2, maxArgs: 2},
	FuncMod:               {name: "mod", minArgs: 2, maxArgs: 2},
	FuncEq:                {op: "=", minArgs: 2, maxArgs: 2},
	FuncNe:                {op: "<>", minArgs: 2, maxArgs: 2},
	FuncLt:                {op: "<", minArgs: 2, maxArgs: 2},
	FuncLe:                {op: "<=", minArgs: 2, maxArgs: 2},
	FuncAnd:               {op: "AND", minArgs: 2, maxArgs: 2},
	FuncOr:                {op: "OR", minArgs: 2, maxArgs: 2},
	FuncNot:               {op: "NOT", minArgs: 1, maxArgs: 1},
	FuncIs:                {op: "IS", minArgs: 2, maxArgs: 2},
	FuncBitAnd:            {op: "&", minArgs: 2, maxArgs: 2},
	FuncBitOr:             {op: "|", minArgs: 2, maxArgs: 2},
	FuncBitXor:            {op: "#", minArgs: 2, maxArgs: 2},
	FuncLShift:            {op: "<<", minArgs: 2, maxArgs: 2},
	FuncRShift:            {op: ">>", minArgs: 2, maxArgs: 2},
	FuncAbs:               {name: "abs", minArgs: 1, maxArgs: 1},
	FuncDebug:             {name: "debug", minArgs: 1, maxArgs: 1},
	FuncDouble:            {name: "double", minArgs: 1, maxArgs: 1},
	FuncExp:               {name: "exp", minArgs: 1, maxArgs: 1},
	FuncGreatest:          {name: "greatest", minArgs: 1, maxArgs: -1},
	FuncHashFNV1a:         {name: "hash_fnv1a", minArgs: 1, maxArgs: 2},
	FuncHashMurmur2:       {name: "hash_murmur2", minArgs: 1, maxArgs: 2},
	FuncInt:               {name: "int", minArgs: 1, maxArgs: 1},
	FuncLeast:             {name: "least", minArgs: 1, maxArgs: -1},
	FuncLn:                {name: "ln", minArgs: 1, maxArgs: 1},
	FuncPermute:           {name: "permute", minArgs: 2, maxArgs: 3},
	FuncPi:                {name: "pi", minArgs: 0, maxArgs: 0},
	FuncPow:               {name: "pow", minArgs: 2, maxArgs: 2},
	FuncRandom:            {name: "random", minArgs: 2, maxArgs: 2},
	FuncRandomExponential: {name: "random_exponential", minArgs: 3, maxArgs: 3},
	FuncRandomGaussian:    {name: "random_gaussian", minArgs: 3, maxArgs: 3},
	FuncRandomZipfian:     {name: "random_zipfian", minArgs: 3, maxArgs: 3},
	FuncSqrt:              {name: "sqrt", minArgs: 1, maxArgs: 1},
}

// funcByName maps a lower-case function name to its Func; hash is
// hash_murmur2 and power is pow, as in pgbench.
var funcByName = map[string]Func{
	"abs": FuncAbs, "debug": FuncDebug, "double": FuncDouble, "exp": FuncExp,
	"greatest": FuncGreatest, "hash": FuncHashMurmur2, "hash_fnv1a": FuncHashFNV1a,
	"hash_murmur2": FuncHashMurmur2, "int": FuncInt, "least": FuncLeast, "ln": FuncLn,
	"mod": FuncMod, "permute": FuncPermute, "pi": FuncPi, "pow": FuncPow, "power": FuncPow,
	"random": FuncRandom, "random_exponential": FuncRandomExponential,
	"random_gaussian": FuncRandomGaussian, "random_zipfian": FuncRandomZipfian, "sqrt": FuncSqrt,
}

// DefaultSeedVar is the variable a one-argument hash function or a
// two-argument permute reads its seed from, as pgbench does.
const DefaultSeedVar = "default_seed"
