package mysql

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testdb"
)

func socketPath() string {
	if p := os.Getenv("FAIRBENCH_TEST_MYSQL_SOCKET"); p != "" {
		return p
	}
	return "/run/mysqld/mysqld.sock"
}

func TestConnectTCPAndSocket(t *testing.T) {
	base := testdb.MySQL(t)
	socket := base
	socket.Socket = socketPath()
	cases := []struct {
		name string
		cfg  driver.Config
	}{
		{"tcp", base},
		{"socket", socket},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Socket != "" {
				if _, err := os.Stat(tc.cfg.Socket); err != nil {
					t.Skipf("no MySQL socket at %s (set FAIRBENCH_TEST_MYSQL_SOCKET)", tc.cfg.Socket)
				}
			}
			d := openDriver(t, tc.cfg)
			c := connect(t, d, 0)
			rows, err := c.QueryStrings(context.Background(), "SELECT DATABASE(), @@version")
			if err != nil {
				t.Fatal(err)
			}
			if rows[0][0] != tc.cfg.Database {
				t.Fatalf("DATABASE() = %q, want %q", rows[0][0], tc.cfg.Database)
			}
		})
	}
}

func TestConnectErrorsExplain(t *testing.T) {
	wrongPassword := testdb.MySQLServer()
	wrongPassword.Password = "definitely-not-the-password"
	noServer := testdb.MySQLServer()
	noServer.Hosts, noServer.Ports = []string{"127.0.0.1"}, []int{1}
	cases := []struct {
		name string
		cfg  driver.Config
		want []string
		code string
	}{
		{"wrong password", wrongPassword, []string{"authentication failed for user \"" + wrongPassword.User + "\"", "--mysql-password"}, "1045"},
		{"unreachable port", noServer, []string{"cannot reach the server at 127.0.0.1:1", "connection refused"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := openDriver(t, tc.cfg)
			c, err := d.Connect(context.Background(), 0)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded, want an error")
			}
			for _, w := range tc.want {
				if !contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got := d.Describe(err).Code; got != tc.code {
				t.Errorf("Describe code = %q, want %q", got, tc.code)
			}
		})
	}
}

func TestHostsRoundRobin(t *testing.T) {
	cfg := testdb.MySQLServer()
	cfg.Hosts = []string{"127.0.0.1", "localhost"}
	cfg.Ports = []int{3306, 3307}
	d := openDriver(t, cfg)
	want := []string{"127.0.0.1:3306", "localhost:3307"}
	for n := 0; n < 4; n++ {
		if got := d.endpoints[n%len(d.endpoints)].addr; got != want[n%2] {
			t.Errorf("connection %d goes to %s, want %s", n, got, want[n%2])
		}
	}
}

