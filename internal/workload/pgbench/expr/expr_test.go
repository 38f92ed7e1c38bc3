package expr

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// testEnv has :x = 5, :d = 2.5, :b = TRUE, :n = NULL and :default_seed = 0,
// the variables pgbenchArgs gives real pgbench.
func testEnv() Env {
	return Env{
		Lookup: Vars(map[string]Value{
			"x": IntValue(5), "d": DoubleValue(2.5), "b": BoolValue(true), "n": NullValue(),
			DefaultSeedVar: IntValue(0),
		}),
		Rand: NewPRNG(1),
	}
}

func eval(t *testing.T, src string) (Value, error) {
	t.Helper()
	e, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return Eval(e, testEnv())
}

// evalCases are expressions and their values; the comment "pgbench" marks
// cases whose value was read from real pgbench 15 (\set a debug(…)), and
// TestAgainstPgbench checks them all against it.
var evalCases = []struct {
	src  string
	want Value
}{
	{"1", IntValue(1)},
	{"  42  ", IntValue(42)},
	{"1.5", DoubleValue(1.5)},
	{".5e1 + 1.", DoubleValue(6)}, // pgbench
	{"1e3", DoubleValue(1000)},
	{"-9223372036854775808", IntValue(math.MinInt64)}, // pgbench
	{"9223372036854775807", IntValue(math.MaxInt64)},
	{"TRUE", BoolValue(true)},
	{"false", BoolValue(false)},
	{"NULL", NullValue()},
	{":x + 1", IntValue(6)}, // pgbench
	{":d * 2", DoubleValue(5)},
	{"1 + 2 * 3 - 4 / 2", IntValue(5)},             // pgbench
	{"(1 + 2) * 3", IntValue(9)},                   // pgbench
	{"- - 3", IntValue(3)},                         // pgbench
	{"-(1.5)", DoubleValue(-1.5)},                  // pgbench
	{"+TRUE", BoolValue(true)},                     // pgbench
	{"-7 / 2", IntValue(-3)},                       // pgbench
	{"-7 % 2", IntValue(-1)},                       // pgbench
	{"7 % -3", IntValue(1)},                        // pgbench
	{"mod(-9223372036854775808, -1)", IntValue(0)}, // pgbench
	{"-9223372036854775808 % -1", IntValue(0)},     // pgbench
	{"9223372036854775807 / -1", IntValue(-math.MaxInt64)},
	{"1.0 % 2", IntValue(1)},     // pgbench: % rounds doubles to int
	{"mod(7.9, 2)", IntValue(0)}, // pgbench
	{"1 + 2.5", DoubleValue(3.5)},
	{"7 / 2.0", DoubleValue(3.5)},
	{"1.0 / 0", DoubleValue(math.Inf(1))}, // pgbench
	{"-1.0 / 0", DoubleValue(math.Inf(-1))},
	{"4611686018427387904 * -2", IntValue(math.MinInt64)},
	{"-3037000499 * 3037000499", IntValue(-9223372030926249001)},
	{"1 = 1.0", BoolValue(true)},   // pgbench
	{"1 <> 2", BoolValue(true)},    // pgbench
	{"1 != 1", BoolValue(false)},   // pgbench
	{"1 >= 1.5", BoolValue(false)}, // pgbench
	{"2 > 1", BoolValue(true)},
	{"2 <= 2", BoolValue(true)},
	{"3 < 2", BoolValue(false)},
	{"NOT 1 = 2", BoolValue(true)},                // pgbench
	{"NOT FALSE AND FALSE", BoolValue(false)},     // pgbench
	{"2 < 3 AND 3 < 4 OR FALSE", BoolValue(true)}, // pgbench
	{"NULL AND TRUE", NullValue()},                // pgbench
	{"FALSE AND NULL", BoolValue(false)},          // pgbench
	{"TRUE AND NULL", NullValue()},                // pgbench
	{"NULL OR TRUE", NullValue()},                 // pgbench
	{"TRUE OR NULL", BoolValue(true)},             // pgbench
	{"FALSE OR NULL", NullValue()},                // pgbench
	{"NULL AND :nosuch", NullValue()},             // pgbench: right side not evaluated
	{"FALSE AND :nosuch", BoolValue(false)},       // pgbench
	{"TRUE OR :nosuch", BoolValue(true)},          // pgbench
	{"NOT NULL", NullValue()},                     // pgbench
	{"NULL + 1", NullValue()},                     // pgbench
	{"~NULL", NullValue()},                        // pgbench
	{"-NULL", NullValue()},                        // pgbench
	{"int(NULL)", NullValue()},                    // pgbench
	{"hash(NULL)", NullValue()},                   // pgbench
	{"debug(NULL)", NullValue()},                  // pgbench
	{"5 IS NULL", BoolValue(false)},               // pgbench
	{"NULL IS NULL", BoolValue(true)},             // pgbench
	{":n IS NOT NULL", BoolValue(false)},
	{"1 IS TRUE", BoolValue(false)},           // pgbench
	{"TRUE IS NOT FALSE", BoolValue(true)},    // pgbench
	{"5 ISNULL", BoolValue(false)},            // pgbench
	{"5 NOTNULL", BoolValue(true)},            // pgbench
	{"2 = 2 IS TRUE", BoolValue(true)},        // pgbench
	{"1 IS NULL IS NULL", BoolValue(false)},   // pgbench
	{"TRUE IS TRUE IS TRUE", BoolValue(true)}, // pgbench
	{"1 # 3", IntValue(2)},                    // pgbench
	{"6 & 3", IntValue(2)},
	{"~1+2", IntValue(-4)},                                      // pgbench: ~ binds like the bitwise operators
	{"~1|8", IntValue(-2)},                                      // pgbench
	{"1 | 2 + 1", IntValue(3)},                                  // pgbench
	{"-2 << 1 + 1", IntValue(-8)},                               // pgbench
	{"-8 >> 1", IntValue(-4)},                                   // pgbench
	{"1 << 64", IntValue(1)},                                    // pgbench (x86-64)
	{"1 << 65", IntValue(2)},                                    // pgbench (x86-64)
	{"CASE WHEN NULL THEN 1 ELSE 2 END", IntValue(2)},           // pgbench
	{"CASE WHEN 0 THEN 1 END", NullValue()},                     // pgbench
	{"CASE WHEN 1 THEN 1 END", IntValue(1)},                     // pgbench
	{"CASE WHEN 0.0 THEN 1 ELSE 3 END", IntValue(3)},            // pgbench
	{"CASE WHEN 1 THEN 1 WHEN :nosuch THEN 2 END", IntValue(1)}, // pgbench
	{"Case When :x > 9 Then 1 when :x > 4 then 2 END", IntValue(2)},
	{"abs(-3)", IntValue(3)},
	{"ABS(-3)", IntValue(3)},                                 // pgbench
	{"abs (1)", IntValue(1)},                                 // pgbench
	{"abs(-2.5)", DoubleValue(2.5)},                          // pgbench
	{"abs(-9223372036854775808)", IntValue(math.MinInt64)},   // pgbench: wraps
	{"double(3)", DoubleValue(3)},                            // pgbench
	{"int(3.9)", IntValue(4)},                                // pgbench: rounds
	{"int(-3.9)", IntValue(-4)},                              // pgbench
	{"int(2.5)", IntValue(2)},                                // pgbench: half to even
	{"int(3.5)", IntValue(4)},                                // pgbench
	{"int(-2.5)", IntValue(-2)},                              // pgbench
	{"int(-9.2233720368547758e18)", IntValue(math.MinInt64)}, // pgbench
	{"exp(0)", DoubleValue(1)},
	{"ln(1)", DoubleValue(0)},
	{"ln(0)", DoubleValue(math.Inf(-1))}, // pgbench
	{"sqrt(16)", DoubleValue(4)},
	{"pow(2, 10)", DoubleValue(1024)}, // pgbench
	{"power(2, 0.5)", DoubleValue(math.Sqrt2)},
	{"pi()", DoubleValue(math.Pi)},
	{"greatest(1, 2.5, 2)", DoubleValue(2.5)}, // pgbench
	{"greatest(3, 9, -1)", IntValue(9)},
	{"least(2)", IntValue(2)}, // pgbench
	{"least(4, -1.5)", DoubleValue(-1.5)},
	// Hashes and permute: values from pgbench 15 with -D default_seed=0.
	{"hash_murmur2(42, 0)", IntValue(-3251795447530343920)},
	{"hash(42)", IntValue(-3251795447530343920)},
	{"hash_fnv1a(42, 0)", IntValue(-55488592825689361)},
	{"hash_murmur2(-7, 123456789)", IntValue(2676269244706528868)},
	{"hash_fnv1a(-7, 123456789)", IntValue(-197487324214030482)},
	{"permute(0, 10, 5)", IntValue(6)},
	{"permute(7, 1000, 12345)", IntValue(260)},
	{"permute(-3, 100, 1)", IntValue(60)},
	{"permute(123456789, 9999999999, -42)", IntValue(4925549631)},
	{"permute(5, 1, 3)", IntValue(0)},
	{"random(1, 1)", IntValue(1)}, // pgbench
	// NewPRNG(1) is not pgbench client 0's stream (see TestPRNGMatchesPgbench).
	{"random(7, 7) + random(-3, -3)", IntValue(4)},
	{"debug(:x)", IntValue(5)},
}

