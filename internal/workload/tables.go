package workload

import (
	"context"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// ListTables returns the base tables of the connection's database as a set of
// lower-case names.
func ListTables(ctx context.Context, conn driver.Conn, d driver.Dialect) (map[string]bool, error) {
	rows, err := conn.QueryStrings(ctx, d.ListTables())
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	present := make(map[string]bool, len(rows))
	for _, r := range rows {
		if len(r) > 0 {
			present[strings.ToLower(r[0])] = true
		}
	}
	return present, nil
}
