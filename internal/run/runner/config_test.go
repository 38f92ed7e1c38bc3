package runner

import "testing"

func TestConfigValidate(t *testing.T) {
	for _, ok := range []Config{
		{Threads: 1, Duration: 1, Percentiles: []float64{95}},
		{Threads: 1, EventsPerThread: 10, Percentiles: []float64{95}}, // pgbench -t: no --time needed
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", ok, err)
		}
	}
	bad := []Config{
		{Threads: 0, Duration: 1},
		{Threads: 1},
		{Threads: 1, Duration: 1, Rate: -1},
		{Threads: 1, Duration: 1, Percentiles: []float64{0}},
		{Threads: 1, Duration: 1, Percentiles: []float64{100.5}},
		{Threads: 1, Events: -1, Duration: 1},
		{Threads: 1, EventsPerThread: -1, Duration: 1},
		{Threads: 1, Events: 5, EventsPerThread: 5}, // two limits: one of them
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted a bad configuration", c)
		}
	}
}
