package txn

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// defaultMix is the spec's minimum mix with New-Order taking the rest (clause 5.2.3).
var defaultMix = [numKinds]int{45, 43, 4, 4, 4}

// only is a mix that runs transaction kind alone.
func only(kind int) [numKinds]int {
	var m [numKinds]int
	m[kind] = 1
	return m
}

// TestTransactions runs every transaction many times on each target and checks
// its effects on the fixture.
func TestTransactions(t *testing.T) {
	targets := testdb.All(t)
	for _, kind := range []string{driver.KindSQLite, driver.KindMySQL, driver.KindPgSQL} {
		t.Run(kind, func(t *testing.T) {
			cfg, ok := targets[kind]
			if !ok {
				t.Skipf("needs %s's server (-short)", kind)
			}
			t.Parallel()
			f := loadFixture(t, cfg)
			t.Run("last name picks the middle customer by c_first", func(t *testing.T) { testLastNameSelection(t, f) })
			t.Run("new_order", func(t *testing.T) { testNewOrder(t, f) })
			t.Run("payment", func(t *testing.T) { testPayment(t, f) })
			t.Run("order_status", func(t *testing.T) { testOrderStatus(t, f) })
			t.Run("delivery", func(t *testing.T) { testDelivery(t, f) })
			t.Run("stock_level", func(t *testing.T) { testStockLevel(t, f) })
			t.Run("mix", func(t *testing.T) { testMixedRun(t, f) })
			t.Run("concurrent workers", func(t *testing.T) { testConcurrentWorkers(t, f) })
		})
	}
}

// event runs one Event and checks that it reported kind.
func event(t *testing.T, w *Worker, kind int) workload.Counts {
	t.Helper()
	var c workload.Counts
	if err := w.Event(context.Background(), &c); err != nil {
		t.Fatalf("%s: %v", Kinds[kind], err)
	}
	if c.Kind != kind {
		t.Fatalf("Counts.Kind = %d, want %d (%s)", c.Kind, kind, Kinds[kind])
	}
	if w.inTrx {
		t.Fatal("transaction left open after Event")
	}
	return c
}

func testLastNameSelection(t *testing.T, f *fixtureDB) {
	w := f.worker(t, 1, only(Payment), 3)
	ctx := context.Background()
	sizes := map[int]bool{}
	for _, name := range []int{0, 1, 5, 36, 37, 50, 99} {
		for _, d := range []int64{1, 7} {
			rows, err := f.conn.QueryStrings(ctx, "SELECT c_id, c_first FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_last = ?", d, LastName(name))
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i][1] < rows[j][1] })
			n := len(rows)
			sizes[n] = true
			want, _ := strconv.ParseInt(rows[(n+1)/2-1][0], 10, 64) // the ceil(n/2)-th, 1-based
			var c workload.Counts
			got, found, err := w.customerByName(ctx, &c, w.st.payCustomersByName, any(int64(1)), any(d), any(LastName(name)))
			if err != nil || !found {
				t.Fatalf("customerByName(%s) = %v, %v", LastName(name), found, err)
			}
			if got != want {
				t.Fatalf("district %d, %d customers named %s: picked c_id %d, want %d (the ceil(n/2)-th by c_first)", d, n, LastName(name), got, want)
			}
			if c.Reads != 1 || c.Writes != 0 {
				t.Fatalf("lookup counted %+v, want one read", c)
			}
		}
	}
	if !sizes[1] || !sizes[6] || !sizes[7] {
		t.Fatalf("fixture gave groups of sizes %v; want 1, 6 and 7", sizes)
	}
	var c workload.Counts
	if _, found, err := w.customerByName(ctx, &c, w.st.payCustomersByName, any(int64(1)), any(int64(1)), any("NOSUCHNAME")); err != nil || found {
		t.Fatalf("unknown name: found %v, %v", found, err)
	}
}

