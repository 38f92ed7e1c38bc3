package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

// TestConnectToAServerThatDoesNotAnswer: a server that accepts and never
// answers, and a port that drops every packet, fail within the connect
// timeout with an error that names the address and the timeout and says what
// to check.
func TestConnectToAServerThatDoesNotAnswer(t *testing.T) {
	cases := []struct {
		name string
		port func(testing.TB) int
	}{
		{"silent server", drivertest.SilentServer},
		{"blackholed port", drivertest.BlackholePort},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			port := c.port(t)
			cfg := driver.Config{Kind: driver.KindPgSQL, Hosts: []string{"127.0.0.1"}, Ports: []int{port}, User: "postgres",
				Database: "postgres", ConnectTimeout: 500 * time.Millisecond}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			conn, err := openDriver(t, cfg).Connect(ctx, 0)
			if err == nil {
				conn.Close()
				t.Fatal("connected to a server that never answers")
			}
			if conn != nil {
				// A nil *Conn inside the interface passes "conn != nil"
				// checks and panics on Close (seen in the suite's beat).
				t.Errorf("Connect failed but returned a non-nil driver.Conn %#v", conn)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("gave up after %v, want the connect timeout (500ms) to end it", took)
			}
			msg := err.Error()
			t.Log(msg)
			for _, want := range []string{"127.0.0.1", strconv.Itoa(port), "within 500ms", "--pgsql-host", "--pgsql-port", "firewall"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
		})
	}
}
