package tpcc

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Rows of tpcc_meta.
const (
	metaWarehouses = "warehouses"  // warehouse count of the load
	metaCLoad      = "c_load"      // C of NURand(255, …) for C_LAST at load time
	metaSeed       = "seed"        // the load's random seed
	metaItem       = "loaded_item" // present once item is loaded
	metaIndexes    = "indexes"     // present once the secondary indexes exist
	metaWPrefix    = "loaded_w_"   // loaded_w_<n>: present once warehouse n is loaded
	// loaded_w_<n>.<part>: part (warehouseParts) of warehouse n is loaded while
	// the warehouse is not complete; removed once loaded_w_<n> is written.
	metaPartSep = "."
)

// loadMeta is what tpcc_meta says about a load.
type loadMeta struct {
	warehouses int
	cLoad      int64
	seed       uint64
	item       bool
	indexes    bool
	loaded     map[int]bool
	// parts holds the loaded parts of the warehouses not marked loaded.
	parts map[int]map[string]bool
}

// complete reports whether every part of the load finished.
func (m *loadMeta) complete() bool {
	return m.item && m.indexes && len(m.unloaded()) == 0
}

// unloaded lists the warehouses not marked loaded, in order.
func (m *loadMeta) unloaded() []int {
	var ws []int
	for w := 1; w <= m.warehouses; w++ {
		if !m.loaded[w] {
			ws = append(ws, w)
		}
	}
	return ws
}

// pendingParts returns the indexes (into warehouseParts) of the parts of
// warehouse w still to load: none when w is loaded.
func (m *loadMeta) pendingParts(w int) []int {
	if m.loaded[w] {
		return nil
	}
	var ps []int
	for i, p := range warehouseParts() {
		if !m.parts[w][p.name] {
			ps = append(ps, i)
		}
	}
	return ps
}

// partMarker names the tpcc_meta row of a loaded part of warehouse w.
func partMarker(w int, part string) string {
	return metaWPrefix + strconv.Itoa(w) + metaPartSep + part
}

// warehouseMarker names the tpcc_meta row of a loaded warehouse w.
func warehouseMarker(w int) string { return metaWPrefix + strconv.Itoa(w) }

// rows returns the meta rows of m, sorted by name.
func (m *loadMeta) rows() [][2]string {
	rows := [][2]string{
		{metaWarehouses, strconv.Itoa(m.warehouses)},
		{metaCLoad, strconv.FormatInt(m.cLoad, 10)},
		{metaSeed, strconv.FormatUint(m.seed, 10)},
	}
	if m.item {
		rows = append(rows, [2]string{metaItem, "1"})
	}
	if m.indexes {
		rows = append(rows, [2]string{metaIndexes, "1"})
	}
	for w := range m.loaded {
		rows = append(rows, [2]string{warehouseMarker(w), "1"})
	}
	for w, parts := range m.parts {
		for p := range parts {
			rows = append(rows, [2]string{partMarker(w, p), "1"})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	return rows
}

// readMeta reads tpcc_meta; an error means it is missing or incomplete.
func readMeta(ctx context.Context, conn driver.Conn) (*loadMeta, error) {
	rows, err := conn.QueryStrings(ctx, "SELECT name, value FROM "+tMeta)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", tMeta, err)
	}
	m := &loadMeta{loaded: map[int]bool{}, parts: map[int]map[string]bool{}}
	var have int
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		name, value := r[0], r[1]
		switch {
		case name == metaWarehouses:
			m.warehouses, err = strconv.Atoi(value)
			have++
		case name == metaCLoad:
			m.cLoad, err = strconv.ParseInt(value, 10, 64)
			have++
		case name == metaSeed:
			m.seed, err = strconv.ParseUint(value, 10, 64)
			have++
		case name == metaItem:
			m.item = true
		case name == metaIndexes:
			m.indexes = true
		case strings.HasPrefix(name, metaWPrefix):
			num, part, isPart := strings.Cut(strings.TrimPrefix(name, metaWPrefix), metaPartSep)
			var w int
			if w, err = strconv.Atoi(num); err == nil {
				if !isPart {
					m.loaded[w] = true
				} else if m.parts[w] == nil {
					m.parts[w] = map[string]bool{part: true}
				} else {
					m.parts[w][part] = true
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s row %s=%q: %w", tMeta, name, value, err)
		}
	}
	for w := range m.loaded {
		delete(m.parts, w) // left over if a prepare stopped right after marking the warehouse
	}
	if have < 3 {
		return nil, fmt.Errorf("%s lacks the %s, %s and %s rows", tMeta, metaWarehouses, metaCLoad, metaSeed)
	}
	return m, nil
}

// setMeta records name=value in tpcc_meta (delete then insert: portable upsert).
func setMeta(ctx context.Context, conn driver.Conn, name, value string) error {
	if _, err := conn.Exec(ctx, "DELETE FROM "+tMeta+" WHERE name = ?", name); err != nil {
		return fmt.Errorf("record %s in %s: %w", name, tMeta, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO "+tMeta+" (name, value) VALUES (?, ?)", name, value); err != nil {
		return fmt.Errorf("record %s in %s: %w", name, tMeta, err)
	}
	return nil
}

// indexExists reports whether index name exists on table; it only runs when
// a prepare resumes.
func indexExists(ctx context.Context, conn driver.Conn, d driver.Dialect, table, name string) (bool, error) {
	set, err := workload.ListIndexes(ctx, conn, d)
	if err != nil {
		return false, fmt.Errorf("look for index %s: %w", name, err)
	}
	return set[workload.IndexKey(table, name)], nil
}
