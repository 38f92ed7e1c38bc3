package observe

// counters are the deltas of one phase by name.
type counters map[string]int64

// get returns one counter and whether the server has it.
func (c counters) get(name string) (int64, bool) {
	n, ok := c[name]
	return n, ok
}

// sum adds the named counters; it reports false unless the server has all of them.
func (c counters) sum(names ...string) (int64, bool) {
	var total int64
	for _, name := range names {
		n, ok := c[name]
		if !ok {
			return 0, false
		}
		total += n
	}
	return total, true
}

// rate is the sum of the named counters per second, or nil when one is missing
// or the phase has no length.
func (c counters) rate(seconds float64, names ...string) *float64 {
	n, ok := c.sum(names...)
	if !ok || seconds <= 0 {
		return nil
	}
	return ptr(float64(n) / seconds)
}

// firstRate is the rate of the first group of counters the server has all of.
func (c counters) firstRate(seconds float64, groups ...[]string) *float64 {
	for _, g := range groups {
		if r := c.rate(seconds, g...); r != nil {
			return r
		}
	}
	return nil
}

func ptr(f float64) *float64 { return &f }
