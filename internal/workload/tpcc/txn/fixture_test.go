package txn

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// The fixture is a small database of the spec's shape: every table and column
// of clause 1.3, fixtureWarehouses warehouses of 10 districts, but fewer
// customers, items and orders than clause 4.3 loads. Workers draw their
// inputs from fixtureSizes so that every drawn key exists.
const (
	fixtureWarehouses  = 2
	fixtureCustomers   = 300 // per district
	fixtureLastNames   = 100 // LastName(0..99)
	fixtureItems       = 1000
	fixtureOrders      = 30 // per district: o_id 1..30 for customers 1..30
	fixtureUndelivered = 9  // the last 9 orders of each district are in new_order
	fixtureCLoad       = 157
)

var fixtureSizes = sizes{customers: fixtureCustomers, items: fixtureItems, lastNames: fixtureLastNames}

// fixtureLoadTime is c_since, o_entry_d and the delivered orders' ol_delivery_d.
var fixtureLoadTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func col(name string, t driver.ColumnType, size ...int) driver.Column {
	c := driver.Column{Name: name, Type: t}
	if len(size) > 0 {
		c.Size = size[0]
	}
	if len(size) > 1 {
		c.Scale = size[1]
	}
	return c
}

func cols(specs ...driver.Column) []driver.Column { return specs }

// fixtureTables are the nine tables of clause 1.3 with their primary keys.
func fixtureTables() []driver.Table {
	addr := func(p string) []driver.Column {
		return cols(col(p+"street_1", driver.Varchar, 20), col(p+"street_2", driver.Varchar, 20), col(p+"city", driver.Varchar, 20),
			col(p+"state", driver.Char, 2), col(p+"zip", driver.Char, 9))
	}
	stock := cols(col("s_i_id", driver.Integer), col("s_w_id", driver.Integer), col("s_quantity", driver.Integer))
	for d := 1; d <= 10; d++ {
		stock = append(stock, col(fmt.Sprintf("s_dist_%02d", d), driver.Char, 24))
	}
	stock = append(stock, col("s_ytd", driver.Integer), col("s_order_cnt", driver.Integer), col("s_remote_cnt", driver.Integer), col("s_data", driver.Varchar, 50))
	return []driver.Table{
		{Name: "warehouse", PrimaryKey: []string{"w_id"}, Columns: append(append(cols(col("w_id", driver.Integer), col("w_name", driver.Varchar, 10)), addr("w_")...),
			col("w_tax", driver.Decimal, 4, 4), col("w_ytd", driver.Decimal, 12, 2))},
		{Name: "district", PrimaryKey: []string{"d_w_id", "d_id"}, Columns: append(append(cols(col("d_id", driver.Integer), col("d_w_id", driver.Integer), col("d_name", driver.Varchar, 10)), addr("d_")...),
			col("d_tax", driver.Decimal, 4, 4), col("d_ytd", driver.Decimal, 12, 2), col("d_next_o_id", driver.Integer))},
		{Name: "customer", PrimaryKey: []string{"c_w_id", "c_d_id", "c_id"}, Columns: append(append(cols(col("c_id", driver.Integer), col("c_d_id", driver.Integer), col("c_w_id", driver.Integer),
			col("c_first", driver.Varchar, 16), col("c_middle", driver.Char, 2), col("c_last", driver.Varchar, 16)), addr("c_")...),
			col("c_phone", driver.Char, 16), col("c_since", driver.Timestamp), col("c_credit", driver.Char, 2), col("c_credit_lim", driver.Decimal, 12, 2),
			col("c_discount", driver.Decimal, 4, 4), col("c_balance", driver.Decimal, 12, 2), col("c_ytd_payment", driver.Decimal, 12, 2),
			col("c_payment_cnt", driver.Integer), col("c_delivery_cnt", driver.Integer), col("c_data", driver.Varchar, 500))},
		{Name: "history", Columns: cols(col("h_c_id", driver.Integer), col("h_c_d_id", driver.Integer), col("h_c_w_id", driver.Integer), col("h_d_id", driver.Integer),
			col("h_w_id", driver.Integer), col("h_date", driver.Timestamp), col("h_amount", driver.Decimal, 6, 2), col("h_data", driver.Varchar, 24))},
		{Name: "new_order", PrimaryKey: []string{"no_w_id", "no_d_id", "no_o_id"}, Columns: cols(col("no_o_id", driver.Integer), col("no_d_id", driver.Integer), col("no_w_id", driver.Integer))},
		{Name: "orders", PrimaryKey: []string{"o_w_id", "o_d_id", "o_id"}, Columns: cols(col("o_id", driver.Integer), col("o_d_id", driver.Integer), col("o_w_id", driver.Integer),
			col("o_c_id", driver.Integer), col("o_entry_d", driver.Timestamp), col("o_carrier_id", driver.Integer), col("o_ol_cnt", driver.Integer), col("o_all_local", driver.Integer))},
		{Name: "order_line", PrimaryKey: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, Columns: cols(col("ol_o_id", driver.Integer), col("ol_d_id", driver.Integer),
			col("ol_w_id", driver.Integer), col("ol_number", driver.Integer), col("ol_i_id", driver.Integer), col("ol_supply_w_id", driver.Integer),
			col("ol_delivery_d", driver.Timestamp), col("ol_quantity", driver.Integer), col("ol_amount", driver.Decimal, 6, 2), col("ol_dist_info", driver.Char, 24))},
		{Name: "item", PrimaryKey: []string{"i_id"}, Columns: cols(col("i_id", driver.Integer), col("i_im_id", driver.Integer), col("i_name", driver.Varchar, 24),
			col("i_price", driver.Decimal, 5, 2), col("i_data", driver.Varchar, 50))},
		{Name: "stock", PrimaryKey: []string{"s_w_id", "s_i_id"}, Columns: stock},
	}
}

