package expr

import "testing"

// FuzzParse checks that Parse never panics and that whatever parses
// evaluates, with every variable set and a random source, without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"1 + 2 * 3", ":x % 7", "CASE WHEN :x > 1 THEN 2.5 ELSE NULL END", "~1 | 8 << 2 >> 1 # 3 & 5",
		"NOT TRUE OR FALSE AND :x IS NOT NULL", "hash(:x) + hash_fnv1a(1, 2)", "permute(:x, 10)",
		"random(1, 10) + random_exponential(1, 10, 2.0) + random_gaussian(1, 10, 3.0) + random_zipfian(1, 10, 1.5)",
		"greatest(1, 2.5, least(3, 4)) / 0", "-9223372036854775808 / -1", "int(1e300)", "pow(2, 0.5) * pi()",
		"abs(-3) + sqrt(4) + ln(1) + exp(0) + double(1) + mod(7, 3) + debug(1)", "1 < 2 IS TRUE = TRUE",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			return
		}
		_ = e.String()
		env := Env{
			Lookup: func(name string) (Value, bool) { return IntValue(int64(len(name))), true },
			Rand:   NewPRNG(7),
		}
		_, _ = Eval(e, env)
	})
}
