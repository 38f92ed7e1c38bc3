package result

import (
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The only histogram unit and encoding this schema version writes and reads.
const (
	HistogramUnit     = "us"
	HistogramEncoding = "hdr-v2-deflate-base64"
)

// EncodeHistogram stores h (values in microseconds) in the standard HdrHistogram V2
// compressed encoding, base64, which every HdrHistogram library reads.
func EncodeHistogram(h *hdrhistogram.Histogram) (*Histogram, error) {
	if h == nil {
		return nil, errors.New("encode histogram: nil histogram")
	}
	data, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	return &Histogram{Unit: HistogramUnit, Encoding: HistogramEncoding, Data: string(data)}, nil
}

// Decode returns the HdrHistogram that h holds, values in microseconds.
func (h *Histogram) Decode() (*hdrhistogram.Histogram, error) {
	if h == nil {
		return nil, errors.New("decode histogram: no histogram in this result")
	}
	if h.Encoding != HistogramEncoding {
		return nil, fmt.Errorf("decode histogram: unknown encoding %q (this fairbench reads %q)", h.Encoding, HistogramEncoding)
	}
	if h.Unit != HistogramUnit {
		return nil, fmt.Errorf("decode histogram: unknown unit %q (this fairbench reads %q)", h.Unit, HistogramUnit)
	}
	hist, err := hdrhistogram.Decode([]byte(h.Data))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return hist, nil
}