func testNewOrder(t *testing.T, f *fixtureDB) {
	w := f.worker(t, 1, only(NewOrder), 8)
	before := f.int64s(t, "SELECT SUM(d_next_o_id) FROM district WHERE d_w_id = 1")[0]
	stockBefore := f.int64s(t, "SELECT SUM(s_order_cnt), SUM(s_ytd), SUM(s_remote_cnt) FROM stock")
	committed, rolledBack := 0, 0
	for range 150 {
		c := event(t, w, NewOrder)
		if c.Rollback {
			rolledBack++
			if c.Others != 2 {
				t.Fatalf("rolled-back New-Order counted %d others, want BEGIN and ROLLBACK", c.Others)
			}
		} else {
			committed++
		}
		if c.Rollback {
			// customer (with warehouse), district, items; district, orders, new_order
			if c.Reads != 3 || c.Writes != 3 {
				t.Fatalf("rolled-back New-Order counted %+v: want 3 reads and 3 writes", c)
			}
			continue
		}
		// one stock read and one stock write per supplying warehouse
		suppliers := map[int64]bool{}
		var n int64
		for _, l := range w.no.ordered {
			suppliers[l.supplyW] = true
		}
		n = int64(len(suppliers))
		if c.Reads != 3+n || c.Writes != 4+n || c.Others != 2 {
			t.Fatalf("New-Order with %d supplying warehouses counted %+v: want %d reads (customer, district, items, stock), %d writes (district, orders, new_order, stock, order_line), BEGIN and COMMIT",
				n, c, 3+n, 4+n)
		}
	}
	if rolledBack == 0 || committed == 0 {
		t.Fatalf("%d committed, %d rolled back: want both (1%% rollback)", committed, rolledBack)
	}
	after := f.int64s(t, "SELECT SUM(d_next_o_id) FROM district WHERE d_w_id = 1")[0]
	if after-before != int64(committed) {
		t.Fatalf("d_next_o_id advanced by %d, want %d (one per committed order)", after-before, committed)
	}
	counts := f.int64s(t, "SELECT COUNT(*), SUM(o_ol_cnt) FROM orders WHERE o_w_id = 1 AND o_id > ?", fixtureOrders)
	if counts[0] != int64(committed) {
		t.Fatalf("%d new orders rows, want %d: a rolled-back order left a trace or a commit was lost", counts[0], committed)
	}
	if n := f.int64s(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_o_id > ?", fixtureOrders)[0]; n != int64(committed) {
		t.Fatalf("%d new_order rows, want %d", n, committed)
	}
	lines := f.int64s(t, "SELECT COUNT(*), SUM(ol_quantity), SUM(CASE WHEN ol_supply_w_id <> ol_w_id THEN 1 ELSE 0 END) FROM order_line WHERE ol_w_id = 1 AND ol_o_id > ?", fixtureOrders)
	if lines[0] != counts[1] {
		t.Fatalf("%d order_line rows, want sum(o_ol_cnt) = %d", lines[0], counts[1])
	}
	if bad := f.int64s(t, `SELECT COUNT(*) FROM orders o WHERE o.o_w_id = 1 AND o.o_ol_cnt <>
		(SELECT COUNT(*) FROM order_line ol WHERE ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id)`)[0]; bad != 0 {
		t.Fatalf("%d orders whose o_ol_cnt differs from their order_line rows", bad)
	}
	if bad := f.int64s(t, `SELECT COUNT(*) FROM district d WHERE d.d_w_id = 1 AND d.d_next_o_id - 1 <>
		(SELECT MAX(o_id) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)`)[0]; bad != 0 {
		t.Fatalf("%d districts where d_next_o_id - 1 <> max(o_id)", bad)
	}
	if bad := f.int64s(t, `SELECT COUNT(*) FROM orders o WHERE o.o_w_id = 1 AND o.o_id > ? AND o.o_all_local <>
		(CASE WHEN EXISTS (SELECT 1 FROM order_line ol WHERE ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id AND ol.ol_supply_w_id <> ol.ol_w_id) THEN 0 ELSE 1 END)`, fixtureOrders)[0]; bad != 0 {
		t.Fatalf("%d orders with a wrong o_all_local", bad)
	}
	if lines[2] == 0 {
		t.Fatal("no remote order line in 150 orders over 2 warehouses: want about 1%")
	}
	stockAfter := f.int64s(t, "SELECT SUM(s_order_cnt), SUM(s_ytd), SUM(s_remote_cnt) FROM stock")
	if got := stockAfter[0] - stockBefore[0]; got != lines[0] {
		t.Fatalf("s_order_cnt grew by %d, want one per order line (%d)", got, lines[0])
	}
	if got := stockAfter[1] - stockBefore[1]; got != lines[1] {
		t.Fatalf("s_ytd grew by %d, want the lines' quantities (%d)", got, lines[1])
	}
	if got := stockAfter[2] - stockBefore[2]; got != lines[2] {
		t.Fatalf("s_remote_cnt grew by %d, want the remote lines (%d)", got, lines[2])
	}
	if bad := f.int64s(t, "SELECT COUNT(*) FROM stock WHERE s_quantity < 1 OR s_quantity > 100")[0]; bad != 0 {
		t.Fatalf("%d stock rows with s_quantity outside 1..100 (the +91 rule)", bad)
	}
}

