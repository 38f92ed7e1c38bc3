package tpcc

import (
	"fmt"
	"strconv"
)

// condition is one consistency condition of clause 3.3.2 as a single set-based
// query. The query returns the offending rows (ordered, at most maxExamples)
// and, as its last column, COUNT(*) OVER () — the number of all offending rows.
type condition struct {
	id            int
	name          string
	afterLoadOnly bool // holds only right after loading (condition 11)
	query         string
	// example names one offending row from its columns (the count left out).
	example func(r []string) string
}

// maxExamples is how many offending rows a condition reports by name.
const maxExamples = 10

// tolerance is the largest difference between two amounts of money that still
// counts as equal: SQLite keeps NUMERIC sums as binary floating point.
const tolerance = "0.005"

// Aggregates shared by several conditions.
const (
	deliveredByCustomer = "SELECT o.o_w_id AS cw, o.o_d_id AS cd, o.o_c_id AS cc, SUM(l.ol_amount) AS s" +
		" FROM orders o JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id" +
		" WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id"
	paidByCustomer = "SELECT h_c_w_id AS cw, h_c_d_id AS cd, h_c_id AS cc, SUM(h_amount) AS s" +
		" FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id"
	limitExamples = " LIMIT 10"
)

// conditions returns the 12 conditions in order.
func conditions() []condition {
	return []condition{
		{
			id: 1, name: "W_YTD = sum(D_YTD)",
			query: "SELECT w.w_id, w.w_ytd, d.s, COUNT(*) OVER () FROM warehouse w" +
				" LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id" +
				" WHERE d.s IS NULL OR ABS(w.w_ytd - d.s) > " + tolerance + " ORDER BY w.w_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s: w_ytd %s, sum(d_ytd) %s", r[0], money(r[1]), money(r[2]))
			},
		},
		{
			id: 2, name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
			query: "SELECT d.d_w_id, d.d_id, d.d_next_o_id, o.m, n.m, COUNT(*) OVER () FROM district d" +
				" LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o" +
				" ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id" +
				" LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n" +
				" ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id" +
				// A district without new orders is exempt from the NEW-ORDER part (clause 3.3.2.2).
				" WHERE COALESCE(o.m, 0) <> d.d_next_o_id - 1 OR n.m <> COALESCE(o.m, 0)" +
				" ORDER BY d.d_w_id, d.d_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s: d_next_o_id %s, max(o_id) %s, max(no_o_id) %s", r[0], r[1], r[2], orNone(r[3]), orNone(r[4]))
			},
		},
		{
			id: 3, name: "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDER",
			query: "SELECT no_w_id, no_d_id, MAX(no_o_id), MIN(no_o_id), COUNT(*), COUNT(*) OVER () FROM new_order" +
				" GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)" +
				" ORDER BY no_w_id, no_d_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s: max(no_o_id) %s, min(no_o_id) %s, %s new_order rows", r[0], r[1], r[2], r[3], r[4])
			},
		},
		{
			id: 4, name: "sum(O_OL_CNT) = rows in ORDER_LINE",
			query: "SELECT d.d_w_id, d.d_id, COALESCE(o.s, 0), COALESCE(l.c, 0), COUNT(*) OVER () FROM district d" +
				" LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o" +
				" ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id" +
				" LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) l" +
				" ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id" +
				" WHERE COALESCE(o.s, 0) <> COALESCE(l.c, 0) ORDER BY d.d_w_id, d.d_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s: sum(o_ol_cnt) %s, %s order_line rows", r[0], r[1], r[2], r[3])
			},
		},
		{
			id: 5, name: "O_CARRIER_ID is NULL exactly when a NEW_ORDER row exists",
			query: "SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_carrier_id, n.no_o_id, COUNT(*) OVER () FROM orders o" +
				" LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id" +
				" WHERE (o.o_carrier_id IS NULL AND n.no_o_id IS NULL) OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)" +
				" ORDER BY o.o_w_id, o.o_d_id, o.o_id" + limitExamples,
			example: func(r []string) string {
				if r[4] == "" {
					return fmt.Sprintf("warehouse %s district %s order %s: o_carrier_id NULL but no new_order row", r[0], r[1], r[2])
				}
				return fmt.Sprintf("warehouse %s district %s order %s: o_carrier_id %s but a new_order row", r[0], r[1], r[2], r[3])
			},
		},
		{
			id: 6, name: "O_OL_CNT = rows in ORDER_LINE, per order",
			query: "SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, COALESCE(l.c, 0), COUNT(*) OVER () FROM orders o" +
				" LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l" +
				" ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id" +
				" WHERE COALESCE(l.c, 0) <> o.o_ol_cnt ORDER BY o.o_w_id, o.o_d_id, o.o_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s order %s: o_ol_cnt %s, %s order_line rows", r[0], r[1], r[2], r[3], r[4])
			},
		},
		{
			id: 7, name: "OL_DELIVERY_D is NULL exactly when O_CARRIER_ID is NULL",
			query: "SELECT l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number, o.o_carrier_id, COUNT(*) OVER () FROM order_line l" +
				" JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id" +
				" WHERE (l.ol_delivery_d IS NULL AND o.o_carrier_id IS NOT NULL) OR (l.ol_delivery_d IS NOT NULL AND o.o_carrier_id IS NULL)" +
				" ORDER BY l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number" + limitExamples,
			example: func(r []string) string {
				if r[4] == "" {
					return fmt.Sprintf("warehouse %s district %s order %s line %s: ol_delivery_d set but o_carrier_id NULL", r[0], r[1], r[2], r[3])
				}
				return fmt.Sprintf("warehouse %s district %s order %s line %s: ol_delivery_d NULL but o_carrier_id %s", r[0], r[1], r[2], r[3], r[4])
			},
		},
		{
			id: 8, name: "W_YTD = sum(H_AMOUNT)",
			query: "SELECT w.w_id, w.w_ytd, COALESCE(h.s, 0), COUNT(*) OVER () FROM warehouse w" +
				" LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id" +
				" WHERE ABS(w.w_ytd - COALESCE(h.s, 0)) > " + tolerance + " ORDER BY w.w_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s: w_ytd %s, sum(h_amount) %s", r[0], money(r[1]), money(r[2]))
			},
		},
		{
			id: 9, name: "D_YTD = sum(H_AMOUNT)",
			query: "SELECT d.d_w_id, d.d_id, d.d_ytd, COALESCE(h.s, 0), COUNT(*) OVER () FROM district d" +
				" LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h" +
				" ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id" +
				" WHERE ABS(d.d_ytd - COALESCE(h.s, 0)) > " + tolerance + " ORDER BY d.d_w_id, d.d_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s: d_ytd %s, sum(h_amount) %s", r[0], r[1], money(r[2]), money(r[3]))
			},
		},
		{
			id: 10, name: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)",
			query: "SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance, COALESCE(ol.s, 0), COALESCE(h.s, 0), COUNT(*) OVER () FROM customer c" +
				" LEFT JOIN (" + deliveredByCustomer + ") ol ON ol.cw = c.c_w_id AND ol.cd = c.c_d_id AND ol.cc = c.c_id" +
				" LEFT JOIN (" + paidByCustomer + ") h ON h.cw = c.c_w_id AND h.cd = c.c_d_id AND h.cc = c.c_id" +
				" WHERE ABS(c.c_balance - (COALESCE(ol.s, 0) - COALESCE(h.s, 0))) > " + tolerance +
				" ORDER BY c.c_w_id, c.c_d_id, c.c_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s customer %s: c_balance %s, sum(delivered ol_amount) %s, sum(h_amount) %s",
					r[0], r[1], r[2], money(r[3]), money(r[4]), money(r[5]))
			},
		},
		{
			id: 11, name: "rows in ORDERS - rows in NEW_ORDER = 2100", afterLoadOnly: true,
			query: "SELECT d.d_w_id, d.d_id, COALESCE(o.c, 0), COALESCE(n.c, 0), COUNT(*) OVER () FROM district d" +
				" LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o" +
				" ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id" +
				" LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n" +
				" ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id" +
				" WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100 ORDER BY d.d_w_id, d.d_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s: %s orders, %s new_order rows", r[0], r[1], r[2], r[3])
			},
		},
		{
			id: 12, name: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)",
			query: "SELECT c.c_w_id, c.c_d_id, c.c_id, c.c_balance, c.c_ytd_payment, COALESCE(ol.s, 0), COUNT(*) OVER () FROM customer c" +
				" LEFT JOIN (" + deliveredByCustomer + ") ol ON ol.cw = c.c_w_id AND ol.cd = c.c_d_id AND ol.cc = c.c_id" +
				" WHERE ABS(c.c_balance + c.c_ytd_payment - COALESCE(ol.s, 0)) > " + tolerance +
				" ORDER BY c.c_w_id, c.c_d_id, c.c_id" + limitExamples,
			example: func(r []string) string {
				return fmt.Sprintf("warehouse %s district %s customer %s: c_balance %s, c_ytd_payment %s, sum(delivered ol_amount) %s",
					r[0], r[1], r[2], money(r[3]), money(r[4]), money(r[5]))
			},
		},
	}
}

// money formats an amount the server returned with two decimals ("299990" and
// "299990.0" both become "299990.00"); text it cannot parse is kept.
func money(s string) string {
	if s == "" {
		return "NULL"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// orNone spells a missing aggregate.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
