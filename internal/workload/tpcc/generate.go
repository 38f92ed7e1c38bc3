package tpcc

import (
	"time"

	"github.com/fairbench/fairbench/internal/base/valuearena"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Population sizes of clause 4.3.3.1.
const (
	items                = 100000
	districtsPerWH       = 10
	customersPerDistrict = 3000
	ordersPerDistrict    = 3000
	firstNewOrder        = 2101 // orders 2101..3000 of each district are undelivered
	stockPerWH           = items
)

// genTable numbers the random streams: the data of warehouse w in table t comes
// from stream (t<<32 | w) of the load's seed only, whatever the thread count.
type genTable uint64

const (
	genItem genTable = iota + 1
	genWarehouse
	genDistrict
	genCustomer
	genHistory
	genOrders // the order plan (o_c_id, o_carrier_id, o_ol_cnt), shared by orders and order_line
	genOrderLine
	genStock
	genMeta // the C constant chosen once per load
)

func (t genTable) stream(w int) uint64 { return uint64(t)<<32 | uint64(uint32(w)) }

// population is what every generator of one load shares.
type population struct {
	rand  *randgen.Factory
	cLoad int64     // C for C_LAST at load time (NURand(255, …))
	now   time.Time // O_ENTRY_D, C_SINCE, H_DATE, OL_DELIVERY_D of delivered orders
}

// chooseCLoad draws the load's C constant for C_LAST in [0, 255].
func chooseCLoad(f *randgen.Factory) int64 {
	return f.Source(genMeta.stream(0)).Uniform(0, 255)
}

// rowGen is a driver.RowSource over generated rows: fill writes row i into vals
// and reports whether there was one. It reports progress in chunks.
type rowGen struct {
	vals       []any
	row        int
	fill       func(vals []any, i int) bool
	progress   *workload.Progress
	unreported int64
}

// progressChunk is how many rows a generator yields between progress updates.
const progressChunk = 4096

func newRowGen(columns int, progress *workload.Progress, fill func(vals []any, i int) bool) *rowGen {
	return &rowGen{vals: make([]any, columns), fill: fill, progress: progress}
}

// Next generates the next row.
func (g *rowGen) Next() bool {
	if !g.fill(g.vals, g.row) {
		g.flush()
		return false
	}
	g.row++
	g.unreported++
	if g.unreported >= progressChunk {
		g.flush()
	}
	return true
}

func (g *rowGen) flush() {
	g.progress.Add(g.unreported)
	g.unreported = 0
}

// Values returns the current row (reused by the next call to Next).
func (g *rowGen) Values() ([]any, error) { return g.vals, nil }

// Err reports no error: generation cannot fail.
func (g *rowGen) Err() error { return nil }

// source returns the generator of table for warehouse w (0 for item).
func (p *population) source(table string, w int, progress *workload.Progress) *rowGen {
	ncols := len(tableDef(table).Columns)
	var fill func([]any, int) bool
	switch table {
	case tItem:
		fill = p.itemRows()
	case tWarehouse:
		fill = p.warehouseRows(w)
	case tDistrict:
		fill = p.districtRows(w)
	case tCustomer:
		fill = p.customerRows(w)
	case tHistory:
		fill = p.historyRows(w)
	case tOrders:
		fill = p.orderRows(w)
	case tNewOrder:
		fill = newOrderRows(w)
	case tOrderLine:
		fill = p.orderLineRows(w)
	case tStock:
		fill = p.stockRows(w)
	default:
		panic("tpcc: no generator for table " + table)
	}
	return newRowGen(ncols, progress, fill)
}

func (p *population) text(t genTable, w int) *textGen {
	return &textGen{rng: p.rand.Source(t.stream(w))}
}

// itemRows yields the 100,000 items.
func (p *population) itemRows() func([]any, int) bool {
	g := p.text(genItem, 0)
	return func(v []any, i int) bool {
		if i >= items {
			return false
		}
		v[0] = g.box.Int(int64(i + 1))
		v[1] = g.box.Int(g.rng.Uniform(1, 10000))
		v[2] = g.aString(14, 24)
		v[3] = g.money(100, 10000)
		v[4] = g.data()
		return true
	}
}

// warehouseRows yields warehouse w's row.
func (p *population) warehouseRows(w int) func([]any, int) bool {
	g := p.text(genWarehouse, w)
	return func(v []any, i int) bool {
		if i >= 1 {
			return false
		}
		v[0] = int64(w)
		v[1] = g.aString(6, 10)
		g.fillAddress(v[2:7])
		v[7] = g.tax()
		v[8] = 300000.0
		return true
	}
}

// fillAddress writes street_1, street_2, city, state and zip.
func (g *textGen) fillAddress(v []any) {
	v[0] = g.aString(10, 20)
	v[1] = g.aString(10, 20)
	v[2] = g.aString(10, 20)
	v[3] = g.state()
	v[4] = g.zip()
}

// districtRows yields warehouse w's 10 districts.
func (p *population) districtRows(w int) func([]any, int) bool {
	g := p.text(genDistrict, w)
	return func(v []any, i int) bool {
		if i >= districtsPerWH {
			return false
		}
		v[0] = int64(i + 1)
		v[1] = int64(w)
		v[2] = g.aString(6, 10)
		g.fillAddress(v[3:8])
		v[8] = g.tax()
		v[9] = 30000.0
		v[10] = int64(ordersPerDistrict + 1)
		return true
	}
}

// customerRows yields warehouse w's 30,000 customers, district by district.
func (p *population) customerRows(w int) func([]any, int) bool {
	g := p.text(genCustomer, w)
	wID, now := any(int64(w)), any(p.now)
	return func(v []any, i int) bool {
		if i >= districtsPerWH*customersPerDistrict {
			return false
		}
		cID := int64(i%customersPerDistrict + 1)
		v[0] = g.box.Int(cID)
		v[1] = int64(i/customersPerDistrict + 1)
		v[2] = wID
		v[3] = g.aString(8, 16)
		v[4] = "OE"
		v[5] = g.lastNameFor(cID, p.cLoad)
		g.fillAddress(v[6:11])
		v[11] = g.nString(16, 16)
		v[12] = now
		if g.rng.Uniform(1, 10) == 1 {
			v[13] = "BC"
		} else {
			v[13] = "GC"
		}
		v[14] = 50000.0
		v[15] = g.box.Float(float64(g.rng.Uniform(0, 5000)) / 10000)
		v[16] = -10.0
		v[17] = 10.0
		v[18] = int64(1)
		v[19] = int64(0)
		v[20] = g.aString(300, 500)
		return true
	}
}

// historyRows yields one history row per customer of warehouse w.
func (p *population) historyRows(w int) func([]any, int) bool {
	g := p.text(genHistory, w)
	wID, now := any(int64(w)), any(p.now)
	return func(v []any, i int) bool {
		if i >= districtsPerWH*customersPerDistrict {
			return false
		}
		d := int64(i/customersPerDistrict + 1)
		v[0] = g.box.Int(int64(i%customersPerDistrict + 1))
		v[1] = d
		v[2] = wID
		v[3] = d
		v[4] = wID
		v[5] = now
		v[6] = 10.0
		v[7] = g.aString(12, 24)
		return true
	}
}

// order is one row of the order plan.
type order struct {
	d, id, customer int64
	carrier         int64 // 0 for undelivered orders (NULL)
	lines           int64
}

// orderPlan yields the 30,000 orders of a warehouse, district by district, from
// the warehouse's genOrders stream: orders and order_line each replay it so they
// agree on O_OL_CNT without holding the warehouse in memory.
type orderPlan struct {
	rng   *randgen.Source
	perm  []int64 // O_C_ID of the current district: a random permutation of 1..3000
	i     int
	order order
}

func (p *population) newOrderPlan(w int) *orderPlan {
	return &orderPlan{rng: p.rand.Source(genOrders.stream(w)), perm: make([]int64, customersPerDistrict)}
}

// next advances to the next order; false after the last one.
func (o *orderPlan) next() bool {
	if o.i >= districtsPerWH*ordersPerDistrict {
		return false
	}
	k := o.i % ordersPerDistrict
	if k == 0 {
		for j := range o.perm {
			o.perm[j] = int64(j + 1)
		}
		for j := len(o.perm) - 1; j > 0; j-- { // Fisher–Yates
			r := o.rng.Uniform(0, int64(j))
			o.perm[j], o.perm[r] = o.perm[r], o.perm[j]
		}
	}
	id := int64(k + 1)
	o.order = order{d: int64(o.i/ordersPerDistrict + 1), id: id, customer: o.perm[k]}
	if id < firstNewOrder {
		o.order.carrier = o.rng.Uniform(1, 10)
	}
	o.order.lines = o.rng.Uniform(5, 15)
	o.i++
	return true
}

// orderRows yields warehouse w's 30,000 orders.
func (p *population) orderRows(w int) func([]any, int) bool {
	plan := p.newOrderPlan(w)
	wID, now := any(int64(w)), any(p.now)
	var box valuearena.Arena
	return func(v []any, _ int) bool {
		if !plan.next() {
			return false
		}
		o := &plan.order
		v[0] = box.Int(o.id)
		v[1] = o.d
		v[2] = wID
		v[3] = box.Int(o.customer)
		v[4] = now
		if o.carrier > 0 {
			v[5] = o.carrier
		} else {
			v[5] = nil
		}
		v[6] = o.lines
		v[7] = int64(1)
		return true
	}
}

// newOrderRows yields the 900 undelivered orders (2101..3000) of each district.
func newOrderRows(w int) func([]any, int) bool {
	const perDistrict = ordersPerDistrict - firstNewOrder + 1
	wID := any(int64(w))
	var box valuearena.Arena
	return func(v []any, i int) bool {
		if i >= districtsPerWH*perDistrict {
			return false
		}
		v[0] = box.Int(int64(firstNewOrder + i%perDistrict))
		v[1] = int64(i/perDistrict + 1)
		v[2] = wID
		return true
	}
}

// orderLineRows yields the 5..15 lines of each of warehouse w's orders.
func (p *population) orderLineRows(w int) func([]any, int) bool {
	plan := p.newOrderPlan(w)
	g := p.text(genOrderLine, w)
	wID, now := any(int64(w)), any(p.now)
	var line int64 // lines of the current order already yielded
	return func(v []any, _ int) bool {
		if line == plan.order.lines { // also true before the first order (0 == 0)
			if !plan.next() {
				return false
			}
			line = 0
		}
		line++
		o := &plan.order
		v[0] = g.box.Int(o.id)
		v[1] = o.d
		v[2] = wID
		v[3] = line
		v[4] = g.box.Int(g.rng.Uniform(1, items))
		v[5] = wID
		if o.id < firstNewOrder {
			v[6] = now
			v[8] = 0.0
		} else {
			v[6] = nil
			v[8] = g.money(1, 999999)
		}
		v[7] = int64(5)
		v[9] = g.aString(24, 24)
		return true
	}
}

// stockRows yields warehouse w's 100,000 stock rows.
func (p *population) stockRows(w int) func([]any, int) bool {
	g := p.text(genStock, w)
	wID := any(int64(w))
	return func(v []any, i int) bool {
		if i >= stockPerWH {
			return false
		}
		v[0] = g.box.Int(int64(i + 1))
		v[1] = wID
		v[2] = g.rng.Uniform(10, 100)
		g.fillDists(v[3 : 3+districtsPerWH])
		v[13] = int64(0)
		v[14] = int64(0)
		v[15] = int64(0)
		v[16] = g.data()
		return true
	}
}

// orderLineCount returns how many order lines warehouse w gets.
func (p *population) orderLineCount(w int) int64 {
	plan := p.newOrderPlan(w)
	var n int64
	for plan.next() {
		n += plan.order.lines
	}
	return n
}

// tableRowCount returns the rows of table for warehouse w (item: all items).
func (p *population) tableRowCount(table string, w int) int64 {
	switch table {
	case tItem:
		return items
	case tWarehouse:
		return 1
	case tDistrict:
		return districtsPerWH
	case tCustomer, tHistory:
		return districtsPerWH * customersPerDistrict
	case tOrders:
		return districtsPerWH * ordersPerDistrict
	case tNewOrder:
		return districtsPerWH * (ordersPerDistrict - firstNewOrder + 1)
	case tOrderLine:
		return p.orderLineCount(w)
	case tStock:
		return stockPerWH
	}
	panic("tpcc: no row count for table " + table)
}

// warehouseRowCount returns the rows of warehouse w in every table but item.
func (p *population) warehouseRowCount(w int) int64 {
	var n int64
	for _, t := range warehouseTables() {
		n += p.tableRowCount(t.name, w)
	}
	return n
}
