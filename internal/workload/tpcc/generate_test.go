package tpcc

import (
	"hash/fnv"
	"sync"
	"testing"
	"time"
)

// collect runs the generator of table for warehouse w and calls fn per row.
func collect(p *population, table string, w int, fn func(v []any)) int {
	src := p.source(table, w, nil)
	for src.Next() {
		v, _ := src.Values()
		fn(v)
	}
	return src.row
}

func TestPopulationCounts(t *testing.T) {
	p := testPopulation(t)
	want := map[string]int{
		tItem: 100000, tWarehouse: 1, tDistrict: 10, tCustomer: 30000, tHistory: 30000,
		tOrders: 30000, tNewOrder: 9000, tStock: 100000,
	}
	for table, n := range want {
		if got := collect(p, table, 1, func([]any) {}); got != n {
			t.Errorf("%s: %d rows for 1 warehouse, want %d", table, got, n)
		}
	}
	var olCnt int64
	collect(p, tOrders, 1, func(v []any) { olCnt += v[6].(int64) })
	lines := collect(p, tOrderLine, 1, func([]any) {})
	if int64(lines) != olCnt || int64(lines) != p.orderLineCount(1) {
		t.Errorf("order_line: %d rows, sum(o_ol_cnt) %d, orderLineCount %d: want all equal", lines, olCnt, p.orderLineCount(1))
	}
	if lines < 30000*5 || lines > 30000*15 {
		t.Errorf("order_line: %d rows, outside 5..15 per order", lines)
	}
	total := int64(0)
	for table, n := range want {
		if table != tItem {
			total += int64(n)
		}
	}
	if got := p.warehouseRowCount(1); got != total+int64(lines) {
		t.Errorf("warehouseRowCount(1) = %d, want %d", got, total+int64(lines))
	}
}

func TestOrderRules(t *testing.T) {
	p := testPopulation(t)
	seen := map[[2]int64]bool{} // (district, customer)
	carriers := map[int64]int64{}
	collect(p, tOrders, 1, func(v []any) {
		id, d, c := v[0].(int64), v[1].(int64), v[3].(int64)
		if seen[[2]int64{d, c}] {
			t.Fatalf("district %d: customer %d has two orders: o_c_id is not a permutation", d, c)
		}
		seen[[2]int64{d, c}] = true
		delivered := v[5] != nil
		if delivered != (id < firstNewOrder) {
			t.Fatalf("order %d: o_carrier_id %v", id, v[5])
		}
		if delivered {
			carriers[v[5].(int64)]++
		}
		if n := v[6].(int64); n < 5 || n > 15 {
			t.Fatalf("order %d: o_ol_cnt %d", id, n)
		}
	})
	if len(seen) != 30000 || len(carriers) != 10 {
		t.Errorf("%d (district, customer) pairs, %d carriers: want 30000 and 10", len(seen), len(carriers))
	}
	collect(p, tOrderLine, 1, func(v []any) {
		id, amount := v[0].(int64), v[8].(float64)
		if id < firstNewOrder {
			if v[6] != p.now || amount != 0 {
				t.Fatalf("delivered order %d: ol_delivery_d %v, ol_amount %v", id, v[6], amount)
			}
		} else if v[6] != nil || amount < 0.01 || amount > 9999.99 {
			t.Fatalf("undelivered order %d: ol_delivery_d %v, ol_amount %v", id, v[6], amount)
		}
	})
	collect(p, tNewOrder, 1, func(v []any) {
		if id := v[0].(int64); id < firstNewOrder || id > ordersPerDistrict {
			t.Fatalf("new_order %d outside 2101..3000", id)
		}
	})
}

func TestCustomerRules(t *testing.T) {
	p := testPopulation(t)
	names := map[string]bool{}
	for n := int64(0); n < 1000; n++ {
		names[lastName(n)] = true
	}
	bad := 0
	collect(p, tCustomer, 1, func(v []any) {
		id, last := v[0].(int64), v[5].(string)
		if id <= 1000 && last != lastName(id-1) {
			t.Fatalf("customer %d: c_last %q, want %q", id, last, lastName(id-1))
		}
		if !names[last] {
			t.Fatalf("customer %d: c_last %q is not a syllable name", id, last)
		}
		if v[13] == "BC" {
			bad++
		}
		if v[16] != -10.0 || v[17] != 10.0 || v[4] != "OE" {
			t.Fatalf("customer %d: c_balance %v, c_ytd_payment %v, c_middle %v", id, v[16], v[17], v[4])
		}
	})
	if bad < 2400 || bad > 3600 {
		t.Errorf("%d of 30000 customers have bad credit, want about 10%%", bad)
	}
}

// hashWarehouse hashes every generated row of warehouse w.
func hashWarehouse(p *population, w int) uint64 {
	h := fnv.New64a()
	var b []byte
	for _, t := range warehouseTables() {
		collect(p, t.name, w, func(v []any) {
			b = appendCSVRow(b[:0], v)
			h.Write(b)
		})
	}
	return h.Sum64()
}

func TestDeterministicWhateverTheThreads(t *testing.T) {
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	f := testFactory(t)
	alone := hashWarehouse(&population{rand: f, cLoad: chooseCLoad(f), now: now}, 2)

	// The same warehouse generated while warehouse 1 is generated in parallel
	// from the same population.
	p := &population{rand: f, cLoad: chooseCLoad(f), now: now}
	var wg sync.WaitGroup
	hashes := make([]uint64, 2)
	for i := range hashes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			hashes[i] = hashWarehouse(p, i+1)
		}(i)
	}
	wg.Wait()
	if hashes[1] != alone {
		t.Errorf("warehouse 2 generated in parallel hashes to %x, alone to %x", hashes[1], alone)
	}
	if hashes[0] == hashes[1] {
		t.Errorf("warehouses 1 and 2 hash to %x: different warehouses must get different data", hashes)
	}
}

// BenchmarkGenerate measures the client's cost of producing one warehouse's
// rows per table (ns and allocations per row), without a database: on a small
// machine it is taken from the server being loaded.
func BenchmarkGenerate(b *testing.B) {
	p := testPopulation(b)
	for _, table := range []string{tStock, tOrderLine, tCustomer, tOrders, tHistory} {
		b.Run(table, func(b *testing.B) {
			b.ReportAllocs()
			rows := 0
			for b.Loop() {
				src := p.source(table, 1, nil)
				for src.Next() {
					rows++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}
