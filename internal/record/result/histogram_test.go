package result

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// latencies returns a histogram of n pseudo-random latencies in microseconds,
// long-tailed like real ones, from a fixed seed.
func latencies(t *testing.T, seed uint64, n int) *hdrhistogram.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := 0; i < n; i++ {
		v := int64(200 + rng.ExpFloat64()*1500)
		if i%1000 == 0 {
			v *= 400 // a stall
		}
		if err := h.RecordValue(v); err != nil {
			t.Fatalf("record %d: %v", v, err)
		}
	}
	return h
}

// sameCounts fails the test unless a and b hold the same count in every bucket.
func sameCounts(t *testing.T, got, want *hdrhistogram.Histogram) {
	t.Helper()
	if got.TotalCount() != want.TotalCount() || got.Min() != want.Min() || got.Max() != want.Max() {
		t.Fatalf("total/min/max = %d/%d/%d, want %d/%d/%d",
			got.TotalCount(), got.Min(), got.Max(), want.TotalCount(), want.Min(), want.Max())
	}
	if !reflect.DeepEqual(got.Export().Counts, want.Export().Counts) {
		t.Fatal("bucket counts differ")
	}
	for _, q := range []float64{50, 95, 99, 99.9, 100} {
		if g, w := got.ValueAtQuantile(q), want.ValueAtQuantile(q); g != w {
			t.Errorf("p%v = %d, want %d", q, g, w)
		}
	}
}

func TestHistogramRoundTripIsLossless(t *testing.T) {
	orig := latencies(t, 1, 20000)
	enc, err := EncodeHistogram(orig)
	if err != nil {
		t.Fatal(err)
	}
	if enc.Unit != "us" || enc.Encoding != "hdr-v2-deflate-base64" || enc.Data == "" {
		t.Fatalf("encoded header = %q %q (%d bytes)", enc.Unit, enc.Encoding, len(enc.Data))
	}
	dec, err := enc.Decode()
	if err != nil {
		t.Fatal(err)
	}
	sameCounts(t, dec, orig)
	if !dec.Equals(orig) {
		t.Error("decoded histogram is not Equal to the original")
	}
}

func TestDecodedHistogramsMerge(t *testing.T) {
	a, b := latencies(t, 1, 5000), latencies(t, 2, 7000)
	both := hdrhistogram.New(1, 3_600_000_000, 3)
	both.Merge(a)
	both.Merge(b)

	var decoded []*hdrhistogram.Histogram
	for _, h := range []*hdrhistogram.Histogram{a, b} {
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		d, err := enc.Decode()
		if err != nil {
			t.Fatal(err)
		}
		decoded = append(decoded, d)
	}
	merged := decoded[0]
	if dropped := merged.Merge(decoded[1]); dropped != 0 {
		t.Fatalf("merge dropped %d values", dropped)
	}
	if merged.TotalCount() != 12000 {
		t.Fatalf("merged total = %d, want 12000", merged.TotalCount())
	}
	sameCounts(t, merged, both)
}

func TestHistogramDecodeRejects(t *testing.T) {
	good, err := EncodeHistogram(latencies(t, 3, 10))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		h    *Histogram
		want string
	}{
		{"nil", nil, "no histogram"},
		{"other encoding", &Histogram{Unit: "us", Encoding: "hdr-v1", Data: good.Data}, "unknown encoding"},
		{"other unit", &Histogram{Unit: "ns", Encoding: HistogramEncoding, Data: good.Data}, "unknown unit"},
		{"corrupt data", &Histogram{Unit: "us", Encoding: HistogramEncoding, Data: "bm90IGEgaGlzdG9ncmFt"}, "decode histogram"},
		{"not base64", &Histogram{Unit: "us", Encoding: HistogramEncoding, Data: "!!"}, "decode histogram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.h.Decode()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode() error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := EncodeHistogram(nil); err == nil {
		t.Error("EncodeHistogram(nil) succeeded")
	}
}
