package txn

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fairbench/fairbench/internal/workload"
)

// maxOrderLines is the most items one order has (clause 2.4.1.3).
const maxOrderLines = 15

// orderLine is one item of a New-Order's input and what the transaction
// learns about it.
type orderLine struct {
	itemID, supplyW, quantity int64
	idArg                     any // itemID boxed once for the statements

	found     bool    // the item exists
	price     float64 // I_PRICE
	iOriginal bool    // I_DATA contains "ORIGINAL"
	stocked   bool    // its stock row was read
	sQuantity int64   // S_QUANTITY after this line
	sOriginal bool    // S_DATA contains "ORIGINAL"
	sDist     any     // S_DIST_xx of the order's district (a string)
}

// newOrderState holds New-Order's inputs and the values its queries return,
// reused by every call.
type newOrderState struct {
	lines [maxOrderLines]orderLine

	wTax, dTax, discount float64
	nextOID              int64
	cLast, cCredit       string

	// the row being scanned by the item and stock queries
	rowID        int64
	price        float64
	iName, iData []byte
	sQuantity    int64
	sData        []byte
	sDist        string
	supplyW      int64 // the warehouse whose stock is being read
	ordered      []orderLine

	customerDest, districtDest, itemDest, stockDest []any
	onItem, onStock                                 func() error
	args                                            []any // the parameters of the multi-row statements
	// Brand is 'B' when item and stock data both contain "ORIGINAL", else 'G'
	// (clause 2.4.2.2); Total is the order's total amount. Kept for tests.
	brand []byte
	total float64
}

func (s *newOrderState) init() {
	s.customerDest = []any{&s.discount, &s.cLast, &s.cCredit, &s.wTax}
	s.districtDest = []any{&s.dTax, &s.nextOID}
	s.itemDest = []any{&s.rowID, &s.price, &s.iName, &s.iData}
	s.stockDest = []any{&s.rowID, &s.sQuantity, &s.sData, &s.sDist}
	s.onItem = s.item
	s.onStock = s.stock
	s.args = make([]any, 0, max(stockWriteArgs(maxOrderLines), maxOrderLines*lineColumns, maxOrderLines+2))
	s.brand = make([]byte, 0, maxOrderLines)
}

// item records the scanned item row on every line that orders it.
func (s *newOrderState) item() error {
	original := bytes.Contains(s.iData, original)
	for i := range s.ordered {
		if l := &s.ordered[i]; l.itemID == s.rowID {
			l.found, l.price, l.iOriginal = true, s.price, original
		}
	}
	return nil
}

// stock records the scanned stock row of warehouse s.supplyW on every line
// that orders the item from there, applying each line's quantity in turn
// (clause 2.4.2.2: +91 when fewer than 10 would be left).
func (s *newOrderState) stock() error {
	original := bytes.Contains(s.sData, original)
	dist := any(s.sDist) // boxed once for every line of the item
	quantity := s.sQuantity
	for i := range s.ordered {
		l := &s.ordered[i]
		if l.itemID != s.rowID || l.supplyW != s.supplyW {
			continue
		}
		if quantity >= l.quantity+10 {
			quantity -= l.quantity
		} else {
			quantity += 91 - l.quantity
		}
		l.stocked, l.sQuantity, l.sOriginal, l.sDist = true, quantity, original, dist
	}
	return nil
}

var original = []byte("ORIGINAL")

