package testnet

import (
	"database/sql"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	_ "github.com/go-sql-driver/mysql"
)

// TestRemoteMariaDB: the server answers over TCP at the namespace's address
// from the test's namespace, its process is mariadbd in another network
// namespace, and the namespace and the server are gone after the cleanup.
func TestRemoteMariaDB(t *testing.T) {
	var m *MariaDB
	t.Run("up", func(t *testing.T) {
		m = RemoteMariaDB(t)
		if !strings.HasPrefix(m.Host, "10.213.") || m.Host == m.NS.HostAddr {
			t.Errorf("server at %s, host side %s: want both in 10.213.0.0/16 and different", m.Host, m.NS.HostAddr)
		}
		db, err := sql.Open("mysql", m.DSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var host string
		if err := db.QueryRow("SELECT SUBSTRING_INDEX(USER(), '@', -1)").Scan(&host); err != nil {
			t.Fatalf("query over TCP: %v", err)
		}
		if host != m.NS.HostAddr {
			t.Errorf("the server sees the client at %q, want the veth's host side %s", host, m.NS.HostAddr)
		}
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(m.PID) + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "mariadbd" {
			t.Errorf("PID %d is %q (%v), want mariadbd", m.PID, comm, err)
		}
		mine, err1 := os.Readlink("/proc/self/ns/net")
		its, err2 := os.Readlink("/proc/" + strconv.Itoa(m.PID) + "/ns/net")
		if err1 != nil || err2 != nil || mine == its {
			t.Errorf("server's network namespace %q (%v), this test's %q (%v): want different", its, err2, mine, err1)
		}
	})
	if m == nil || t.Failed() {
		return
	}
	if syscall.Kill(m.PID, 0) == nil {
		t.Errorf("mariadbd (PID %d) still runs after the test's cleanup", m.PID)
	}
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil || strings.Contains(string(out), m.NS.Name) {
		t.Errorf("namespace %s left behind (ip netns list: %v)\n%s", m.NS.Name, err, out)
	}
	if _, err := os.Stat(m.Dir); !os.IsNotExist(err) {
		t.Errorf("data directory %s left behind (%v)", m.Dir, err)
	}
}
