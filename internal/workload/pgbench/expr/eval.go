package expr

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Random draws the random numbers of random(), random_exponential(),
// random_gaussian() and random_zipfian(). Eval checks the arguments as
// pgbench does (lb <= ub, a range that fits, the parameter's bounds) before
// calling it, so an implementation may assume them valid.
type Random interface {
	// Uniform returns an integer uniformly distributed in [lb, ub].
	Uniform(lb, ub int64) int64
	// Exponential returns an integer in [lb, ub] with exponential
	// distribution of parameter param > 0.
	Exponential(lb, ub int64, param float64) int64
	// Gaussian returns an integer in [lb, ub] with a Gaussian distribution
	// truncated at param >= 2 standard deviations.
	Gaussian(lb, ub int64, param float64) int64
	// Zipfian returns an integer in [lb, ub] with Zipfian distribution of
	// parameter param in [1.001, 1000].
	Zipfian(lb, ub int64, param float64) int64
}

// Env is what an expression is evaluated against.
type Env struct {
	// Lookup returns the value of a variable; ok is false when it is not set.
	Lookup func(name string) (v Value, ok bool)
	// Rand draws the random functions' numbers; it may be nil when the
	// expression calls none of them.
	Rand Random
	// Debug, when set, receives every value passed to debug().
	Debug func(Value)
}

// Vars returns a Lookup over a map of variables.
func Vars(m map[string]Value) func(string) (Value, bool) {
	return func(name string) (Value, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// Bounds of the random functions' parameters, from pgbench.
const (
	MinGaussianParam = 2.0
	MinZipfianParam  = 1.001
	MaxZipfianParam  = 1000.0
)

// ErrEval is matched by every evaluation error through errors.Is.
var ErrEval = errors.New("evaluation error")

type evalError struct{ msg string }

func (e *evalError) Error() string         { return e.msg }
func (e *evalError) Is(target error) bool  { return target == ErrEval }
func errorf(format string, a ...any) error { return &evalError{msg: fmt.Sprintf(format, a...)} }

// Eval evaluates e with pgbench's rules: integer overflow, division or modulo
// by zero, an unknown variable and a value of the wrong type are errors;
// an operator or function (but IS and debug) given NULL yields NULL.
func Eval(e Expr, env Env) (Value, error) {
	switch e := e.(type) {
	case *Const:
		return e.Val, nil
	case *Var:
		if env.Lookup != nil {
			if v, ok := env.Lookup(e.Name); ok {
				return v, nil
			}
		}
		return Value{}, errorf("undefined variable %q", e.Name)
	case *Case:
		for _, w := range e.Whens {
			c, err := Eval(w.Cond, env)
			if err != nil {
				return Value{}, err
			}
			if truth(c) {
				return Eval(w.Then, env)
			}
		}
		if e.Else == nil {
			return NullValue(), nil
		}
		return Eval(e.Else, env)
	case *Call:
		switch e.Func {
		case FuncAnd, FuncOr:
			return evalAndOr(e, env)
		}
		var buf [4]Value // most calls take at most 4 arguments: no allocation
		args := buf[:0]
		hasNull := false
		for _, a := range e.Args {
			v, err := Eval(a, env)
			if err != nil {
				return Value{}, err
			}
			args = append(args, v)
			hasNull = hasNull || v.Kind == Null
		}
		if hasNull && e.Func != FuncIs && e.Func != FuncDebug {
			return NullValue(), nil
		}
		return call(e.Func, args, env)
	}
	return Value{}, errorf("unknown expression node %T", e)
}

// Truth is pgbench's valueTruth, used by CASE, \if and \elif: NULL is
// false, numbers are true when non-zero.
func Truth(v Value) bool { return truth(v) }

func truth(v Value) bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	}
	return false
}

func toBool(v Value) (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, errorf("cannot coerce %s to boolean", v.Kind)
}

// toInt is pgbench's coerceToInt: a double is rounded to the nearest
// integer (half to even) and must fit.
func toInt(v Value) (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		f := math.RoundToEven(v.F)
		if math.IsNaN(f) || f < math.MinInt64 || f >= -math.MinInt64 {
			return 0, errorf("double to int overflow for %f", v.F)
		}
		return int64(f), nil
	}
	return 0, errorf("cannot coerce %s to int", v.Kind)
}

