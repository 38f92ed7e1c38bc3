package suite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// TestSuitePinsItsServer: a plan's server.cpus reaches the server's start
// and is recorded in the manifest and every cell's managed_server.cpu_list.
func TestSuitePinsItsServer(t *testing.T) {
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
		}
	}
	dir := t.TempDir()
	serverDir := filepath.Join(dir, "server")
	plan := fmt.Sprintf(`name: pinned
server: {flavor: mariadb, dir: %s, cpus: 0}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [oltp_point_select], threads: [1]}
run: {time: 1}
`, serverDir)
	t.Cleanup(func() { _ = localserverStop(serverDir) })
	m, out, err := runPlan(context.Background(), t, writePlan(t, plan), filepath.Join(dir, "suite"), false)
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	if len(m.Servers) != 1 || m.Servers[0].Managed == nil || m.Servers[0].Managed.CPUList != "0" {
		t.Fatalf("servers in the manifest: %+v", m.Servers)
	}
	if len(m.Cells) != 1 {
		t.Fatalf("%d cells", len(m.Cells))
	}
	res, err := result.Read(filepath.Join(dir, "suite", m.Cells[0].File))
	if err != nil {
		t.Fatal(err)
	}
	if res.ManagedServer == nil || res.ManagedServer.CPUList != "0" {
		t.Errorf("cell's managed server: %+v", res.ManagedServer)
	}
}
