// Package txn runs the five TPC-C transactions (TPC-C 5.11, clauses 2.4–2.8)
// on one connection: the input generation of each transaction's clause, the
// weighted mix, and (with Config.Wait) the keying and think times of clause
// 5.2.5. Package tpcc creates and loads the tables and wraps a Worker as a
// workload.Worker.
package txn

import "fmt"

// Kinds names the transactions in Counts.Kind order.
var Kinds = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// The transactions as indexes into Kinds and Config.Mix.
const (
	NewOrder = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
	numKinds
)

// Config is what every worker of a run shares.
type Config struct {
	Warehouses int           // total warehouses in the database
	Mix        [numKinds]int // weights in Kinds order, default {45, 43, 4, 4, 4}
	Wait       bool          // keying and think times (clause 5.2.5)
	// CLoad is the C constant (for C_LAST) used at load time; txn picks C_run per clause 2.1.6.1
	CLoad int64
}

// validate says what is wrong with c.
func (c Config) validate() error {
	if c.Warehouses < 1 {
		return fmt.Errorf("tpcc: %d warehouses: use --warehouses 1 or more", c.Warehouses)
	}
	total := 0
	for i, w := range c.Mix {
		if w < 0 {
			return fmt.Errorf("tpcc: negative weight %d for %s in the transaction mix", w, Kinds[i])
		}
		total += w
	}
	if total == 0 {
		return fmt.Errorf("tpcc: the transaction mix has no weight: give at least one transaction a positive weight (default 45,43,4,4,4)")
	}
	if c.CLoad < 0 || c.CLoad > 255 {
		return fmt.Errorf("tpcc: C_LOAD %d is outside 0..255: reload the database with 'fairbench prepare tpcc'", c.CLoad)
	}
	return nil
}