func testPayment(t *testing.T, f *fixtureDB) {
	w := f.worker(t, 1, only(Payment), 11)
	wYTD := f.cents(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
	dYTD := f.cents(t, "SELECT SUM(d_ytd) FROM district WHERE d_w_id = 1")
	balance := f.cents(t, "SELECT SUM(c_balance) FROM customer")
	ytdPayment := f.cents(t, "SELECT SUM(c_ytd_payment) FROM customer")
	payments := f.int64s(t, "SELECT SUM(c_payment_cnt) FROM customer")[0]
	const n = 60
	for range n {
		c := event(t, w, Payment)
		if c.Writes != 4 || c.Reads < 3 || c.Others != 2 {
			t.Fatalf("Payment counted %+v: want 4 writes (warehouse, district, customer, history), 3+ reads, BEGIN and COMMIT", c)
		}
	}
	history := f.int64s(t, "SELECT COUNT(*), SUM(CASE WHEN h_c_w_id <> h_w_id THEN 1 ELSE 0 END) FROM history WHERE h_w_id = 1")
	if history[0] != n {
		t.Fatalf("%d history rows, want %d", history[0], n)
	}
	if history[1] == 0 {
		t.Fatal("no payment to a customer of another warehouse in 60: want about 15%")
	}
	paid := f.cents(t, "SELECT SUM(h_amount) FROM history WHERE h_w_id = 1")
	for _, m := range []struct {
		what          string
		before, after int64
		want          int64
	}{
		{"w_ytd", wYTD, f.cents(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"), paid},
		{"sum(d_ytd)", dYTD, f.cents(t, "SELECT SUM(d_ytd) FROM district WHERE d_w_id = 1"), paid},
		{"sum(c_balance)", balance, f.cents(t, "SELECT SUM(c_balance) FROM customer"), -paid},
		{"sum(c_ytd_payment)", ytdPayment, f.cents(t, "SELECT SUM(c_ytd_payment) FROM customer"), paid},
	} {
		if m.after-m.before != m.want {
			t.Errorf("%s moved by %d cents, want %d (sum of h_amount)", m.what, m.after-m.before, m.want)
		}
	}
	if got := f.int64s(t, "SELECT SUM(c_payment_cnt) FROM customer")[0] - payments; got != n {
		t.Errorf("c_payment_cnt grew by %d, want %d", got, n)
	}
	bcPaid := f.int64s(t, `SELECT COUNT(*) FROM customer c WHERE c.c_credit = 'BC' AND EXISTS (SELECT 1 FROM history h
		WHERE h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id)`)[0]
	bcUpdated := f.int64s(t, "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC' AND c_data LIKE '% | %'")[0]
	if bcPaid == 0 || bcUpdated != bcPaid {
		t.Errorf("%d bad-credit customers paid, %d got the new c_data: want equal and > 0", bcPaid, bcUpdated)
	}
	if gc := f.int64s(t, "SELECT COUNT(*) FROM customer WHERE c_credit = 'GC' AND c_data LIKE '% | %'")[0]; gc != 0 {
		t.Errorf("%d good-credit customers had c_data changed", gc)
	}
	rows, err := f.conn.QueryStrings(context.Background(), "SELECT h_data FROM history WHERE h_w_id = 1 AND h_d_id = 3")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r[0] != "wh1    d3" {
			t.Fatalf("h_data = %q, want w_name, 4 spaces, d_name", r[0])
		}
	}
}

func testOrderStatus(t *testing.T, f *fixtureDB) {
	w := f.worker(t, 1, only(OrderStatus), 13)
	balance := f.cents(t, "SELECT SUM(c_balance) FROM customer")
	withLines := 0
	for range 60 {
		c := event(t, w, OrderStatus)
		if c.Writes != 0 || c.Others != 2 || c.Reads < 2 {
			t.Fatalf("Order-Status counted %+v: want reads only besides BEGIN and COMMIT", c)
		}
		if w.os.lines == 0 {
			continue
		}
		withLines++
		want := f.int64s(t, "SELECT MAX(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_c_id = ?", w.os.dID, w.os.cID)[0]
		cnt := f.int64s(t, "SELECT o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", w.os.dID, want)[0]
		if w.os.oID != want || int64(w.os.lines) != cnt {
			t.Fatalf("customer %d/%d: order %d with %d lines, want the last order %d with %d", w.os.dID, w.os.cID, w.os.oID, w.os.lines, want, cnt)
		}
	}
	if withLines == 0 {
		t.Fatal("no Order-Status found an order in 60 runs")
	}
	if after := f.cents(t, "SELECT SUM(c_balance) FROM customer"); after != balance {
		t.Fatal("Order-Status changed the database")
	}
}

func testDelivery(t *testing.T, f *fixtureDB) {
	w := f.worker(t, 1, only(Delivery), 17)
	type district struct {
		oID, cID, amount, balance, deliveries int64
	}
	var before [districtsPerWarehouse + 1]district
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		b := &before[d]
		b.oID = f.int64s(t, "SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = ?", d)[0]
		b.cID = f.int64s(t, "SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", d, b.oID)[0]
		b.amount = f.cents(t, "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ?", d, b.oID)
		b.balance = f.cents(t, "SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", d, b.cID)
		b.deliveries = f.int64s(t, "SELECT c_delivery_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", d, b.cID)[0]
	}
	c := event(t, w, Delivery)
	if w.dl.delivered != districtsPerWarehouse {
		t.Fatalf("delivered %d districts, want 10", w.dl.delivered)
	}
	if c.Writes != 4 || c.Reads != districtsPerWarehouse+1 || c.Others != 2 {
		t.Fatalf("Delivery counted %+v: want 4 writes (new_order, orders, order_line, customer for all districts), 11 reads (each district's oldest order, the amounts), BEGIN and COMMIT", c)
	}
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		b := before[d]
		if n := f.int64s(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = ? AND no_o_id = ?", d, b.oID)[0]; n != 0 {
			t.Fatalf("district %d: oldest new_order %d not deleted", d, b.oID)
		}
		if n := f.int64s(t, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ? AND o_carrier_id BETWEEN 1 AND 10", d, b.oID)[0]; n != 1 {
			t.Fatalf("district %d: order %d has no carrier", d, b.oID)
		}
		if n := f.int64s(t, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ? AND ol_delivery_d IS NULL", d, b.oID)[0]; n != 0 {
			t.Fatalf("district %d: %d lines of order %d without a delivery date", d, n, b.oID)
		}
		bal := f.cents(t, "SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", d, b.cID)
		cnt := f.int64s(t, "SELECT c_delivery_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", d, b.cID)[0]
		if bal-b.balance != b.amount || cnt != b.deliveries+1 {
			t.Fatalf("district %d customer %d: balance moved %d (want %d), deliveries %d (want %d)", d, b.cID, bal-b.balance, b.amount, cnt, b.deliveries+1)
		}
	}
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("new_order never emptied")
		}
		event(t, w, Delivery)
		if w.dl.delivered == 0 {
			break
		}
	}
	if n := f.int64s(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1")[0]; n != 0 {
		t.Fatalf("%d new_order rows left after deliveries found none", n)
	}
	if n := f.int64s(t, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_carrier_id IS NULL")[0]; n != 0 {
		t.Fatalf("%d orders undelivered", n)
	}
}

