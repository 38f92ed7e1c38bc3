package txn

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/workload"
)

// deliveryState holds Delivery's values, reused by every call.
type deliveryState struct {
	noOID     int64
	oIDs      [districtsPerWarehouse]any // each district's order to deliver, 0 for none
	cIDs      [districtsPerWarehouse]any // its customer
	amounts   [districtsPerWarehouse]any // its amount, sum(OL_AMOUNT)
	delivered int                        // districts whose oldest order the last call delivered, for tests

	rowD, rowC int64
	rowAmount  float64
	orders     int // order rows the amounts query returned

	oidDest, amountDest []any
	onAmount            func() error
	args                []any
}

func (s *deliveryState) init() {
	s.oidDest = []any{&s.noOID}
	s.amountDest = []any{&s.rowD, &s.rowC, &s.rowAmount}
	s.onAmount = s.amount
	s.args = make([]any, 0, 3*districtsPerWarehouse)
}

// amount records the scanned order's customer and amount.
func (s *deliveryState) amount() error {
	if s.rowD < 1 || s.rowD > districtsPerWarehouse {
		return fmt.Errorf("order of district %d returned", s.rowD)
	}
	s.cIDs[s.rowD-1], s.amounts[s.rowD-1] = s.rowC, s.rowAmount
	s.orders++
	return nil
}

// delivery is the Delivery transaction (clause 2.7), run as one database
// transaction over the 10 districts (clause 2.7.4.1 allows it): each
// district's oldest undelivered order gets the carrier and delivery date, and
// its customer the order's amount. A district without one is skipped. The
// oldest orders are locked one district at a time; then each table is
// changed for all districts with one statement.
func (w *Worker) delivery(ctx context.Context, c *workload.Counts) error {
	s := &w.dl
	carrier := any(w.rng.Uniform(1, 10))
	now := any(w.now())
	s.delivered = 0
	if err := w.startTx(ctx, c, true); err != nil {
		return err
	}
	for d := range districtsPerWarehouse {
		s.oIDs[d], s.cIDs[d], s.amounts[d] = int64(0), int64(0), 0.0
		found, err := w.row(ctx, c, w.st.dlOldest, s.oidDest, w.argv(w.homeArg, int64(d+1)))
		if err != nil {
			return err
		}
		if found {
			s.oIDs[d] = s.noOID
			s.delivered++
		}
	}
	if s.delivered == 0 {
		return w.endTx(ctx, c, false) // clause 2.7.4.2: none to deliver
	}
	n, err := w.exec(ctx, c, w.st.dlDeleteNewOrders, w.orderArgs(nil))
	if err != nil {
		return err
	}
	if n != int64(s.delivered) {
		return fmt.Errorf("deleted %d of the %d locked new_order rows", n, s.delivered)
	}
	if _, err := w.exec(ctx, c, w.st.dlSetCarriers, w.orderArgs(carrier)); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.dlSetDelivered, w.orderArgs(now)); err != nil {
		return err
	}
	s.orders = 0
	if _, err := w.rows(ctx, c, w.st.dlOrderAmounts, s.amountDest, s.onAmount, w.orderArgs(nil)); err != nil {
		return err
	}
	if s.orders != s.delivered {
		return fmt.Errorf("found %d of the %d orders to deliver with their lines: is the database loaded? run 'fairbench check tpcc'", s.orders, s.delivered)
	}
	args := append(s.args[:0], s.amounts[:]...)
	for d := range districtsPerWarehouse {
		args = append(args, w.homeArg, s.cIDs[d])
	}
	if _, err := w.exec(ctx, c, w.st.dlCustomers, args); err != nil {
		return err
	}
	return w.endTx(ctx, c, false)
}

// orderArgs returns the parameters of a statement that matches each
// district's order to deliver (districtOrders): lead, unless nil, then the
// home warehouse and the order id of every district.
func (w *Worker) orderArgs(lead any) []any {
	s := &w.dl
	args := s.args[:0]
	if lead != nil {
		args = append(args, lead)
	}
	for d := range districtsPerWarehouse {
		args = append(args, w.homeArg, s.oIDs[d])
	}
	return args
}
