package txn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// statements are a worker's prepared statements, named by what they do.
type statements struct {
	// New-Order (clause 2.4.2). noItems, noStock and noStockWrite take
	// maxOrderLines item ids (an order's ids, the last one repeated);
	// noInsertLines[n] inserts n order lines, prepared on first use.
	noCustomer, noDistrict, noDistrictNext, noInsertOrder driver.Stmt
	noInsertNewOrder, noItems, noStock, noStockWrite      driver.Stmt
	noInsertLines                                         [maxOrderLines + 1]driver.Stmt

	// Payment (clause 2.5.2)
	payWarehouseYTD, payWarehouse, payDistrictYTD, payDistrict driver.Stmt
	payCustomersByName, payCustomer                            driver.Stmt
	payCustomerUpdate, payCustomerUpdateBC, payHistory         driver.Stmt

	// Order-Status (clause 2.6.2)
	osCustomersByName, osCustomer, osLastOrder, osLines driver.Stmt

	// Delivery (clause 2.7.4)
	// Every statement but dlOldest covers the 10 districts at once.
	dlOldest, dlDeleteNewOrders, dlSetCarriers, dlSetDelivered driver.Stmt
	dlOrderAmounts, dlCustomers                                driver.Stmt

	// Stock-Level (clause 2.8.2)
	slNextOrder, slLowStock driver.Stmt

	// prepared are the fields above that prepare filled, so that close
	// finds them without building the statements' texts again.
	prepared []*driver.Stmt
}

// sharedTexts are the texts that code builds (IN lists, a CASE per district,
// multi-row INSERTs), built once and only read, so that the workers share
// them: 1,000 workers each building and keeping their own held ~15 MB. They
// are built when the first worker prepares, not at program start (every
// fairbench command paid their ~250 allocations).
var sharedTexts = sync.OnceValue(func() *textSet {
	return &textSet{
		items: "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + placeholders(maxOrderLines) + ")",
		// stock takes the dialect's locking clause at its end.
		stock: "SELECT s_i_id, s_quantity, s_data, " + distInfoByDistrict() +
			" FROM stock WHERE s_w_id = ? AND s_i_id IN (" + placeholders(maxOrderLines) + ")",
		stockWrite:      stockWriteText(maxOrderLines),
		deleteNewOrders: "DELETE FROM new_order WHERE " + districtOrders("no_w_id", "no_d_id", "no_o_id"),
		setCarriers:     "UPDATE orders SET o_carrier_id = ? WHERE " + districtOrders("o_w_id", "o_d_id", "o_id"),
		setDelivered:    "UPDATE order_line SET ol_delivery_d = ? WHERE " + districtOrders("ol_w_id", "ol_d_id", "ol_o_id"),
		orderAmounts: "SELECT o_d_id, o_c_id, (SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id)" +
			" FROM orders WHERE " + districtOrders("o_w_id", "o_d_id", "o_id"),
		customers: "UPDATE customer SET c_balance = c_balance + CASE c_d_id" + districtCases() + " END, c_delivery_cnt = c_delivery_cnt + 1" +
			" WHERE " + districtOrders("c_w_id", "c_d_id", "c_id"),
		insertLines: func() (t [maxOrderLines + 1]string) {
			for n := 1; n <= maxOrderLines; n++ {
				t[n] = insertLinesText(n)
			}
			return t
		}(),
	}
})

// textSet is what sharedTexts holds.
type textSet struct {
	items, stock, stockWrite                                            string
	deleteNewOrders, setCarriers, setDelivered, orderAmounts, customers string
	insertLines                                                         [maxOrderLines + 1]string // by line count
}

// stmtText pairs a statement field with its SQL.
type stmtText struct {
	dst  *driver.Stmt
	text string
}

