package tpcc

import "github.com/fairbench/fairbench/internal/db/driver"

// Table names of TPC-C clause 1.3, plus fairbench's bookkeeping table.
const (
	tWarehouse = "warehouse"
	tDistrict  = "district"
	tCustomer  = "customer"
	tHistory   = "history"
	tNewOrder  = "new_order"
	tOrders    = "orders"
	tOrderLine = "order_line"
	tItem      = "item"
	tStock     = "stock"
	tMeta      = "tpcc_meta"
)

// allTables lists every table Prepare creates, in creation order.
func allTables() []string {
	return []string{tWarehouse, tDistrict, tCustomer, tHistory, tNewOrder, tOrders, tOrderLine, tItem, tStock, tMeta}
}

// warehouseTables lists the tables loaded per warehouse, in load order, with the
// column holding the warehouse id (for deleting a partially loaded warehouse).
func warehouseTables() []struct{ name, wCol string } {
	return []struct{ name, wCol string }{
		{tWarehouse, "w_id"},
		{tDistrict, "d_w_id"},
		{tCustomer, "c_w_id"},
		{tHistory, "h_w_id"},
		{tOrders, "o_w_id"},
		{tNewOrder, "no_w_id"},
		{tOrderLine, "ol_w_id"},
		{tStock, "s_w_id"},
	}
}

// col, num and text shorten the column lists below.
func col(name string, t driver.ColumnType) driver.Column {
	return driver.Column{Name: name, Type: t, NotNull: true}
}

func num(name string, size, scale int) driver.Column {
	return driver.Column{Name: name, Type: driver.Decimal, Size: size, Scale: scale, NotNull: true}
}

func text(name string, t driver.ColumnType, size int) driver.Column {
	return driver.Column{Name: name, Type: t, Size: size, NotNull: true}
}

func nullable(c driver.Column) driver.Column {
	c.NotNull = false
	return c
}

// address returns the street/city/state/zip columns of warehouse, district and customer.
func address(prefix string) []driver.Column {
	return []driver.Column{
		text(prefix+"street_1", driver.Varchar, 20),
		text(prefix+"street_2", driver.Varchar, 20),
		text(prefix+"city", driver.Varchar, 20),
		text(prefix+"state", driver.Char, 2),
		text(prefix+"zip", driver.Char, 9),
	}
}

