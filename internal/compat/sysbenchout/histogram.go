package sysbenchout

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// sysbench's latency histogram (sb_histogram.c as sysbench.c sets it up):
// 1024 slots (HistogramSlots) on a logarithmic scale from 0.001 ms to
// 100000 ms.
const (
	HistogramSlots = 1024
	sbHistMinMs    = 0.001
	sbHistMaxMs    = 100000
)

// Slot is the slot of sysbench's histogram a latency in ms falls in, from 0
// to HistogramSlots-1.
func Slot(ms float64) int {
	mult := (HistogramSlots - 1) / (math.Log(sbHistMaxMs) - math.Log(sbHistMinMs))
	i := math.Floor((math.Log(ms)-math.Log(sbHistMinMs))*mult + 0.5)
	return int(min(max(i, 0), HistogramSlots-1))
}

// SlotMs is the value sysbench prints for slot i.
func SlotMs(i int) float64 {
	mult := (HistogramSlots - 1) / (math.Log(sbHistMaxMs) - math.Log(sbHistMinMs))
	return math.Exp(float64(i)/mult + math.Log(sbHistMinMs))
}

// Histogram prints --histogram: sysbench 1.0's "Latency histogram"
// (value, a bar of up to 40 stars scaled to the fullest slot, count), its
// slots filled from the run's HDR histogram (each HDR bucket's midpoint falls
// in one of sysbench's slots, ~2.3 % wide), followed by sysbench's " " line.
// A result without a histogram says so instead.
func Histogram(w io.Writer, l result.Latency) error {
	if l.Histogram == nil {
		fmt.Fprintln(w, "Latency histogram: none recorded (no events)")
		return nil
	}
	h, err := l.Histogram.Decode()
	if err != nil {
		return fmt.Errorf("--histogram: %w", err)
	}
	var slots [HistogramSlots]int64
	var most int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := Slot(float64(b.From+b.To) / 2 / 1000) // µs to ms
		slots[i] += b.Count
		most = max(most, slots[i])
	}
	fmt.Fprintln(w, "Latency histogram (values are in milliseconds)")
	if most == 0 {
		return nil
	}
	fmt.Fprintln(w, "       value  ------------- distribution ------------- count")
	for i, n := range slots {
		if n == 0 {
			continue
		}
		stars := int(math.Floor(float64(n)*40/float64(most) + 0.5))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", SlotMs(i), strings.Repeat("*", stars), n)
	}
	fmt.Fprintln(w, " ")
	return nil
}
