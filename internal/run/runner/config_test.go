package runner

import "testing"

func TestConfigValidate(t *testing.T) {
	ok := Config{Threads: 1, Duration: 1, Percentiles: []float64{95}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Config{
		{Threads: 0, Duration: 1},
		{Threads: 1},
		{Threads: 1, Duration: 1, Rate: -1},
		{Threads: 1, Duration: 1, Percentiles: []float64{0}},
		{Threads: 1, Duration: 1, Percentiles: []float64{100.5}},
		{Threads: 1, Events: -1, Duration: 1},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted a bad configuration", c)
		}
	}
}
