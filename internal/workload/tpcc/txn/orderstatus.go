package txn

import (
	"context"
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/workload"
)

// orderStatusState holds Order-Status's values, reused by every call.
type orderStatusState struct {
	cBalance                float64
	cFirst, cMiddle, cLast  string
	oID, oCarrierID         int64
	oEntryD                 time.Time
	olIID, olSupplyW, olQty int64
	olAmount                float64
	olDeliveryD             time.Time
	// the district, customer and order lines of the last call, kept for tests
	dID, cID int64
	lines    int

	customerDest, orderDest, lineDest []any
}

func (s *orderStatusState) init() {
	s.customerDest = []any{&s.cBalance, &s.cFirst, &s.cMiddle, &s.cLast}
	s.orderDest = []any{&s.oID, &s.oEntryD, &s.oCarrierID}
	s.lineDest = []any{&s.olIID, &s.olSupplyW, &s.olQty, &s.olAmount, &s.olDeliveryD}
}

// orderStatus is the Order-Status transaction (clause 2.6), read-only: the
// customer (60% by last name) and the lines of their last order.
func (w *Worker) orderStatus(ctx context.Context, c *workload.Counts) error {
	s := &w.os
	dID := w.rng.Uniform(1, districtsPerWarehouse)
	byName := w.rng.Uniform(1, 100) <= 60
	var lastName any
	var cID int64
	if byName {
		lastName = boxedLastNames()[w.lastNameNumber()]
	} else {
		cID = w.customerID()
	}
	dArg := any(dID)
	if err := w.startTx(ctx, c, false); err != nil {
		return err
	}
	if byName {
		id, found, err := w.customerByName(ctx, c, w.st.osCustomersByName, w.homeArg, dArg, lastName)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("no customer named %v in warehouse %d district %d: is the database loaded?", lastName, w.home, dID)
		}
		cID = id
	}
	s.dID, s.cID = dID, cID
	cIDArg := any(cID)
	if _, err := w.mustRow(ctx, c, "customer", w.st.osCustomer, s.customerDest, w.argv(w.homeArg, dArg, cIDArg)); err != nil {
		return err
	}
	found, err := w.row(ctx, c, w.st.osLastOrder, s.orderDest, w.argv(w.homeArg, dArg, cIDArg))
	if err != nil {
		return err
	}
	s.lines = 0
	if found {
		n, err := w.rows(ctx, c, w.st.osLines, s.lineDest, nil, w.argv(w.homeArg, dArg, s.oID))
		if err != nil {
			return err
		}
		s.lines = n
	}
	return w.endTx(ctx, c, false)
}
