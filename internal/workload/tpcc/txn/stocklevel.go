package txn

import (
	"context"

	"github.com/fairbench/fairbench/internal/workload"
)

// stockLevelState holds Stock-Level's values, reused by every call.
type stockLevelState struct {
	nextOID, lowStock int64
	threshold         int64 // of the last call, for tests

	nextDest, countDest []any
}

func (s *stockLevelState) init() {
	s.nextDest = []any{&s.nextOID}
	s.countDest = []any{&s.lowStock}
}

// stockLevel is the Stock-Level transaction (clause 2.8), read-only: how many
// distinct items of the district's last 20 orders have stock below a
// threshold drawn from [10, 20].
func (w *Worker) stockLevel(ctx context.Context, c *workload.Counts) error {
	s := &w.sl
	s.threshold = w.rng.Uniform(10, 20)
	dArg := any(w.slDistrict)
	if err := w.startTx(ctx, c, false); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "district", w.st.slNextOrder, s.nextDest, w.argv(w.homeArg, dArg)); err != nil {
		return err
	}
	if _, err := w.row(ctx, c, w.st.slLowStock, s.countDest,
		w.argv(w.homeArg, w.homeArg, dArg, s.nextOID, s.nextOID-stockLevelOrders, s.threshold)); err != nil {
		return err
	}
	return w.endTx(ctx, c, false)
}
