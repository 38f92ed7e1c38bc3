package txn

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// idCollector gathers the C_IDs of a last-name lookup, in C_FIRST order.
type idCollector struct {
	cur  int64
	list []int64
	dest []any
	add  func() error
}

func (ic *idCollector) init() {
	ic.dest = []any{&ic.cur}
	ic.list = make([]int64, 0, 16)
	ic.add = func() error {
		ic.list = append(ic.list, ic.cur)
		return nil
	}
}

// customerByName returns the C_ID that clause 2.5.2.2 picks among the
// customers of district (wID, dID) named lastName: the ceil(n/2)-th by C_FIRST.
// found is false when no customer has the name.
func (w *Worker) customerByName(ctx context.Context, c *workload.Counts, st driver.Stmt, wID, dID, lastName any) (id int64, found bool, err error) {
	ic := &w.ids
	if ic.add == nil {
		ic.init()
	}
	ic.list = ic.list[:0]
	n, err := w.rows(ctx, c, st, ic.dest, ic.add, w.argv(wID, dID, lastName))
	if err != nil {
		return 0, false, fmt.Errorf("customers named %v: %w", lastName, err)
	}
	if n == 0 {
		return 0, false, nil
	}
	return ic.list[middle(len(ic.list))], true, nil
}
