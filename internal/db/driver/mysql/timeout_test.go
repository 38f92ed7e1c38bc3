package mysql

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestConnectToAServerThatDoesNotAnswer: a server that accepts and never
// sends its handshake, and a port that drops every packet, fail within the
// connect timeout with an error that names host, port and timeout and says
// what to check (it used to wait for the caller's context, then say
// "context deadline exceeded", or "invalid connection").
func TestConnectToAServerThatDoesNotAnswer(t *testing.T) {
	cases := []struct {
		name string
		port func(testing.TB) int
		says func(port int) []string
	}{
		// A MySQL server greets at once: one that accepts and says nothing
		// speaks another protocol (PostgreSQL waits for the client) or is stuck.
		{"silent server", drivertest.SilentServer, func(port int) []string {
			return []string{"the server at 127.0.0.1:" + strconv.Itoa(port) + " did not speak the MySQL protocol", "no MySQL greeting within 500ms", "--mysql-host", "--mysql-port"}
		}},
		{"blackholed port", drivertest.BlackholePort, func(port int) []string {
			return []string{"host 127.0.0.1", "port " + strconv.Itoa(port), "within 500ms", "--mysql-host", "--mysql-port", "firewall"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			port := c.port(t)
			cfg := driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{port}, User: "root",
				ConnectTimeout: 500 * time.Millisecond}
			d := openDriver(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			conn, err := d.Connect(ctx, 0)
			if err == nil {
				conn.Close()
				t.Fatal("connected to a server that never answers")
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("gave up after %v, want the connect timeout (500ms) to end it", took)
			}
			msg := err.Error()
			t.Log(msg)
			for _, want := range c.says(port) {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "invalid connection") {
				t.Errorf("error %q still says invalid connection", msg)
			}
		})
	}
}

// TestConnectToPostgreSQL: a MySQL client pointed at a PostgreSQL server's
// port says that the server there did not speak the MySQL protocol (it used
// to say "context deadline exceeded" after 30 s).
func TestConnectToPostgreSQL(t *testing.T) {
	pg := testdb.PgSQL(t)
	addr := net.JoinHostPort(pg.Hosts[0], strconv.Itoa(pg.Ports[0]))
	d := openDriver(t, driver.Config{Kind: driver.KindMySQL, Hosts: pg.Hosts, Ports: pg.Ports, User: "root", ConnectTimeout: 500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := d.Connect(ctx, 0)
	if err == nil {
		conn.Close()
		t.Fatal("a MySQL connection to PostgreSQL succeeded")
	}
	if want := "the server at " + addr + " did not speak the MySQL protocol"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

// TestConnectToAServerThatHangsUp: a listener that accepts and closes at once
// (not a MySQL server, or one refusing this host) is named as such, with its
// address, instead of go-sql-driver's bare "invalid connection".
func TestConnectToAServerThatHangsUp(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	d := openDriver(t, driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{port}, User: "root"})
	conn, err := d.Connect(context.Background(), 0)
	if err == nil {
		conn.Close()
		t.Fatal("connected to a listener that hangs up")
	}
	msg := err.Error()
	for _, want := range []string{"127.0.0.1:" + strconv.Itoa(port), "closed the connection during the handshake", "is it a MySQL server on that port"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}
