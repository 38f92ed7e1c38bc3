package tpcc

import (
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload/tpcc/txn"
)

// specTpmCPerWarehouse is the most tpmC one warehouse can give with the keying
// and think times of clause 5.2.5 (the spec's ceiling, 12.86 per warehouse).
const specTpmCPerWarehouse = 12.86

// Figures returns tpmC, tpmTotal and efficiency for the measured phase p.
//
// tpmC counts every New-Order event, the 1% that end in the expected rollback
// included: the specification has the SUT execute those transactions in full
// (they are part of the required mix and of the terminal's response-time
// figures), and go-tpc counts them the same way, so the figures compare. The
// result file lists the rollbacks per kind, so a committed-only rate can be
// derived from it.
func (w *tpcc) Figures(p *result.Phase) []result.Figure {
	var newOrders, total int64
	for _, k := range p.Kinds {
		total += k.Events
		if k.Name == txn.Kinds[0] {
			newOrders = k.Events
		}
	}
	var tpmC, tpmTotal float64
	if p.Seconds > 0 {
		tpmC = float64(newOrders) * 60 / p.Seconds
		tpmTotal = float64(total) * 60 / p.Seconds
	}
	warehouses := w.opts.Warehouses
	w.runMu.Lock()
	if w.run != nil {
		warehouses = w.run.warehouses
	}
	w.runMu.Unlock()
	efficiency := 0.0
	if warehouses > 0 {
		efficiency = tpmC / (specTpmCPerWarehouse * float64(warehouses)) * 100
	}
	return []result.Figure{
		{Name: "tpmC", Value: tpmC, Unit: "transactions/min"},
		{Name: "tpmTotal", Value: tpmTotal, Unit: "transactions/min"},
		{Name: "efficiency", Value: efficiency, Unit: "%"},
	}
}
