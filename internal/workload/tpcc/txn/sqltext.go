package txn

import (
	"fmt"
	"strings"
)

// This file builds the SQL of the statements that cover many rows at once.
// Every text is portable: '?' placeholders, no row constructors, and a typed
// expression wherever PostgreSQL must infer a parameter's type.

// placeholders returns n comma-separated placeholders.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// distInfoByDistrict selects S_DIST_xx of the district given as the
// statement's first parameter (clause 2.4.2.2), so one statement serves all
// ten districts.
func distInfoByDistrict() string {
	var b strings.Builder
	b.WriteString("CASE ? + 0")
	for d := 1; d <= districtsPerWarehouse; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%02d", d, d)
	}
	b.WriteString(" END")
	return b.String()
}

// stockWriteText updates the stock rows of n item ids of one warehouse: each
// row's new S_QUANTITY, and the S_YTD, S_ORDER_CNT and S_REMOTE_CNT
// increments, each given per item as (id, value) pairs; then the warehouse
// and the n ids. A repeated id repeats its values: the first WHEN wins.
func stockWriteText(n int) string {
	var b strings.Builder
	b.WriteString("UPDATE stock SET ")
	for i, set := range [...]string{"s_quantity = ", "s_ytd = s_ytd + ", "s_order_cnt = s_order_cnt + ", "s_remote_cnt = s_remote_cnt + "} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(set)
		b.WriteString("CASE s_i_id")
		for range n {
			b.WriteString(" WHEN ? THEN ? + 0")
		}
		b.WriteString(" END")
	}
	b.WriteString(" WHERE s_w_id = ? AND s_i_id IN (")
	b.WriteString(placeholders(n))
	b.WriteString(")")
	return b.String()
}

// stockWriteArgs is the number of parameters of stockWriteText(n).
func stockWriteArgs(n int) int { return 4*2*n + 1 + n }

// lineColumns is the number of parameters per row of insertLinesText.
const lineColumns = 9

// insertLinesText inserts n order lines of one order.
func insertLinesText(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)")
	}
	return b.String()
}

// districtOrders matches one order per district of a warehouse: ten terms
// "(wCol = ? AND dCol = d AND oCol = ?)" joined by OR, the parameters being
// the warehouse and the order id of districts 1..10 in turn; an order id of 0
// (no order has it) matches nothing. Each term names a whole key prefix, so
// that every target looks up each term by its index (SQLite does not carry a
// condition outside the OR into its terms).
func districtOrders(wCol, dCol, oCol string) string {
	terms := make([]string, districtsPerWarehouse)
	for d := range terms {
		terms[d] = fmt.Sprintf("(%s = ? AND %s = %d AND %s = ?)", wCol, dCol, d+1, oCol)
	}
	return strings.Join(terms, " OR ")
}

// districtCases are the WHEN branches of a CASE over a district column, one
// amount parameter per district 1..10.
func districtCases() string {
	var b strings.Builder
	for d := 1; d <= districtsPerWarehouse; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN ? + 0.0", d)
	}
	return b.String()
}
