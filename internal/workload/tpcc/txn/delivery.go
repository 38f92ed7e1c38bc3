package txn

import (
	"context"

	"github.com/fairbench/fairbench/internal/workload"
)

// deliveryState holds Delivery's values, reused by every call.
type deliveryState struct {
	noOID, cID int64
	amount     float64
	delivered  int // districts whose oldest order the last call delivered, for tests

	oidDest, customerDest, amountDest []any
}

func (s *deliveryState) init() {
	s.oidDest = []any{&s.noOID}
	s.customerDest = []any{&s.cID}
	s.amountDest = []any{&s.amount}
}

// delivery is the Delivery transaction (clause 2.7), run as one database
// transaction over the 10 districts (clause 2.7.4.1 allows it): each
// district's oldest undelivered order gets the carrier and delivery date, and
// its customer the order's amount. A district without one is skipped.
func (w *Worker) delivery(ctx context.Context, c *workload.Counts) error {
	s := &w.dl
	carrier := any(w.rng.Uniform(1, 10))
	now := any(w.now())
	s.delivered = 0
	if err := w.startTx(ctx, c, true); err != nil {
		return err
	}
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		dArg := any(d)
		found, err := w.row(ctx, c, w.st.dlOldest, s.oidDest, w.argv(w.homeArg, dArg))
		if err != nil {
			return err
		}
		if !found {
			continue // clause 2.7.4.2: skipped, none to deliver
		}
		oID := any(s.noOID)
		n, err := w.exec(ctx, c, w.st.dlDeleteNewOrder, w.argv(w.homeArg, dArg, oID))
		if err != nil {
			return err
		}
		if n == 0 {
			continue // delivered meanwhile by another terminal
		}
		if _, err := w.mustRow(ctx, c, "orders", w.st.dlOrderCustomer, s.customerDest, w.argv(w.homeArg, dArg, oID)); err != nil {
			return err
		}
		if _, err := w.exec(ctx, c, w.st.dlSetCarrier, w.argv(carrier, w.homeArg, dArg, oID)); err != nil {
			return err
		}
		if _, err := w.exec(ctx, c, w.st.dlSetDelivered, w.argv(now, w.homeArg, dArg, oID)); err != nil {
			return err
		}
		if _, err := w.row(ctx, c, w.st.dlSumAmount, s.amountDest, w.argv(w.homeArg, dArg, oID)); err != nil {
			return err
		}
		if _, err := w.exec(ctx, c, w.st.dlCustomer, w.argv(s.amount, w.homeArg, dArg, s.cID)); err != nil {
			return err
		}
		s.delivered++
	}
	return w.endTx(ctx, c, false)
}