func testStockLevel(t *testing.T, f *fixtureDB) {
	w := f.worker(t, 1, only(StockLevel), 19)
	low := 0
	for range 30 {
		c := event(t, w, StockLevel)
		if c.Writes != 0 || c.Reads != 2 || c.Others != 2 {
			t.Fatalf("Stock-Level counted %+v: want 2 reads, BEGIN and COMMIT", c)
		}
		s := &w.sl
		if s.threshold < 10 || s.threshold > 20 {
			t.Fatalf("threshold %d outside 10..20", s.threshold)
		}
		want := f.int64s(t, `SELECT COUNT(*) FROM stock WHERE s_w_id = 1 AND s_quantity < ? AND s_i_id IN
			(SELECT ol_i_id FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id >= ? AND ol_o_id < ?)`,
			s.threshold, w.slDistrict, s.nextOID-20, s.nextOID)[0]
		if s.lowStock != want {
			t.Fatalf("low stock %d, want %d", s.lowStock, want)
		}
		if want > 0 {
			low++
		}
	}
	if low == 0 {
		t.Fatal("no Stock-Level found low stock: the check above proved nothing")
	}
}

// testMixedRun runs the default mix on both warehouses and checks the
// conditions of clause 3.3.2 that the transactions keep.
func testMixedRun(t *testing.T, f *fixtureDB) {
	ws := []*Worker{f.worker(t, 1, defaultMix, 23), f.worker(t, 2, defaultMix, 29)}
	var kinds [numKinds]int
	for i := range 200 {
		w := ws[i%2]
		var c workload.Counts
		if err := w.Event(context.Background(), &c); err != nil {
			t.Fatal(err)
		}
		kinds[c.Kind]++
	}
	if kinds[NewOrder] == 0 || kinds[Payment] == 0 {
		t.Fatalf("mix drew %v", kinds)
	}
	checkConditions(t, f)
}