// tableDefs returns the nine TPC-C tables (clause 1.3 names, types and primary
// keys) and tpcc_meta. parts > 1 hash-partitions the tables whose primary key
// starts with the warehouse id.
func tableDefs(parts int) []driver.Table {
	if parts < 2 {
		parts = 0
	}
	cat := func(parts ...[]driver.Column) []driver.Column {
		var out []driver.Column
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	var dists []driver.Column
	for i := 1; i <= 10; i++ {
		dists = append(dists, text(distCol(i), driver.Char, 24))
	}
	return []driver.Table{
		{Name: tWarehouse, PrimaryKey: []string{"w_id"}, PartitionByHash: parts, Columns: cat(
			[]driver.Column{col("w_id", driver.Integer), text("w_name", driver.Varchar, 10)},
			address("w_"),
			[]driver.Column{num("w_tax", 4, 4), num("w_ytd", 12, 2)})},
		{Name: tDistrict, PrimaryKey: []string{"d_w_id", "d_id"}, PartitionByHash: parts, Columns: cat(
			[]driver.Column{col("d_id", driver.Integer), col("d_w_id", driver.Integer), text("d_name", driver.Varchar, 10)},
			address("d_"),
			[]driver.Column{num("d_tax", 4, 4), num("d_ytd", 12, 2), col("d_next_o_id", driver.Integer)})},
		{Name: tCustomer, PrimaryKey: []string{"c_w_id", "c_d_id", "c_id"}, PartitionByHash: parts, Columns: cat(
			[]driver.Column{col("c_id", driver.Integer), col("c_d_id", driver.Integer), col("c_w_id", driver.Integer),
				text("c_first", driver.Varchar, 16), text("c_middle", driver.Char, 2), text("c_last", driver.Varchar, 16)},
			address("c_"),
			[]driver.Column{text("c_phone", driver.Char, 16), col("c_since", driver.Timestamp), text("c_credit", driver.Char, 2),
				num("c_credit_lim", 12, 2), num("c_discount", 4, 4), num("c_balance", 12, 2), num("c_ytd_payment", 12, 2),
				col("c_payment_cnt", driver.Integer), col("c_delivery_cnt", driver.Integer), text("c_data", driver.Varchar, 500)})},
		// history has no primary key in the specification (clause 1.3.1).
		{Name: tHistory, Columns: []driver.Column{
			col("h_c_id", driver.Integer), col("h_c_d_id", driver.Integer), col("h_c_w_id", driver.Integer),
			col("h_d_id", driver.Integer), col("h_w_id", driver.Integer), col("h_date", driver.Timestamp),
			num("h_amount", 6, 2), text("h_data", driver.Varchar, 24)}},
		{Name: tNewOrder, PrimaryKey: []string{"no_w_id", "no_d_id", "no_o_id"}, PartitionByHash: parts, Columns: []driver.Column{
			col("no_o_id", driver.Integer), col("no_d_id", driver.Integer), col("no_w_id", driver.Integer)}},
		{Name: tOrders, PrimaryKey: []string{"o_w_id", "o_d_id", "o_id"}, PartitionByHash: parts, Columns: []driver.Column{
			col("o_id", driver.Integer), col("o_d_id", driver.Integer), col("o_w_id", driver.Integer), col("o_c_id", driver.Integer),
			col("o_entry_d", driver.Timestamp), nullable(col("o_carrier_id", driver.Integer)),
			col("o_ol_cnt", driver.Integer), col("o_all_local", driver.Integer)}},
		{Name: tOrderLine, PrimaryKey: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, PartitionByHash: parts, Columns: []driver.Column{
			col("ol_o_id", driver.Integer), col("ol_d_id", driver.Integer), col("ol_w_id", driver.Integer), col("ol_number", driver.Integer),
			col("ol_i_id", driver.Integer), col("ol_supply_w_id", driver.Integer), nullable(col("ol_delivery_d", driver.Timestamp)),
			col("ol_quantity", driver.Integer), num("ol_amount", 6, 2), text("ol_dist_info", driver.Char, 24)}},
		{Name: tItem, PrimaryKey: []string{"i_id"}, Columns: []driver.Column{
			col("i_id", driver.Integer), col("i_im_id", driver.Integer), text("i_name", driver.Varchar, 24),
			num("i_price", 5, 2), text("i_data", driver.Varchar, 50)}},
		{Name: tStock, PrimaryKey: []string{"s_w_id", "s_i_id"}, PartitionByHash: parts, Columns: cat(
			[]driver.Column{col("s_i_id", driver.Integer), col("s_w_id", driver.Integer), col("s_quantity", driver.Integer)},
			dists,
			[]driver.Column{col("s_ytd", driver.Integer), col("s_order_cnt", driver.Integer), col("s_remote_cnt", driver.Integer),
				text("s_data", driver.Varchar, 50)})},
		{Name: tMeta, PrimaryKey: []string{"name"}, Columns: []driver.Column{
			text("name", driver.Varchar, 32), text("value", driver.Varchar, 64)}},
	}
}

// distCol names stock's S_DIST_xx column for district d (1..10).
func distCol(d int) string {
	return "s_dist_" + string([]byte{'0' + byte(d/10), '0' + byte(d%10)})
}

// columnNames returns the column names of t in order (the order the generator
// yields values in).
func columnNames(t driver.Table) []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// tableDef returns the definition of the table called name.
func tableDef(name string) driver.Table {
	for _, t := range tableDefs(0) {
		if t.Name == name {
			return t
		}
	}
	panic("tpcc: unknown table " + name)
}

// indexesDuringLoad reports whether the secondary indexes are cheaper created
// with the tables than after loading. On InnoDB they are: both start with the
// warehouse and district ids, so each loader updates a small, cached range of
// them, and a 2-warehouse load measured about 0.1 s (3%) faster than building
// them afterwards, which scans the whole customer and orders tables on one
// connection each while the other loaders are idle. PostgreSQL and SQLite
// build them after loading, as their manuals advise for bulk loads.
func indexesDuringLoad(d driver.Dialect) bool { return d.Name() == "mysql" }

// secondaryIndexes lists the secondary indexes, created where they are
// cheapest (indexesDuringLoad).
func secondaryIndexes() []struct {
	table string
	index driver.Index
} {
	return []struct {
		table string
		index driver.Index
	}{
		{tCustomer, driver.Index{Name: "idx_customer", Columns: []string{"c_w_id", "c_d_id", "c_last", "c_first"}}},
		{tOrders, driver.Index{Name: "idx_orders", Columns: []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}}},
	}
}
