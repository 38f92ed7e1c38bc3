package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// sysbench's log levels (sb_logger.h) that --verbosity compares with: the
// header, interval lines and summary are NOTICE, warnings WARNING.
const (
	sysbenchWarning = 2
	sysbenchNotice  = 3
)

// sysbench's latency histogram (sb_histogram.c as sysbench.c sets it up):
// 1024 slots on a logarithmic scale from 0.001 ms to 100000 ms.
const (
	sbHistSlots = 1024
	sbHistMinMs = 0.001
	sbHistMaxMs = 100000
)

// sbSlot is the slot of sysbench's histogram a latency in ms falls in.
func sbSlot(ms float64) int {
	mult := (sbHistSlots - 1) / (math.Log(sbHistMaxMs) - math.Log(sbHistMinMs))
	i := math.Floor((math.Log(ms)-math.Log(sbHistMinMs))*mult + 0.5)
	return int(min(max(i, 0), sbHistSlots-1))
}

// sbSlotMs is the value sysbench prints for slot i.
func sbSlotMs(i int) float64 {
	mult := (sbHistSlots - 1) / (math.Log(sbHistMaxMs) - math.Log(sbHistMinMs))
	return math.Exp(float64(i)/mult + math.Log(sbHistMinMs))
}

// histogramBlock prints --histogram: sysbench 1.0's "Latency histogram"
// (value, a bar of up to 40 stars scaled to the fullest slot, count), its
// slots filled from the run's HDR histogram (each HDR bucket's midpoint falls
// in one of sysbench's slots, ~2.3 % wide), followed by sysbench's " " line.
// A result without a histogram says so instead.
func histogramBlock(w io.Writer, l result.Latency) error {
	if l.Histogram == nil {
		fmt.Fprintln(w, "Latency histogram: none recorded (no events)")
		return nil
	}
	h, err := l.Histogram.Decode()
	if err != nil {
		return fmt.Errorf("--histogram: %w", err)
	}
	var slots [sbHistSlots]int64
	var most int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := sbSlot(float64(b.From+b.To) / 2 / 1000) // µs to ms
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
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", sbSlotMs(i), strings.Repeat("*", stars), n)
	}
	fmt.Fprintln(w, " ")
	return nil
}