// newOrder is the New-Order transaction (clause 2.4): inputs per clause
// 2.4.1, profile per clause 2.4.2. 1% of the orders name an unused item; the
// item query returns no row for it and the transaction rolls back
// (c.Rollback). The items are read with one statement, the stock of each
// supplying warehouse is locked and read with one and written with one, and
// the order lines are inserted with one.
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
		*l = orderLine{itemID: w.itemID(), supplyW: w.home}
		if w.cfg.Warehouses > 1 && w.rng.Uniform(1, 100) == 1 {
			l.supplyW = otherWarehouse(w.rng, w.home, int64(w.cfg.Warehouses))
			allLocal = 0
		}
		l.quantity = w.rng.Uniform(1, 10)
	}
	if rollback {
		lines[olCnt-1].itemID = w.size.items + 1 // unused (clause 2.4.1.4)
	}
	// Every New-Order locks stock rows in (warehouse, item) order, which
	// keeps concurrent New-Orders from deadlocking on them.
	slices.SortFunc(lines, func(a, b orderLine) int {
		if a.itemID != b.itemID {
			return int(a.itemID - b.itemID)
		}
		return int(a.supplyW - b.supplyW)
	})
	for i := range lines {
		lines[i].idArg = lines[i].itemID
	}
	s.ordered = lines
	entry := any(w.now())
	dArg := any(dID)

	if err := w.startTx(ctx, c, true); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "customer", w.st.noCustomer, s.customerDest, w.argv(w.homeArg, dArg, cID)); err != nil {
		return err
	}
	if _, err := w.mustRow(ctx, c, "district", w.st.noDistrict, s.districtDest, w.argv(w.homeArg, dArg)); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.noDistrictNext, w.argv(w.homeArg, dArg)); err != nil {
		return err
	}
	oID := any(s.nextOID)
	if _, err := w.exec(ctx, c, w.st.noInsertOrder, w.argv(oID, dArg, w.homeArg, cID, entry, int64(olCnt), allLocal)); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, w.st.noInsertNewOrder, w.argv(oID, dArg, w.homeArg)); err != nil {
		return err
	}
	if missing, err := w.readItems(ctx, c); err != nil {
		return err
	} else if missing { // the unused item: the expected rollback of clause 2.4.2.3
		if err := w.endTx(ctx, c, true); err != nil {
			return err
		}
		c.Rollback = true
		return nil
	}
	if err := w.eachSupplier(ctx, c, dArg, w.readStock); err != nil {
		return err
	}
	if err := w.eachSupplier(ctx, c, dArg, w.writeStock); err != nil {
		return err
	}
	if err := w.insertLines(ctx, c, oID, dArg); err != nil {
		return err
	}
	return w.endTx(ctx, c, false)
}

// readItems reads the order's items with one statement and reports whether
// one of them does not exist.
func (w *Worker) readItems(ctx context.Context, c *workload.Counts) (missing bool, err error) {
	s := &w.no
	args := s.args[:0]
	for i := range s.ordered {
		args = append(args, s.ordered[i].idArg)
	}
	args = padArgs(args, maxOrderLines)
	if _, err := w.rows(ctx, c, w.st.noItems, s.itemDest, s.onItem, args); err != nil {
		return false, err
	}
	for i := range s.ordered {
		if !s.ordered[i].found {
			return true, nil
		}
	}
	return false, nil
}

// eachSupplier calls fn for each warehouse that supplies items of the order,
// in ascending order.
func (w *Worker) eachSupplier(ctx context.Context, c *workload.Counts, dArg any, fn func(context.Context, *workload.Counts, any, int64) error) error {
	s := &w.no
	done := int64(0)
	for {
		next := int64(math.MaxInt64)
		for i := range s.ordered {
			if sw := s.ordered[i].supplyW; sw > done && sw < next {
				next = sw
			}
		}
		if next == math.MaxInt64 {
			return nil
		}
		if err := fn(ctx, c, dArg, next); err != nil {
			return err
		}
		done = next
	}
}

// readStock locks and reads, with one statement, the stock rows of the items
// that warehouse supplyW supplies.
func (w *Worker) readStock(ctx context.Context, c *workload.Counts, dArg any, supplyW int64) error {
	s := &w.no
	args := append(s.args[:0], dArg, w.supplyArg(supplyW))
	for i := range s.ordered {
		if l := &s.ordered[i]; l.supplyW == supplyW {
			args = append(args, l.idArg)
		}
	}
	args = padArgs(args, 2+maxOrderLines)
	s.supplyW = supplyW
	if _, err := w.rows(ctx, c, w.st.noStock, s.stockDest, s.onStock, args); err != nil {
		return err
	}
	for i := range s.ordered {
		if l := &s.ordered[i]; l.supplyW == supplyW && !l.stocked {
			return fmt.Errorf("stock row (%d, %d) not found: is the database loaded? run 'fairbench check tpcc'", supplyW, l.itemID)
		}
	}
	return nil
}

