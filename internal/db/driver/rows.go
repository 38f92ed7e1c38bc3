package driver

import (
	sqldriver "database/sql/driver"
	"io"
)

// CountRows reads every row of rows into dest (one value per column, reused
// for each row), closes rows and returns how many rows there were. It is what
// Stmt.Query and Conn.Query of the drivers built on database/sql/driver
// connections do with a result; it allocates nothing.
func CountRows(rows sqldriver.Rows, dest []sqldriver.Value) (int, error) {
	n := 0
	for {
		err := rows.Next(dest)
		if err == nil {
			n++
			continue
		}
		if err == io.EOF {
			break
		}
		rows.Close()
		return n, err
	}
	return n, rows.Close()
}