func toDouble(v Value) (float64, error) {
	switch v.Kind {
	case Double:
		return v.F, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, errorf("cannot coerce %s to double", v.Kind)
}

// ints appends args coerced to integers to out (callers pass a buffer of
// their stack, so that evaluating allocates nothing).
func ints(out []int64, args []Value) ([]int64, error) {
	for _, a := range args {
		n, err := toInt(a)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// doubles appends args coerced to doubles to out, as ints does.
func doubles(out []float64, args []Value) ([]float64, error) {
	for _, a := range args {
		f, err := toDouble(a)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func anyDouble(args []Value) bool {
	for _, a := range args {
		if a.Kind == Double {
			return true
		}
	}
	return false
}

// evalAndOr evaluates AND and OR lazily: a NULL left operand yields NULL
// without evaluating the right one; otherwise both must be booleans.
func evalAndOr(e *Call, env Env) (Value, error) {
	l, err := Eval(e.Args[0], env)
	if err != nil {
		return Value{}, err
	}
	if l.Kind == Null {
		return NullValue(), nil
	}
	lb, err := toBool(l)
	if err != nil {
		return Value{}, err
	}
	if e.Func == FuncAnd && !lb {
		return BoolValue(false), nil
	}
	if e.Func == FuncOr && lb {
		return BoolValue(true), nil
	}
	r, err := Eval(e.Args[1], env)
	if err != nil {
		return Value{}, err
	}
	if r.Kind == Null {
		return NullValue(), nil
	}
	rb, err := toBool(r)
	if err != nil {
		return Value{}, err
	}
	return BoolValue(rb), nil
}

func call(fn Func, args []Value, env Env) (Value, error) {
	switch fn {
	case FuncAdd, FuncSub, FuncMul, FuncDiv:
		return arith(fn, args)
	case FuncMod:
		n, err := ints(make([]int64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		switch n[1] {
		case 0:
			return Value{}, errorf("division by zero")
		case -1:
			return IntValue(0), nil
		}
		return IntValue(n[0] % n[1]), nil
	case FuncEq, FuncNe, FuncLt, FuncLe:
		return compare(fn, args)
	case FuncNot:
		b, err := toBool(args[0])
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil
	case FuncIs:
		a, b := args[0], args[1]
		return BoolValue(a.Kind == b.Kind && a.B == b.B), nil
	case FuncBitAnd, FuncBitOr, FuncBitXor, FuncLShift, FuncRShift:
		n, err := ints(make([]int64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		switch fn {
		case FuncBitAnd:
			return IntValue(n[0] & n[1]), nil
		case FuncBitOr:
			return IntValue(n[0] | n[1]), nil
		case FuncBitXor:
			return IntValue(n[0] ^ n[1]), nil
		case FuncLShift:
			// pgbench shifts with C's <<; on x86-64 the count is taken modulo 64.
			return IntValue(n[0] << (uint64(n[1]) & 63)), nil
		}
		return IntValue(n[0] >> (uint64(n[1]) & 63)), nil
	case FuncAbs:
		if args[0].Kind == Int {
			i := args[0].I
			if i < 0 {
				i = -i // like pgbench, abs(-9223372036854775808) wraps to itself
			}
			return IntValue(i), nil
		}
		f, err := toDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(math.Abs(f)), nil
	case FuncDebug:
		if env.Debug != nil {
			env.Debug(args[0])
		}
		return args[0], nil
	case FuncDouble, FuncExp, FuncLn, FuncSqrt:
		f, err := toDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		switch fn {
		case FuncExp:
			f = math.Exp(f)
		case FuncLn:
			f = math.Log(f)
		case FuncSqrt:
			f = math.Sqrt(f)
		}
		return DoubleValue(f), nil
	case FuncInt:
		n, err := toInt(args[0])
		if err != nil {
			return Value{}, err
		}
		return IntValue(n), nil
	case FuncGreatest, FuncLeast:
		return extreme(fn == FuncGreatest, args)
	case FuncHashFNV1a, FuncHashMurmur2:
		n, err := ints(make([]int64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		if fn == FuncHashFNV1a {
			return IntValue(HashFNV1a(n[0], uint64(n[1]))), nil
		}
		return IntValue(HashMurmur2(n[0], uint64(n[1]))), nil
	case FuncPermute:
		n, err := ints(make([]int64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		if n[1] <= 0 {
			return Value{}, errorf("permute size parameter must be greater than zero")
		}
		return IntValue(Permute(n[0], n[1], n[2])), nil
	case FuncPi:
		return DoubleValue(math.Pi), nil
	case FuncPow:
		f, err := doubles(make([]float64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(math.Pow(f[0], f[1])), nil
	case FuncRandom, FuncRandomExponential, FuncRandomGaussian, FuncRandomZipfian:
		return random(fn, args, env)
	}
	return Value{}, errorf("unknown function %d", fn)
}

func arith(fn Func, args []Value) (Value, error) {
	if anyDouble(args) {
		f, err := doubles(make([]float64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		switch fn {
		case FuncAdd:
			return DoubleValue(f[0] + f[1]), nil
		case FuncSub:
			return DoubleValue(f[0] - f[1]), nil
		case FuncMul:
			return DoubleValue(f[0] * f[1]), nil
		}
		return DoubleValue(f[0] / f[1]), nil // pgbench: x/0.0 is ±Infinity or NaN
	}
	n, err := ints(make([]int64, 0, 4), args)
	if err != nil {
		return Value{}, err
	}
	a, b := n[0], n[1]
	switch fn {
	case FuncAdd:
		s := a + b
		if (s > a) != (b > 0) {
			return Value{}, errorf("bigint add out of range")
		}
		return IntValue(s), nil
	case FuncSub:
		d := a - b
		if (d < a) != (b > 0) {
			return Value{}, errorf("bigint sub out of range")
		}
		return IntValue(d), nil
	case FuncMul:
		hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
		neg := (a < 0) != (b < 0)
		if hi != 0 || (!neg && lo > math.MaxInt64) || (neg && lo > 1<<63) {
			return Value{}, errorf("bigint mul out of range")
		}
		if neg {
			return IntValue(int64(-lo)), nil
		}
		return IntValue(int64(lo)), nil
	}
	switch b {
	case 0:
		return Value{}, errorf("division by zero")
	case -1:
		if a == math.MinInt64 {
			return Value{}, errorf("bigint div out of range")
		}
		return IntValue(-a), nil
	}
	return IntValue(a / b), nil
}

// abs64 returns |a| as an unsigned-safe magnitude (MinInt64 stays 1<<63 once converted).
func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func compare(fn Func, args []Value) (Value, error) {
	var c int
	if anyDouble(args) {
		f, err := doubles(make([]float64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		switch fn {
		case FuncEq:
			return BoolValue(f[0] == f[1]), nil
		case FuncNe:
			return BoolValue(f[0] != f[1]), nil
		case FuncLt:
			return BoolValue(f[0] < f[1]), nil
		}
		return BoolValue(f[0] <= f[1]), nil
	}
	n, err := ints(make([]int64, 0, 4), args)
	if err != nil {
		return Value{}, err
	}
	switch {
	case n[0] < n[1]:
		c = -1
	case n[0] > n[1]:
		c = 1
	}
	switch fn {
	case FuncEq:
		return BoolValue(c == 0), nil
	case FuncNe:
		return BoolValue(c != 0), nil
	case FuncLt:
		return BoolValue(c < 0), nil
	}
	return BoolValue(c <= 0), nil
}

func extreme(greatest bool, args []Value) (Value, error) {
	if anyDouble(args) {
		f, err := doubles(make([]float64, 0, 4), args)
		if err != nil {
			return Value{}, err
		}
		r := f[0]
		for _, x := range f[1:] {
			if (greatest && x > r) || (!greatest && x < r) {
				r = x
			}
		}
		return DoubleValue(r), nil
	}
	n, err := ints(make([]int64, 0, 4), args)
	if err != nil {
		return Value{}, err
	}
	r := n[0]
	for _, x := range n[1:] {
		if (greatest && x > r) || (!greatest && x < r) {
			r = x
		}
	}
	return IntValue(r), nil
}

func random(fn Func, args []Value, env Env) (Value, error) {
	n, err := ints(make([]int64, 0, 4), args[:2])
	if err != nil {
		return Value{}, err
	}
	lb, ub := n[0], n[1]
	if lb > ub {
		return Value{}, errorf("empty range given to random")
	}
	if d := ub - lb; d < 0 || d+1 < 0 {
		return Value{}, errorf("random range is too large")
	}
	var param float64
	if fn != FuncRandom {
		if param, err = toDouble(args[2]); err != nil {
			return Value{}, err
		}
		switch fn {
		case FuncRandomExponential:
			if !(param > 0) {
				return Value{}, errorf("exponential parameter must be greater than zero (not %f)", param)
			}
		case FuncRandomGaussian:
			if !(param >= MinGaussianParam) {
				return Value{}, errorf("gaussian parameter must be at least %f (not %f)", MinGaussianParam, param)
			}
		case FuncRandomZipfian:
			if !(param >= MinZipfianParam && param <= MaxZipfianParam) {
				return Value{}, errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", MinZipfianParam, MaxZipfianParam, param)
			}
		}
	}
	if env.Rand == nil {
		return Value{}, errorf("%s needs a random source", funcs[fn].name)
	}
	switch fn {
	case FuncRandomExponential:
		return IntValue(env.Rand.Exponential(lb, ub, param)), nil
	case FuncRandomGaussian:
		return IntValue(env.Rand.Gaussian(lb, ub, param)), nil
	case FuncRandomZipfian:
		return IntValue(env.Rand.Zipfian(lb, ub, param)), nil
	}
	return IntValue(env.Rand.Uniform(lb, ub)), nil
}