// fixtureIndexes are the secondary indexes of the contract.
var fixtureIndexes = map[string]driver.Index{
	"customer": {Name: "idx_customer", Columns: []string{"c_w_id", "c_d_id", "c_last", "c_first"}},
	"orders":   {Name: "idx_orders", Columns: []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}},
}

// fixtureLastName is the C_LAST number of customer cID: 0..99 once each for
// customers 1..100, then cID % 37, so names 0..36 are shared by 6 or 7
// customers and the others are unique.
func fixtureLastName(cID int) int {
	if cID <= fixtureLastNames {
		return cID - 1
	}
	return cID % 37
}

// fixtureFirstName orders customers by C_FIRST differently from C_ID.
func fixtureFirstName(cID int) string { return fmt.Sprintf("F%03d", cID*37%fixtureCustomers) }

// fixtureOrderLines is O_OL_CNT of order oID.
func fixtureOrderLines(oID int) int { return 5 + oID%11 }

// fixtureDB is a loaded fixture on one target.
type fixtureDB struct {
	drv  driver.Driver
	conn driver.Conn
}

// loadFixture creates and loads the fixture on cfg's database.
func loadFixture(t testing.TB, cfg driver.Config) *fixtureDB {
	t.Helper()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drv.Close() })
	conn := drivertest.Connect(t, drv, 0)
	ctx := context.Background()
	d := drv.Dialect()
	for _, tb := range fixtureTables() {
		for _, q := range d.CreateTable(tb) {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("create %s: %v", tb.Name, err)
			}
		}
		if ix, ok := fixtureIndexes[tb.Name]; ok {
			if _, err := conn.Exec(ctx, d.CreateIndex(tb.Name, ix)); err != nil {
				t.Fatalf("index %s: %v", tb.Name, err)
			}
		}
	}
	load := func(table string, columns []string, rows [][]any) {
		if _, err := conn.BulkInsert(ctx, table, columns, drivertest.NewFixedRows(rows)); err != nil {
			t.Fatalf("load %s: %v", table, err)
		}
	}
	rng := testSource(t, 1)
	var items, stock, warehouses, districts, customers, orders, newOrders, lines [][]any
	for i := 1; i <= fixtureItems; i++ {
		data := "item data"
		if i%10 == 0 {
			data = "item ORIGINAL data"
		}
		items = append(items, []any{int64(i), int64(i), "item" + strconv.Itoa(i), float64(rng.Uniform(100, 10000)) / 100, data})
	}
	for w := 1; w <= fixtureWarehouses; w++ {
		warehouses = append(warehouses, []any{int64(w), "wh" + strconv.Itoa(w), "s1", "s2", "city", "ST", "123451111", 0.1, 300000.0})
		for i := 1; i <= fixtureItems; i++ {
			row := []any{int64(i), int64(w), rng.Uniform(10, 100)}
			for d := 1; d <= 10; d++ {
				row = append(row, fmt.Sprintf("dist-%02d-%022d", d, i)[:24])
			}
			data := "stock data"
			if i%5 == 0 {
				data = "stock ORIGINAL data"
			}
			stock = append(stock, append(row, int64(0), int64(0), int64(0), data))
		}
		for d := 1; d <= 10; d++ {
			districts = append(districts, []any{int64(d), int64(w), "d" + strconv.Itoa(d), "s1", "s2", "city", "ST", "123451111", 0.05, 30000.0, int64(fixtureOrders + 1)})
			for c := 1; c <= fixtureCustomers; c++ {
				credit := "GC"
				if c%10 == 0 {
					credit = "BC"
				}
				customers = append(customers, []any{int64(c), int64(d), int64(w), fixtureFirstName(c), "OE", LastName(fixtureLastName(c)),
					"s1", "s2", "city", "ST", "123451111", "0123456789012345", fixtureLoadTime, credit, 50000.0, 0.25, -10.0, 10.0,
					int64(1), int64(0), strings.Repeat("x", 300)})
			}
			for o := 1; o <= fixtureOrders; o++ {
				delivered := o <= fixtureOrders-fixtureUndelivered
				var carrier, deliveryD any
				if delivered {
					carrier, deliveryD = int64(1+o%10), fixtureLoadTime
				} else {
					newOrders = append(newOrders, []any{int64(o), int64(d), int64(w)})
				}
				orders = append(orders, []any{int64(o), int64(d), int64(w), int64(o), fixtureLoadTime, carrier, int64(fixtureOrderLines(o)), int64(1)})
				for n := 1; n <= fixtureOrderLines(o); n++ {
					amount := 0.0
					if !delivered {
						amount = float64(rng.Uniform(1, 999999)) / 100
					}
					lines = append(lines, []any{int64(o), int64(d), int64(w), int64(n), rng.Uniform(1, fixtureItems), int64(w), deliveryD, int64(5), amount, "dist-info-dist-info-1234"})
				}
			}
		}
	}
	load("item", []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}, items)
	load("warehouse", []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}, warehouses)
	stockCols := []string{"s_i_id", "s_w_id", "s_quantity"}
	for d := 1; d <= 10; d++ {
		stockCols = append(stockCols, fmt.Sprintf("s_dist_%02d", d))
	}
	load("stock", append(stockCols, "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"), stock)
	load("district", []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"}, districts)
	load("customer", []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip",
		"c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"}, customers)
	load("orders", []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"}, orders)
	load("new_order", []string{"no_o_id", "no_d_id", "no_w_id"}, newOrders)
	load("order_line", []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"}, lines)
	return &fixtureDB{drv: drv, conn: conn}
}

// worker returns a worker of home warehouse home on a new connection, running
// only the transactions of mix, with inputs drawn from the fixture's sizes.
func (f *fixtureDB) worker(t testing.TB, home int, mix [numKinds]int, seed uint64) *Worker {
	t.Helper()
	conn := drivertest.Connect(t, f.drv, 1)
	cfg := Config{Warehouses: fixtureWarehouses, Mix: mix, CLoad: fixtureCLoad}
	w, err := NewWorker(context.Background(), conn, f.drv.Dialect(), testSource(t, seed), cfg, home)
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	w.size = fixtureSizes
	return w
}

// int64s runs query and returns its first row as integers (NULL as 0).
func (f *fixtureDB) int64s(t testing.TB, query string, args ...any) []int64 {
	t.Helper()
	rows, err := f.conn.QueryStrings(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no row", query)
	}
	out := make([]int64, len(rows[0]))
	for i, s := range rows[0] {
		if s == "" {
			continue
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out[i] = n
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: column %d is %q", query, i+1, s)
		}
		out[i] = int64(f)
	}
	return out
}

// cents runs a query of one number and returns it in cents.
func (f *fixtureDB) cents(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	rows, err := f.conn.QueryStrings(context.Background(), query, args...)
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", query, err)
	}
	if rows[0][0] == "" {
		return 0
	}
	v, err := strconv.ParseFloat(rows[0][0], 64)
	if err != nil {
		t.Fatalf("%s: %q", query, rows[0][0])
	}
	if v < 0 {
		return int64(v*100 - 0.5)
	}
	return int64(v*100 + 0.5)
}

// testSource returns the random stream of seed with the default configuration.
func testSource(t testing.TB, seed uint64) *randgen.Source {
	t.Helper()
	cfg := randgen.DefaultConfig()
	cfg.Seed = seed
	f, err := randgen.NewFactory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f.Source(0)
}
