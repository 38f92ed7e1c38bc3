package result

import "strconv"

// PercentileKey renders a percentile the way result maps key it ("95", "99.9").
func PercentileKey(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
