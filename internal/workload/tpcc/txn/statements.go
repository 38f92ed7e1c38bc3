package txn

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// statements are a worker's prepared statements, named by what they do.
type statements struct {
	// New-Order (clause 2.4.2)
	noWarehouse, noDistrict, noDistrictNext, noCustomer   driver.Stmt
	noInsertOrder, noInsertNewOrder, noItem, noStockWrite driver.Stmt
	noInsertLine                                          driver.Stmt
	noStock                                               [districtsPerWarehouse]driver.Stmt // by district: s_dist_01..10

	// Payment (clause 2.5.2)
	payWarehouseYTD, payWarehouse, payDistrictYTD, payDistrict driver.Stmt
	payCustomersByName, payCustomer, payCustomerData           driver.Stmt
	payCustomerUpdate, payCustomerUpdateBC, payHistory         driver.Stmt

	// Order-Status (clause 2.6.2)
	osCustomersByName, osCustomer, osLastOrder, osLines driver.Stmt

	// Delivery (clause 2.7.4)
	dlOldest, dlDeleteNewOrder, dlOrderCustomer, dlSetCarrier driver.Stmt
	dlSetDelivered, dlSumAmount, dlCustomer                   driver.Stmt

	// Stock-Level (clause 2.8.2)
	slNextOrder, slLowStock driver.Stmt
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
		{&s.noWarehouse, "SELECT w_tax FROM warehouse WHERE w_id = ?"},
		{&s.noDistrict, "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?" + forUpdate},
		{&s.noDistrictNext, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?"},
		{&s.noCustomer, "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.noInsertOrder, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)"},
		{&s.noInsertNewOrder, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"},
		{&s.noItem, "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?"},
		{&s.noStockWrite, "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"},
		{&s.noInsertLine, "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)"},

		{&s.payWarehouseYTD, "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"},
		{&s.payWarehouse, "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?"},
		{&s.payDistrictYTD, "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"},
		{&s.payDistrict, "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?"},
		{&s.payCustomersByName, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"},
		{&s.payCustomer, "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" + forUpdate},
		{&s.payCustomerData, "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.payCustomerUpdate, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.payCustomerUpdateBC, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.payHistory, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"},

		{&s.osCustomersByName, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"},
		{&s.osCustomer, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},
		{&s.osLastOrder, "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"},
		{&s.osLines, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},

		{&s.dlOldest, "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1" + forUpdate},
		{&s.dlDeleteNewOrder, "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"},
		{&s.dlOrderCustomer, "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"},
		{&s.dlSetCarrier, "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"},
		{&s.dlSetDelivered, "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},
		{&s.dlSumAmount, "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"},
		{&s.dlCustomer, "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"},

		{&s.slNextOrder, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"},
		{&s.slLowStock, "SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ? AND s_i_id = ol_i_id" +
			" WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?"},
	}
	for d := range s.noStock {
		list = append(list, stmtText{&s.noStock[d], fmt.Sprintf(
			"SELECT s_quantity, s_data, s_dist_%02d FROM stock WHERE s_i_id = ? AND s_w_id = ?%s", d+1, forUpdate)})
	}
	return list
}

// prepare prepares every statement on conn.
func (s *statements) prepare(ctx context.Context, conn driver.Conn, forUpdate string) error {
	for _, t := range s.texts(forUpdate) {
		st, err := conn.Prepare(ctx, t.text)
		if err != nil {
			if errors.Is(err, driver.ErrTableMissing) || strings.Contains(strings.ToLower(err.Error()), "exist") {
				return fmt.Errorf("tpcc: prepare %q: %w (run 'fairbench prepare tpcc' first)", t.text, err)
			}
			return fmt.Errorf("tpcc: prepare %q: %w", t.text, err)
		}
		*t.dst = st
	}
	return nil
}

// close closes every prepared statement.
func (s *statements) close() error {
	var errs []error
	for _, t := range s.texts("") {
		if *t.dst == nil {
			continue
		}
		if err := (*t.dst).Close(); err != nil {
			errs = append(errs, err)
		}
		*t.dst = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("tpcc: close statements: %w", err)
	}
	return nil
}