// texts lists every statement with its SQL; forUpdate is the dialect's
// locking clause for rows read and then updated.
func (s *statements) texts(forUpdate string) []stmtText {
	list := []stmtText{
		{&s.noCustomer, "SELECT c_discount, c_last, c_credit, w_tax FROM customer JOIN warehouse ON w_id = c_w_id WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.noDistrict, "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?" + forUpdate},
		{&s.noDistrictNext, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?"},
		{&s.noInsertOrder, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)"},
		{&s.noInsertNewOrder, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"},
		{&s.noItems, sharedTexts().items},
		{&s.noStock, sharedTexts().stock + forUpdate},
		{&s.noStockWrite, sharedTexts().stockWrite},

		{&s.payWarehouseYTD, "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"},
		{&s.payWarehouse, "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?"},
		{&s.payDistrictYTD, "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"},
		{&s.payDistrict, "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?"},
		{&s.payCustomersByName, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"},
		{&s.payCustomer, "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance," +
			" CASE WHEN c_credit = 'BC' THEN c_data ELSE '' END FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" + forUpdate},
		{&s.payCustomerUpdate, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.payCustomerUpdateBC, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.payHistory, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"},

		{&s.osCustomersByName, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"},
		{&s.osCustomer, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.osLastOrder, "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"},
		{&s.osLines, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},

		{&s.dlOldest, "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1" + forUpdate},
		{&s.dlDeleteNewOrders, sharedTexts().deleteNewOrders},
		{&s.dlSetCarriers, sharedTexts().setCarriers},
		{&s.dlSetDelivered, sharedTexts().setDelivered},
		{&s.dlOrderAmounts, sharedTexts().orderAmounts},
		{&s.dlCustomers, sharedTexts().customers},

		{&s.slNextOrder, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"},
		{&s.slLowStock, "SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ? AND s_i_id = ol_i_id" +
			" WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?"},
	}
	return list
}

// prepare prepares every statement on conn but those prepared on first use.
func (s *statements) prepare(ctx context.Context, conn driver.Conn, forUpdate string) error {
	list := s.texts(forUpdate)
	s.prepared = make([]*driver.Stmt, 0, len(list))
	for _, t := range list {
		st, err := prepareText(ctx, conn, t.text)
		if err != nil {
			return err
		}
		*t.dst = st
		s.prepared = append(s.prepared, t.dst)
	}
	return nil
}

// insertLines returns the statement that inserts n order lines, preparing it
// on first use: there is one per line count, and most runs use all eleven.
func (s *statements) insertLines(ctx context.Context, conn driver.Conn, n int) (driver.Stmt, error) {
	if st := s.noInsertLines[n]; st != nil {
		return st, nil
	}
	st, err := prepareText(ctx, conn, sharedTexts().insertLines[n])
	if err != nil {
		return nil, err
	}
	s.noInsertLines[n] = st
	return st, nil
}

// prepareText prepares text on conn, with a hint when the tables are missing.
func prepareText(ctx context.Context, conn driver.Conn, text string) (driver.Stmt, error) {
	st, err := conn.Prepare(ctx, text)
	if err != nil {
		if errors.Is(err, driver.ErrTableMissing) || strings.Contains(strings.ToLower(err.Error()), "exist") {
			return nil, fmt.Errorf("tpcc: prepare %q: %w (run 'fairbench prepare tpcc' first)", text, err)
		}
		return nil, fmt.Errorf("tpcc: prepare %q: %w", text, err)
	}
	return st, nil
}

// close closes every prepared statement.
func (s *statements) close() error {
	var errs []error
	closeStmt := func(dst *driver.Stmt) {
		if *dst == nil {
			return
		}
		if err := (*dst).Close(); err != nil {
			errs = append(errs, err)
		}
		*dst = nil
	}
	for _, dst := range s.prepared {
		closeStmt(dst)
	}
	s.prepared = nil
	for n := range s.noInsertLines {
		closeStmt(&s.noInsertLines[n])
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("tpcc: close statements: %w", err)
	}
	return nil
}
