package runner

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// ParsePercentileList reads a comma-separated list of percentiles as the run
// command's --percentile and a plan's run.percentiles written as one string
// give it ("50,95,99.9"); see ParsePercentiles.
func ParsePercentileList(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("the list is empty: give at least one percentile, e.g. 95")
	}
	return ParsePercentiles(strings.Split(s, ","))
}

// ParsePercentiles reads percentiles, each a number in (0,100]: an empty
// element (as "50,,99" leaves), a value outside (0,100] or one given twice is
// refused, not skipped, so that a result never lacks a percentile its user
// asked for without a word. The percentiles are returned in increasing order.
func ParsePercentiles(elems []string) ([]float64, error) {
	if len(elems) == 0 {
		return nil, fmt.Errorf("the list is empty: give at least one percentile, e.g. 95")
	}
	out := make([]float64, 0, len(elems))
	for i, e := range elems {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("element %d of %d is empty: give percentiles separated by single commas, e.g. 50,95,99.9", i+1, len(elems))
		}
		p, err := strconv.ParseFloat(e, 64)
		if err != nil || math.IsNaN(p) || !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("%q is not a percentile: give numbers in (0,100], e.g. 50,95,99.9", e)
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("percentile %s is given twice", result.PercentileKey(p))
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}