func TestStatements(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run("prepared="+strconv.FormatBool(prepared), func(t *testing.T) {
			ctx := context.Background()
			d := openDriver(t, mysqlTarget(t, prepared))
			c := connect(t, d, 0)
			loadSbtest(t, d, c, "sbtest1", 1000)

			rangeQ, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
			if err != nil {
				t.Fatal(err)
			}
			defer rangeQ.Close()
			update, err := c.Prepare(ctx, "UPDATE sbtest1 SET k=k+1 WHERE id BETWEEN ? AND ?")
			if err != nil {
				t.Fatal(err)
			}
			defer update.Close()
			sameC, err := c.Prepare(ctx, "UPDATE sbtest1 SET c=c WHERE id=?")
			if err != nil {
				t.Fatal(err)
			}
			defer sameC.Close()
			del, err := c.Prepare(ctx, "DELETE FROM sbtest1 WHERE id=?")
			if err != nil {
				t.Fatal(err)
			}
			defer del.Close()

			queries := []struct {
				name   string
				lo, hi any
				want   int
			}{
				{"range of 100", 1, 100, 100},
				{"range past the end", int64(990), int64(2000), 11},
				{"empty range", 5000, 6000, 0},
			}
			for _, q := range queries {
				got, err := rangeQ.Query(ctx, q.lo, q.hi)
				if err != nil || got != q.want {
					t.Errorf("%s: Query = %d, %v; want %d rows", q.name, got, err, q.want)
				}
			}

			execs := []struct {
				name string
				st   driver.Stmt
				args []any
				want int64
			}{
				{"update 10 rows", update, []any{1, 10}, 10},
				{"update nothing", update, []any{5000, 6000}, 0},
				{"matched but unchanged counts 0 (changed rows)", sameC, []any{1}, 0},
				{"delete one", del, []any{5}, 1},
				{"delete it again", del, []any{5}, 0},
			}
			for _, e := range execs {
				got, err := e.st.Exec(ctx, e.args...)
				if err != nil || got != e.want {
					t.Errorf("%s: Exec = %d, %v; want %d", e.name, got, err, e.want)
				}
			}
			if got, err := c.Query(ctx, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", 1, 10); err != nil || got != 9 {
				t.Errorf("Conn.Query after delete = %d, %v; want 9", got, err)
			}
			if got, err := c.Exec(ctx, "UPDATE sbtest1 SET pad=? WHERE id=?", "it's \\ new", 7); err != nil || got != 1 {
				t.Errorf("Conn.Exec = %d, %v; want 1", got, err)
			}
			rows, err := c.QueryStrings(ctx, "SELECT pad, NULL FROM sbtest1 WHERE id=?", 7)
			if err != nil || len(rows) != 1 || rows[0][0] != "it's \\ new" || rows[0][1] != "" {
				t.Errorf("QueryStrings = %q, %v; want the quoted pad and an empty NULL", rows, err)
			}
		})
	}
}

func TestTransactions(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, mysqlTarget(t, true))
	c := connect(t, d, 0)
	loadSbtest(t, d, c, "sbtest1", 10)
	ins, err := c.Prepare(ctx, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	dl := d.Dialect()
	steps := []struct {
		name string
		end  string
		want int
	}{
		{"rollback discards", dl.Rollback(), 10},
		{"commit keeps", dl.Commit(), 11},
	}
	for _, s := range steps {
		if _, err := c.Exec(ctx, dl.Begin()); err != nil {
			t.Fatal(err)
		}
		// 0 asks AUTO_INCREMENT for the next id, as sysbench does.
		if n, err := ins.Exec(ctx, 0, 1, "c", "pad"); err != nil || n != 1 {
			t.Fatalf("%s: insert = %d, %v", s.name, n, err)
		}
		if _, err := c.Exec(ctx, s.end); err != nil {
			t.Fatal(err)
		}
		if got := count(t, c, "sbtest1"); got != s.want {
			t.Errorf("%s: %d rows, want %d", s.name, got, s.want)
		}
	}
	tables, err := c.QueryStrings(ctx, dl.ListTables())
	if err != nil || len(tables) != 1 || tables[0][0] != "sbtest1" {
		t.Errorf("ListTables = %q, %v; want sbtest1", tables, err)
	}
	if _, err := c.Exec(ctx, dl.DropTable("sbtest1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, dl.DropTable("sbtest1")); err != nil {
		t.Errorf("DropTable twice: %v", err)
	}
}

func TestArgumentErrorsExplain(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, mysqlTarget(t, false))
	c := connect(t, d, 0)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"too few arguments", func() error { _, err := c.Query(ctx, "SELECT ?, ?", 1); return err }, "do not match the statement's ? placeholders"},
		{"unsupported type", func() error { _, err := c.Exec(ctx, "DO ?", struct{}{}); return err }, "unsupported type struct {}"},
	}
	for _, tc := range cases {
		if err := tc.run(); err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if n, err := c.Query(ctx, "SELECT 1"); err != nil || n != 1 {
		t.Fatalf("connection unusable after argument errors: %d, %v", n, err)
	}
}