// writeStock updates, with one statement, the stock rows of the items that
// warehouse supplyW supplies: the quantity left after the item's last line,
// and S_YTD, S_ORDER_CNT and S_REMOTE_CNT by all its lines.
func (w *Worker) writeStock(ctx context.Context, c *workload.Counts, _ any, supplyW int64) error {
	s := &w.no
	// one entry per distinct item: its lines are adjacent (sorted by item)
	var ids [maxOrderLines]any
	var quantity, ytd, orders [maxOrderLines]int64
	n := 0
	for i := range s.ordered {
		l := &s.ordered[i]
		if l.supplyW != supplyW {
			continue
		}
		if n == 0 || ids[n-1] != l.idArg {
			ids[n], ytd[n], orders[n] = l.idArg, 0, 0
			n++
		}
		quantity[n-1] = l.sQuantity
		ytd[n-1] += l.quantity
		orders[n-1]++
	}
	remote := int64(0)
	if supplyW != w.home {
		remote = 1
	}
	args := s.args[:0]
	for k := range n {
		args = append(args, ids[k], quantity[k])
	}
	args = padPairs(args, n)
	for k := range n {
		args = append(args, ids[k], ytd[k])
	}
	args = padPairs(args, n)
	for k := range n {
		args = append(args, ids[k], orders[k])
	}
	args = padPairs(args, n)
	for k := range n {
		args = append(args, ids[k], orders[k]*remote)
	}
	args = padPairs(args, n)
	args = append(args, w.supplyArg(supplyW))
	for k := range n {
		args = append(args, ids[k])
	}
	args = padArgs(args, stockWriteArgs(maxOrderLines))
	_, err := w.exec(ctx, c, w.st.noStockWrite, args)
	return err
}

// insertLines inserts the order's lines with one statement, noting each
// line's brand and the order's total.
func (w *Worker) insertLines(ctx context.Context, c *workload.Counts, oID, dArg any) error {
	s := &w.no
	st, err := w.st.insertLines(ctx, w.conn, len(s.ordered))
	if err != nil {
		return err
	}
	s.brand = s.brand[:0]
	sum := 0.0
	args := s.args[:0]
	for i := range s.ordered {
		l := &s.ordered[i]
		amount := roundCents(float64(l.quantity) * l.price)
		sum += amount
		brand := byte('G')
		if l.iOriginal && l.sOriginal {
			brand = 'B'
		}
		s.brand = append(s.brand, brand)
		args = append(args, oID, dArg, w.homeArg, int64(i+1), l.idArg, w.supplyArg(l.supplyW), l.quantity, amount, l.sDist)
	}
	s.total = sum * (1 - s.discount) * (1 + s.wTax + s.dTax)
	_, err = w.exec(ctx, c, st, args)
	return err
}

// supplyArg is warehouse id as an argument, the home warehouse boxed once.
func (w *Worker) supplyArg(id int64) any {
	if id == w.home {
		return w.homeArg
	}
	return id
}

// padArgs repeats the last argument until args has n.
func padArgs(args []any, n int) []any {
	last := args[len(args)-1]
	for len(args) < n {
		args = append(args, last)
	}
	return args
}

// padPairs repeats the last (id, value) pair of n pairs until there are
// maxOrderLines pairs.
func padPairs(args []any, n int) []any {
	id, v := args[len(args)-2], args[len(args)-1]
	for ; n < maxOrderLines; n++ {
		args = append(args, id, v)
	}
	return args
}

// roundCents rounds an amount to whole cents.
func roundCents(x float64) float64 { return math.Round(x*100) / 100 }