// TestEval checks evalCases.
func TestEval(t *testing.T) {
	for _, tt := range evalCases {
		got, err := eval(t, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if !same(got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func same(a, b Value) bool {
	if a.Kind == Double && b.Kind == Double {
		return a.F == b.F || (math.IsNaN(a.F) && math.IsNaN(b.F)) || math.Abs(a.F-b.F) < 1e-12
	}
	return a == b
}

func TestEvalNaN(t *testing.T) {
	for _, src := range []string{"sqrt(-1)", "ln(-1)", "0.0 / 0"} { // pgbench: NaN
		v, err := eval(t, src)
		if err != nil || v.Kind != Double || !math.IsNaN(v.F) {
			t.Errorf("%s = %v, %v; want double NaN", src, v, err)
		}
	}
}

// TestEvalErrors checks evaluation errors; the messages are pgbench's.
var evalErrorCases = []struct{ src, want string }{
	{"9223372036854775807 + 1", "bigint add out of range"},
	{"-9223372036854775807 - 2", "bigint sub out of range"},
	{"4611686018427387904 * 2", "bigint mul out of range"},
	{"-9223372036854775808 * -1", "bigint mul out of range"},
	{"-9223372036854775808 / -1", "bigint div out of range"},
	{"-(-9223372036854775808)", "bigint sub out of range"},
	{"7 / 0", "division by zero"},
	{"7 % 0", "division by zero"},
	{"mod(1, 0)", "division by zero"},
	{":nosuch", `undefined variable "nosuch"`},
	{":_1 + 1", `undefined variable "_1"`},
	{"NOT 1", "cannot coerce int to boolean"},
	{"1 AND 2", "cannot coerce int to boolean"},
	{"TRUE AND 1.5", "cannot coerce double to boolean"},
	{"FALSE OR 1", "cannot coerce int to boolean"},
	{"TRUE = TRUE", "cannot coerce boolean to int"},
	{"TRUE + 1", "cannot coerce boolean to int"},
	{"NOT TRUE = FALSE", "cannot coerce boolean to int"},
	{"2.0 = TRUE", "cannot coerce boolean to double"},
	{"1.5 + TRUE", "cannot coerce boolean to double"},
	{"double(TRUE)", "cannot coerce boolean to double"},
	{"int(TRUE)", "cannot coerce boolean to int"},
	{"greatest(TRUE)", "cannot coerce boolean to int"},
	{"least(3, TRUE)", "cannot coerce boolean to int"},
	{"int(1e19)", "double to int overflow for 10000000000000000000.000000"},
	{"int(9.2233720368547758e18)", "double to int overflow"},
	{"int(0.0/0)", "double to int overflow"},
	{"random(5, 4)", "empty range given to random"},
	{"random(-9223372036854775808, 9223372036854775807)", "random range is too large"},
	{"random_gaussian(1, 10, 1.9)", "gaussian parameter must be at least 2.000000 (not 1.900000)"},
	{"random_exponential(1, 10, 0)", "exponential parameter must be greater than zero (not 0.000000)"},
	{"random_zipfian(1, 10, 1.0)", "zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
	{"random_zipfian(1, 10, 1001)", "zipfian parameter must be in range [1.001, 1000] (not 1001.000000)"},
	{"permute(1, 0)", "permute size parameter must be greater than zero"},
	{"permute(1, -5, 2)", "permute size parameter must be greater than zero"},
}

func TestEvalErrors(t *testing.T) {
	for _, tt := range evalErrorCases {
		v, err := eval(t, tt.src)
		if err == nil {
			t.Errorf("%s = %v, want error %q", tt.src, v, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrEval) {
			t.Errorf("%s: error %q, want %q (ErrEval)", tt.src, err, tt.want)
		}
	}
}

func TestEvalNoRandomSource(t *testing.T) {
	e, err := Parse("random(1, 10)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Eval(e, Env{}); err == nil || !strings.Contains(err.Error(), "random source") {
		t.Fatalf("Eval without Rand: %v, want a random source error", err)
	}
}

func TestDebugHook(t *testing.T) {
	e, err := Parse("debug(1 + 1) * 3")
	if err != nil {
		t.Fatal(err)
	}
	var seen []Value
	env := Env{Debug: func(v Value) { seen = append(seen, v) }}
	v, err := Eval(e, env)
	if err != nil || v != IntValue(6) || len(seen) != 1 || seen[0] != IntValue(2) {
		t.Fatalf("got %v, %v, debug saw %v", v, err, seen)
	}
	if seen[0].String() != "int 2" {
		t.Errorf("String() = %q, want pgbench's %q", seen[0].String(), "int 2")
	}
}

// TestParseShape checks precedence and associativity through the fully
// parenthesised rendering of the tree.
func TestParseShape(t *testing.T) {
	tests := []struct{ src, want string }{
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"1 - 2 - 3", "((1 - 2) - 3)"},
		{"abs(1) + 1", "(abs(1) + 1)"},
		{"-2 * 3", "((0 - 2) * 3)"},
		{"~1 + 2", "(-1 # (1 + 2))"},
		{"~1 | 2", "((-1 # 1) | 2)"},
		{"1 | 2 & 3", "((1 | 2) & 3)"},
		{"1 < 2 + 3", "(1 < (2 + 3))"},
		{"3 > 2", "(2 < 3)"},
		{"3 >= 2", "(2 <= 3)"},
		{"NOT TRUE AND FALSE", "((NOT TRUE) AND FALSE)"},
		{"NOT 1 = 2", "(NOT (1 = 2))"},
		{"TRUE OR FALSE AND FALSE", "(TRUE OR (FALSE AND FALSE))"},
		{"1 = 2 IS TRUE", "((1 = 2) IS TRUE)"},
		{":x IS NOT NULL", "(NOT (:x IS NULL))"},
		{":x NOTNULL", "(NOT (:x IS NULL))"},
		{"1 + 2 ISNULL", "((1 + 2) IS NULL)"},
		{"1 < 2 IS TRUE = TRUE", "(((1 < 2) IS TRUE) = TRUE)"},
		{"hash(1)", "hash_murmur2(1, :default_seed)"},
		{"hash_fnv1a(1)", "hash_fnv1a(1, :default_seed)"},
		{"permute(1, 2)", "permute(1, 2, :default_seed)"},
		{"permute(1, 2, 3)", "permute(1, 2, 3)"},
		{"POWER(2, 3)", "pow(2, 3)"},
		{"CASE WHEN :x THEN 1 WHEN 2 THEN 3 ELSE 4 END", "CASE WHEN :x THEN 1 WHEN 2 THEN 3 ELSE 4 END"},
		{"- 9223372036854775808", "-9223372036854775808"},
		{"greatest(1, 2, 3, 4)", "greatest(1, 2, 3, 4)"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestParseErrors checks syntax errors: pgbench rejects each of these, and
// the error names the column and what was expected or wrong.
var parseErrorCases = []struct {
	src  string
	col  int
	want string
}{
	{"1 +", 4, "expected an operand"},
	{"(1", 3, `expected ")"`},
	{"1 < 2 < 3", 7, "do not associate"},
	{"1 = 1 = 1", 7, "do not associate"},
	{"1 AND", 6, "expected an operand"},
	{"CASE END", 6, "expected WHEN after CASE"},
	{"CASE WHEN 1 THEN 2 ELSE 3", 26, "expected WHEN, ELSE or END"},
	{"CASE WHEN 1 2 END", 13, "expected THEN"},
	{"1 @ 2", 3, `unexpected character '@'`},
	{": x", 1, "expected a variable name"},
	{"nosuch(1)", 1, `unexpected function name "nosuch"`},
	{"abs(1, 2)", 1, "unexpected number of arguments (abs)"},
	{"pi(1)", 1, "unexpected number of arguments (pi)"},
	{"greatest()", 1, "at least 1 argument"},
	{"random(1)", 1, "unexpected number of arguments (random)"},
	{"hash(1, 2, 3)", 1, "unexpected number of arguments (hash)"},
	{"permute(1)", 1, "unexpected number of arguments (permute)"},
	{"abs 1", 5, `expected "(" after function name abs`},
	{"abs(1 2)", 7, `expected "," or ")"`},
	{"1e400", 1, "double constant overflow (1e400)"},
	{"99999999999999999999", 1, "bigint constant overflow"},
	{"9223372036854775808", 1, "out of bigint range unless negated"},
	{"1 2", 3, "expected an operator or the end"},
	{":x IS 5", 7, "expected NULL, TRUE or FALSE after IS"},
	{"", 1, "expected an operand"},
	{"1 + )", 5, "expected an operand"},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorCases {
		e, err := Parse(tt.src)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tt.src, e)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q): %v is not a *SyntaxError", tt.src, err)
			continue
		}
		if se.Col != tt.col || !strings.Contains(se.Msg, tt.want) {
			t.Errorf("Parse(%q): column %d %q, want column %d containing %q", tt.src, se.Col, se.Msg, tt.col, tt.want)
		}
		if !strings.Contains(err.Error(), "column ") {
			t.Errorf("Parse(%q): %q does not name the column", tt.src, err)
		}
	}
}

func TestParseDepthLimit(t *testing.T) {
	src := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	if _, err := Parse(src); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("Parse of 5000 nested parentheses: %v, want a depth error", err)
	}
	if _, err := Parse(strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100)); err != nil {
		t.Fatalf("Parse of 100 nested parentheses: %v", err)
	}
}
