package txn

import (
	"strings"
	"testing"
)

// TestStockRowAppliesEveryLine checks that a stock row read once is applied
// to each line that orders the item from that warehouse, in turn, with the
// +91 rule of clause 2.4.2.2.
func TestStockRowAppliesEveryLine(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start      int64
		quantities []int64
		want       []int64
	}{
		{"one line", 50, []int64{5}, []int64{45}},
		{"exactly 10 left", 20, []int64{10}, []int64{10}},
		{"fewer than 10 left", 15, []int64{6}, []int64{100}},
		{"two lines of the item", 20, []int64{5, 10}, []int64{15, 96}},
		{"three lines of the item", 30, []int64{10, 10, 1}, []int64{20, 10, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s newOrderState
			s.init()
			var lines []orderLine
			for _, q := range tc.quantities {
				lines = append(lines, orderLine{itemID: 7, supplyW: 1, quantity: q})
			}
			// the same item from another warehouse and another item stay untouched
			lines = append(lines, orderLine{itemID: 7, supplyW: 2, quantity: 1}, orderLine{itemID: 8, supplyW: 1, quantity: 1})
			s.ordered = lines
			s.rowID, s.supplyW, s.sQuantity, s.sData, s.sDist = 7, 1, tc.start, []byte("xxORIGINALxx"), "dist"
			if err := s.stock(); err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.want {
				l := lines[i]
				if !l.stocked || l.sQuantity != want || !l.sOriginal || l.sDist != "dist" {
					t.Fatalf("line %d: %+v, want stocked with s_quantity %d", i+1, l, want)
				}
			}
			for _, l := range lines[len(tc.want):] {
				if l.stocked {
					t.Fatalf("line %+v got the stock row of item 7 in warehouse 1", l)
				}
			}
		})
	}
}

// TestMultiRowStatementTexts checks the parameter counts of the texts that
// cover many rows, which the callers fill by hand.
func TestMultiRowStatementTexts(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want int
	}{
		{"stock write", stockWriteText(maxOrderLines), stockWriteArgs(maxOrderLines)},
		{"stock read", distInfoByDistrict() + placeholders(maxOrderLines+1), maxOrderLines + 2},
		{"order lines", insertLinesText(7), 7 * lineColumns},
		{"district orders", districtOrders("a", "b", "c"), 2 * districtsPerWarehouse},
		{"district cases", districtCases(), districtsPerWarehouse},
	} {
		if got := strings.Count(tc.text, "?"); got != tc.want {
			t.Errorf("%s: %d placeholders, want %d: %s", tc.name, got, tc.want, tc.text)
		}
	}
}
