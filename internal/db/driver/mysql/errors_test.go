package mysql

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

func TestDescribeClassifies(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want driver.ErrorInfo
	}{
		{"nil", nil, driver.ErrorInfo{}},
		{"deadlock", &mysqldrv.MySQLError{Number: 1213}, driver.ErrorInfo{Code: "1213", Retryable: true}},
		{"wrapped lock wait", fmt.Errorf("event: %w", &mysqldrv.MySQLError{Number: 1205}), driver.ErrorInfo{Code: "1205"}},
		{"server gone", &mysqldrv.MySQLError{Number: 2006}, driver.ErrorInfo{Code: "2006", ConnectionLost: true}},
		{"server lost", &mysqldrv.MySQLError{Number: 2013}, driver.ErrorInfo{Code: "2013", ConnectionLost: true}},
		{"killed", &mysqldrv.MySQLError{Number: 1927}, driver.ErrorInfo{Code: "1927", ConnectionLost: true}},
		{"shutdown", &mysqldrv.MySQLError{Number: 1053}, driver.ErrorInfo{Code: "1053", ConnectionLost: true}},
		{"normal shutdown", &mysqldrv.MySQLError{Number: 1077}, driver.ErrorInfo{Code: "1077", ConnectionLost: true}},
		{"bad conn", sqldriver.ErrBadConn, driver.ErrorInfo{ConnectionLost: true}},
		{"invalid conn", mysqldrv.ErrInvalidConn, driver.ErrorInfo{ConnectionLost: true}},
		{"eof", io.EOF, driver.ErrorInfo{ConnectionLost: true}},
		{"unexpected eof", io.ErrUnexpectedEOF, driver.ErrorInfo{ConnectionLost: true}},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, driver.ErrorInfo{ConnectionLost: true}},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), driver.ErrorInfo{ConnectionLost: true}},
		{"cancelled", fmt.Errorf("mysql: %w", context.Canceled), driver.ErrorInfo{}},
		{"deadline", context.DeadlineExceeded, driver.ErrorInfo{}},
		{"other", errors.New("argument 1 has unsupported type"), driver.ErrorInfo{}},
	}
	d := &Driver{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := d.Describe(tc.err); got != tc.want {
				t.Errorf("Describe(%v) = %+v, want %+v", tc.err, got, tc.want)
			}
		})
	}
}

func TestDefaultIgnorableIsSysbenchs(t *testing.T) {
	got := (&Driver{}).DefaultIgnorable()
	want := []string{"1213", "1020", "1205"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("DefaultIgnorable = %v, want %v", got, want)
	}
}

func TestDescribeRealErrors(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, mysqlTarget(t, true))
	a := drivertest.Connect(t, d, 0)
	b := drivertest.Connect(t, d, 1)
	drivertest.LoadSbtest(t, d, a, "sbtest1", 10)

	t.Run("duplicate key", func(t *testing.T) {
		ins, err := a.Prepare(ctx, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
		if err != nil {
			t.Fatal(err)
		}
		defer ins.Close()
		_, err = ins.Exec(ctx, 1, 1, "c", "pad")
		if got := d.Describe(err); got.Code != "1062" || got.ConnectionLost {
			t.Fatalf("Describe(%v) = %+v, want code 1062", err, got)
		}
	})

	t.Run("lock wait timeout", func(t *testing.T) {
		if _, err := a.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		defer a.Exec(ctx, "ROLLBACK")
		if _, err := a.Exec(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=1"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Exec(ctx, "SET SESSION innodb_lock_wait_timeout=1"); err != nil {
			t.Fatal(err)
		}
		_, err := b.Exec(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id=1")
		got := d.Describe(err)
		if got.Code != "1205" || got.ConnectionLost {
			t.Fatalf("Describe(%v) = %+v, want code 1205", err, got)
		}
		ignorable := false
		for _, c := range d.DefaultIgnorable() {
			ignorable = ignorable || c == got.Code
		}
		if !ignorable {
			t.Errorf("1205 is not in DefaultIgnorable %v", d.DefaultIgnorable())
		}
	})

	t.Run("killed connection", func(t *testing.T) {
		victim := drivertest.Connect(t, d, 2)
		rows, err := victim.QueryStrings(ctx, "SELECT CONNECTION_ID()")
		if err != nil {
			t.Fatal(err)
		}
		id, _ := strconv.Atoi(rows[0][0])
		point, err := victim.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Exec(ctx, "KILL "+strconv.Itoa(id)); err != nil {
			t.Fatal(err)
		}
		_, err = point.Query(ctx, 1)
		if err == nil {
			t.Fatal("query on a killed connection succeeded")
		}
		if got := d.Describe(err); !got.ConnectionLost {
			t.Fatalf("Describe(%v) = %+v, want ConnectionLost", err, got)
		}
	})
}