// checkConditions checks the conditions of clause 3.3.2 that the
// transactions keep and the fixture starts with.
func checkConditions(t *testing.T, f *fixtureDB) {
	t.Helper()
	for _, q := range []string{
		// condition 1: W_YTD = sum(D_YTD)
		`SELECT COUNT(*) FROM warehouse w WHERE ABS(w.w_ytd - (SELECT SUM(d_ytd) FROM district d WHERE d.d_w_id = w.w_id)) > 0.005`,
		// condition 2: D_NEXT_O_ID - 1 = max(O_ID)
		`SELECT COUNT(*) FROM district d WHERE d.d_next_o_id - 1 <> (SELECT MAX(o_id) FROM orders o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)`,
		// condition 6: O_OL_CNT = number of order lines
		`SELECT COUNT(*) FROM orders o WHERE o.o_ol_cnt <> (SELECT COUNT(*) FROM order_line ol WHERE ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id)`,
		// condition 5: carrier NULL exactly when a new_order row exists
		`SELECT COUNT(*) FROM orders o WHERE (o.o_carrier_id IS NULL) <> EXISTS (SELECT 1 FROM new_order n WHERE n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id)`,
	} {
		if bad := f.int64s(t, q)[0]; bad != 0 {
			t.Errorf("%d rows violate %s", bad, q)
		}
	}
}

// testConcurrentWorkers runs two workers per warehouse at once; deadlocks and
// lock timeouts that the driver lists as ignorable are rolled back and
// retried, as the runner does, and the data stays consistent.
func testConcurrentWorkers(t *testing.T, f *fixtureDB) {
	const perWorker = 60
	homes := []int{1, 1, 2, 2}
	ws := make([]*Worker, len(homes))
	for i, h := range homes {
		ws[i] = f.worker(t, h, defaultMix, uint64(100+i))
	}
	ignorable := map[string]bool{}
	for _, code := range f.drv.DefaultIgnorable() {
		ignorable[code] = true
	}
	errs := make(chan error, len(ws))
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for done := 0; done < perWorker; {
				var c workload.Counts
				err := w.Event(ctx, &c)
				if err == nil {
					done++
					continue
				}
				if !ignorable[f.drv.Describe(err).Code] {
					errs <- err
					return
				}
				if err := w.Rollback(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkConditions(t, f)
}
