package txn

import (
	"bytes"
	"context"
	"math"
	"slices"

	"github.com/fairbench/fairbench/internal/workload"
)

// maxOrderLines is the most items one order has (clause 2.4.1.3).
const maxOrderLines = 15

// orderLine is one item of a New-Order's input.
type orderLine struct {
	itemID, supplyW, quantity int64
}

// newOrderState holds New-Order's inputs and the values its queries return,
// reused by every call.
type newOrderState struct {
	lines [maxOrderLines]orderLine

	wTax, dTax, discount float64
	nextOID              int64
	cLast, cCredit       string
	price                float64
	iName, iData         []byte
	sQuantity            int64
	sData                []byte
	sDist                string

	warehouseDest, districtDest, customerDest, itemDest, stockDest []any
	// Brand is 'B' when item and stock data both contain "ORIGINAL", else 'G'
	// (clause 2.4.2.2); Total is the order's total amount. Kept for tests.
	brand []byte
	total float64
}

func (s *newOrderState) init() {
	s.warehouseDest = []any{&s.wTax}
	s.districtDest = []any{&s.dTax, &s.nextOID}
	s.customerDest = []any{&s.discount, &s.cLast, &s.cCredit}
	s.itemDest = []any{&s.price, &s.iName, &s.iData}
	s.stockDest = []any{&s.sQuantity, &s.sData, &s.sDist}
	s.brand = make([]byte, 0, maxOrderLines)
}

var original = []byte("ORIGINAL")

// newOrder is the New-Order transaction (clause 2.4): inputs per clause
// 2.4.1, profile per clause 2.4.2. 1% of the orders name an unused item last;
// its lookup finds no row and the transaction rolls back (c.Rollback).
func (w *Worker) newOrder(ctx context.Context, c *workload.Counts) error {
	s := &w.no
	dID := w.rng.Uniform(1, districtsPerWarehouse)
	cID := w.customerID()
	olCnt := int(w.rng.Uniform(5, maxOrderLines))
	rollback := w.rng.Uniform(1, 100) == 1
	allLocal := int64(1)
	lines := s.lines[:olCnt]
	for i := range lines {
		l := &lines[i]
		l.itemID = w.itemID()
		l.supplyW = w.home
		if w.cfg.Warehouses > 1 && w.rng.Uniform(1, 100) == 1 {
			l.supplyW = otherWarehouse(w.rng, w.home, int64(w.cfg.Warehouses))
			allLocal = 0
		}
		l.quantity = w.rng.Uniform(1, 10)
	}
	if rollback {
		lines[olCnt-1].itemID = w.size.items + 1 // unused (clause 2.4.1.4)
	}
	// Locking the stock rows in one order everywhere keeps concurrent
	// New-Orders from deadlocking; the unused item stays last.
	slices.SortFunc(lines, func(a, b orderLine) int {
		if a.itemID != b.itemID {
			return int(a.itemID - b.itemID)
		}
		return int(a.supplyW - b.supplyW)
	})
	entry := any(w.now())
	dArg := any(dID)

	if err := w.startTx(ctx, c, true); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "warehouse", w.st.noWarehouse, s.warehouseDest, w.argv(w.homeArg)); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "district", w.st.noDistrict, s.districtDest, w.argv(w.homeArg, dArg)); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.noDistrictNext, w.argv(w.homeArg, dArg)); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "customer", w.st.noCustomer, s.customerDest, w.argv(w.homeArg, dArg, cID)); err != nil {
		return err
	}
	oID := any(s.nextOID)
	if _, err := w.exec(ctx, c, w.st.noInsertOrder, w.argv(oID, dArg, w.homeArg, cID, entry, int64(olCnt), allLocal)); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.noInsertNewOrder, w.argv(oID, dArg, w.homeArg)); err != nil {
		return err
	}
	s.brand = s.brand[:0]
	sum := 0.0
	for i := range lines {
		l := &lines[i]
		item, supply := any(l.itemID), w.homeArg // boxed once for the four statements
		if l.supplyW != w.home {
			supply = any(l.supplyW)
		}
		found, err := w.row(ctx, c, w.st.noItem, s.itemDest, w.argv(item))
		if err != nil {
			return err
		}
		if !found { // the unused item: the expected rollback of clause 2.4.2.3
			if err := w.endTx(ctx, c, true); err != nil {
				return err
			}
			c.Rollback = true
			return nil
		}
		if _, err := w.mustRow(ctx, c, "stock", w.st.noStock[dID-1], s.stockDest, w.argv(item, supply)); err != nil {
			return err
		}
		quantity := s.sQuantity - l.quantity
		if s.sQuantity < l.quantity+10 {
			quantity += 91
		}
		remote := int64(0)
		if l.supplyW != w.home {
			remote = 1
		}
		if _, err := w.exec(ctx, c, w.st.noStockWrite, w.argv(quantity, l.quantity, remote, item, supply)); err != nil {
			return err
		}
		amount := roundCents(float64(l.quantity) * s.price)
		sum += amount
		brand := byte('G')
		if bytes.Contains(s.iData, original) && bytes.Contains(s.sData, original) {
			brand = 'B'
		}
		s.brand = append(s.brand, brand)
		if _, err := w.exec(ctx, c, w.st.noInsertLine, w.argv(oID, dArg, w.homeArg, int64(i+1), item, supply,
			l.quantity, amount, s.sDist)); err != nil {
			return err
		}
	}
	s.total = sum * (1 - s.discount) * (1 + s.wTax + s.dTax)
	return w.endTx(ctx, c, false)
}

// roundCents rounds an amount to whole cents.
func roundCents(x float64) float64 { return math.Round(x*100) / 100 }
